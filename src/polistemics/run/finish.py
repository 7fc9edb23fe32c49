"""After the model stages: scores, exports, manifest and report for a finished study."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from polistemics.llm.batch.ledger import ledger_report
from polistemics.llm.store import RunStore
from polistemics.report.options import REPORT_FILE, RUN_REPORT_FOLDER, ReportOptions
from polistemics.run.collector import cyclic_gc_paused
from polistemics.run.incremental import (
    RECORDS,
    REPORT,
    Ledger,
    record_files,
    records_key,
    report_files,
    report_key,
)
from polistemics.run.manifest import MANIFEST_OWN_KEYS, write_manifest
from polistemics.run.pipeline import Study, StudyResult, scoring_started
from polistemics.run.side_process import can_fork_side_process, in_side_process
from polistemics.run.stages.base import ElectionRun, StudyState
from polistemics.runlog import EnvironmentItem, RunDir
from polistemics.runlog.exports import remove_stale_exports
from polistemics.runlog.spool import SpooledAnswers, SpooledJudgeRecords

if TYPE_CHECKING:
    import pandas as pd

    from polistemics.analyses.pushback import PushbackRecords
    from polistemics.report.browser_files import BrowserData
    from polistemics.report.content import ScoreContent
    from polistemics.report.inputs import ReportInputs
    from polistemics.scoring.verdicts import MajorityResult

# The report (matplotlib, jinja2, scipy, statsmodels) and the scores' tables (pandas) are
# imported where they are made: a rerun whose records and report are current loads none of them
# (issue 26).


def finish_run(
    study: Study, result: StudyResult, report_options: ReportOptions | None = None
) -> dict[str, Path]:
    """Write every result file of the run directory; returns the important paths. When the
    stages did not run because their records are current (``StudyState.unchanged_records``),
    only ``run.json`` is written, and the report only when it is not current itself."""
    with cyclic_gc_paused():
        if result.unchanged_records is not None:
            return _finish_unchanged(study, result, report_options)
        return _finish(study, result, report_options)


# The side process saves a few seconds whatever the study's size, and costs memory that grows
# with it: the child's own allocations and the parent's pages it touches (a finish of the 8x
# paper-scale study, 1,000,032 cells: the process tree's peak Pss 1,413 MB with it, 1,082 MB
# without). Above this many cells the finish does all its work in one process.
SIDE_PROCESS_MAX_CELLS = 250_000
CALL_STATS_THREAD = "polistemics-call-stats"  # the name of the thread that reads them


def _finish(
    study: Study, result: StudyResult, report_options: ReportOptions | None
) -> dict[str, Path]:
    """Scores, the exports, the report's tables, the manifest (it needs the exports' time) and
    the page. The score files and tables, then the analysis tables (they fingerprint
    ``scores/cells.csv``), are written by a forked side process while this one makes what
    run.json and the page need from the report's inputs (``side_process``): neither takes
    input from the other's work."""
    from polistemics.report.build import write_report, write_run_analyses
    from polistemics.report.content import score_content
    from polistemics.report.run_inputs import read_manifest, with_manifest

    run_dir = result.run_dir
    items = result.items
    panel = list(study.config.judges)
    call_stats = _call_stats_meanwhile(run_dir)  # read while the scores are tallied
    report_options = with_run_names(report_options or ReportOptions(), study, result)
    ledger = Ledger(run_dir)
    for step in (RECORDS, REPORT):  # stale until rewritten: an interrupted finish is redone
        ledger.forget(step)
    if isinstance(result.verdicts, SpooledJudgeRecords):
        # In their file first (the exports would move them there): a large study's scoring
        # process reads them while this one writes the exports, which do not read the scores.
        result.verdicts.place(RunDir(run_dir).judges)
    scoring = ExitStack()  # left (the scoring process waited for) after the exports
    with study.stage("scores"):
        scored_later = scoring.enter_context(scoring_started(result, study.config))
    with scoring:
        with study.stage("exports"):
            for stage in study.stages:  # each stage's files, in stage order
                stage.write(result, RunDir(run_dir))
            remove_stale_exports(run_dir, (run.scoped.election.id for run in result.elections))
        with study.stage("scores"):
            scored = scored_later()
    result.scored = scored
    with study.stage("report"):
        inputs = _report_inputs(study, result, items, scored)
    analyses = partial(write_run_analyses, inputs, report_options)
    if len(scored.cells) <= SIDE_PROCESS_MAX_CELLS and can_fork_side_process():
        report_scores, browser, extra, (cells_path, summary_path) = _beside_score_files(
            study, result, inputs, report_options, analyses, call_stats
        )
    else:
        # One process: the score files and the analysis tables before the page's content, which
        # holds the records of the answers it shows (at 8x the paper's scale, 50 MB more under
        # the tables' peak, issue 32).
        with study.stage("exports"):
            cells_path, summary_path = _write_score_files(run_dir, scored.cells, items, panel)
        with study.stage("report"):
            analyses()
            result.call_stats = call_stats()
            report_scores = score_content(inputs, report_options)
            browser = None  # made by write_report, not held through the tables
            extra = _manifest_extra(study, result)
    paths: dict[str, Path] = {"scores": summary_path, "cells": cells_path}
    paths["manifest"] = write_manifest(
        run_dir,
        study.config,
        study.endpoints,
        result.call_stats,
        started=study.started,
        # run.json, written before the page (which shows it), has no report time: the CLI
        # prints it.
        stage_seconds={k: v for k, v in result.stage_seconds.items() if k != "report"},
        calls_made=result.calls_made,
        extra=extra,
    )
    # The records step is recorded (the store's and every file's hash, none in report/) by the
    # side process while this one draws the page.
    record = partial(_record_records, study, result)  # after run.json's part read the store
    with study.stage("report"), in_side_process(record, fork=browser is not None) as recorded:
        inputs = with_manifest(inputs, read_manifest(run_dir))
        paths["report"] = write_report(
            inputs,
            run_dir / RUN_REPORT_FOLDER,
            report_options,
            scores=report_scores,
            browser=browser,
        )
        _record_report(run_dir, recorded.result(), report_options)
    return paths


def _beside_score_files(
    study: Study,
    result: StudyResult,
    inputs: ReportInputs,
    report_options: ReportOptions,
    analyses: Callable[[], None],
    call_stats: Callable[[], list[dict]],
) -> tuple[ScoreContent, BrowserData, dict, tuple[Path, Path]]:
    """The report's content, the page's browser files and run.json's parts, made while a forked
    side process writes the score files and then the analysis tables (tables/: read by report
    and score; they fingerprint ``scores/cells.csv``); neither takes input from the other's
    work. The analysis tables are written here afterwards when they would count the judges'
    vote totals with Polars (a tally without them), which a forked child cannot."""
    from polistemics.report.browser_files import page_browser
    from polistemics.report.content import score_content

    scored = result.scored
    assert scored is not None
    beside = scored.tally.judge_totals is not None
    score_files = partial(
        _write_score_files,
        result.run_dir,
        scored.cells,
        result.items,
        list(study.config.judges),
        analyses if beside else None,
    )
    result.call_stats = call_stats()  # its thread ended before the fork
    with in_side_process(score_files) as written:
        with study.stage("report"):
            report_scores = score_content(inputs, report_options)
            browser = page_browser(report_scores.browser)  # while the side process works
            extra = _manifest_extra(study, result)
        # what is left of the side process's time: the score files' or, mostly, the tables'
        with study.stage("report" if beside else "exports"):
            paths = written.result()
    if not beside:
        with study.stage("report"):
            analyses()
    return report_scores, browser, extra, paths


def _record_records(study: Study, state: StudyState) -> str:
    """The ``records`` step recorded as current: the key of what the stages read now (the store
    holds this run's calls) and every file written so far."""
    run = RunDir(state.run_dir)
    key = records_key(study.config, study.endpoints, [r.scoped for r in state.elections], run.store)
    Ledger(run.root).record(RECORDS, key, record_files(run.root, RUN_REPORT_FOLDER))
    return key


def _record_report(run_dir: Path, records: str, options: ReportOptions) -> None:
    folder = run_dir / RUN_REPORT_FOLDER
    Ledger(run_dir).record(REPORT, report_key(records, options), report_files(folder))


def _finish_unchanged(
    study: Study, state: StudyState, report_options: ReportOptions | None
) -> dict[str, Path]:
    """A finish whose records are current: ``run.json`` gets this invocation (no call made;
    everything else as the last finish recorded it) and the report is drawn from the run's files
    only when it is not current (other options, a file changed or missing)."""
    run = RunDir(state.run_dir)
    records = state.unchanged_records
    assert records is not None
    report_options = with_run_names(report_options or ReportOptions(), study, state)
    last = json.loads(run.manifest.read_text(encoding="utf-8"))
    paths: dict[str, Path] = {"scores": run.summary, "cells": run.cells}
    paths["manifest"] = write_manifest(
        run.root,
        study.config,
        study.endpoints,
        last["calls"],
        started=study.started,
        stage_seconds=dict(state.stage_seconds),
        calls_made=0,
        extra={k: v for k, v in last.items() if k not in MANIFEST_OWN_KEYS},
    )
    folder = run.root / RUN_REPORT_FOLDER
    paths["report"] = folder / REPORT_FILE
    if Ledger(run.root).is_current(REPORT, report_key(records, report_options)):
        state.log("report: current")
        return paths
    from polistemics.report.build import write_report
    from polistemics.report.run_inputs import load_run_inputs

    with study.stage("report"):
        Ledger(run.root).forget(REPORT)
        paths["report"] = write_report(load_run_inputs(run.root), folder, report_options)
        _record_report(run.root, records, report_options)
    return paths


def with_run_names(options: ReportOptions, study: Study, state: StudyState) -> ReportOptions:
    """The run's report names its models by their registry display names and its elections by
    their sources' titles (as ``polistemics report`` does from run.json); names already in
    ``options`` come first."""
    names = {n: e.display_name for n, e in study.endpoints.items() if e.display_name}
    titles = {run.scoped.election.id: run.scoped.election.title for run in state.elections}
    titles = {k: v for k, v in titles.items() if v.strip()}
    return replace(
        options,
        display_names={**names, **options.display_names},
        election_titles={**titles, **options.election_titles},
    )


def _report_inputs(
    study: Study, result: StudyResult, items: list[EnvironmentItem], scored: MajorityResult
) -> ReportInputs:
    """The report gets the run's items, evidence and scores from memory, its answers and judge
    records from their files (as ``polistemics report RUN_DIR`` reads them: judge records where
    they are used, never all held); the manifest comes later (``with_manifest``)."""
    from polistemics.report.run_inputs import run_report_inputs
    from polistemics.scoring.cells import validate_cells

    answers, records = result.answers, result.verdicts
    return run_report_inputs(
        result.run_dir,
        cells=validate_cells(scored.cells),
        manifest=None,
        items=items,
        # read in parts, of which only what the report shows is kept
        answers=answers.chunks() if isinstance(answers, SpooledAnswers) else answers,
        # their texts are left in the file (read again for the answers the browser shows)
        answers_file=answers.path if isinstance(answers, SpooledAnswers) else None,
        judge_records=records,  # a spooled file: read where the report uses them, in parts
        evidence=[ev for run in result.elections for ev in run.evidence],
        judging=scored.tally,
        stance_codes=result.stance_codes if study.config.stance_coder else None,
        probes=result.probe_answers if study.config.prior_probe else None,
        # the pushback stage's files, written in the exports step just before (issue 30)
        pushback=_pushback_records(RunDir(result.run_dir)),
    )


def _pushback_records(run: RunDir) -> PushbackRecords | None:
    from polistemics.analyses.pushback import PushbackRecords

    found = run.read_pushback()
    return None if found is None else PushbackRecords(*found)


def _manifest_extra(study: Study, state: StudyState) -> dict:
    """run.json's parts after the run's record: each election's data counts, then every
    stage's part in stage order (parts naming the same key are merged, e.g. ``elections``)."""
    extra: dict = {
        "elections": {run.scoped.election.id: _election_record(run) for run in state.elections}
    }
    for stage in study.stages:
        merge(extra, stage.manifest(state))
    # Calls and cost per execution mode, batches and resubmissions (none without batches).
    extra.update(ledger_report(RunDir(state.run_dir).store))
    return extra


def _election_record(run: ElectionRun) -> dict:
    """The election's title (its source's own name, when it has one) and data counts."""
    title = " ".join(run.scoped.election.title.split())
    return {**({"title": title} if title else {}), "counts": run.scoped.counts}


def merge(into: dict, part: dict) -> dict:
    """``part`` merged into ``into`` in place: nested dicts key by key, anything else set."""
    for key, value in part.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            merge(into[key], value)
        else:
            into[key] = value
    return into


def _call_stats(run_dir: Path) -> list[dict]:
    """The run store's ``call_stats`` for the manifest."""
    with RunStore(RunDir(run_dir).store) as store:
        return store.call_stats()


def _call_stats_meanwhile(run_dir: Path) -> Callable[[], list[dict]]:
    """``_call_stats`` read by a thread of its own; the function returned waits for them (and
    raises the thread's error). SQLite aggregates the store's calls without holding the GIL, so
    at paper scale the 0.2 s they take pass while this thread tallies the scores, on the core
    that is idle then. The thread has ended once the stats were asked for: the finish forks its
    side process only afterwards (a fork while a thread is inside SQLite could copy a lock that
    no thread of the child would release)."""
    pool = ThreadPoolExecutor(1, thread_name_prefix=CALL_STATS_THREAD)
    read = pool.submit(_call_stats, run_dir)
    pool.shutdown(wait=False)  # its one thread ends after the read

    def stats() -> list[dict]:
        try:
            return read.result()
        finally:
            pool.shutdown(wait=True)  # joined

    return stats


def _write_score_files(
    run_dir: Path,
    cells: pd.DataFrame,
    items: list[EnvironmentItem],
    panel: list[str],
    then: Callable[[], None] | None = None,
) -> tuple[Path, Path]:
    """``scores/cells.csv``, ``scores/summary.json``, the release folders' score files and the
    score tables of ``tables/`` (from these cells, not read back from the file, and the exports),
    then ``then`` (the analysis tables, which read the files). No Polars here: it runs in the
    side process."""
    from polistemics.report.build import write_score_tables
    from polistemics.scoring.run_scores import summary_rows, write_release_score_files

    run = RunDir(run_dir)
    paths = run.write_cells(cells), run.write_summary(summary_rows(cells))
    write_release_score_files(run, items, cells, panel)
    write_score_tables(run_dir, cells)
    if then is not None:
        then()
    return paths
