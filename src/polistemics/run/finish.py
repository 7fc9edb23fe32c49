"""After the model stages: scores, exports, manifest and report for a finished study."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from polistemics.environments.items import EnvironmentItem
from polistemics.judging.parsing_figures import judge_parsing
from polistemics.llm.store import RunStore
from polistemics.report.build import RUN_REPORT_FOLDER, write_report
from polistemics.report.content import ReportOptions, score_content
from polistemics.report.inputs import ReportInputs
from polistemics.report.run_inputs import read_manifest, run_report_inputs, with_manifest
from polistemics.run.coding import summarise_codes
from polistemics.run.collector import cyclic_gc_paused
from polistemics.run.manifest import write_manifest
from polistemics.run.pipeline import Study, StudyResult, score_study
from polistemics.run.repeats import summarise_repeats, write_repeats
from polistemics.runlog import RunDir
from polistemics.scoring.cells import validate_cells
from polistemics.scoring.run_scores import summary_rows, write_release_score_files
from polistemics.scoring.verdicts import MajorityResult


def finish_run(
    study: Study, result: StudyResult, report_options: ReportOptions | None = None
) -> dict[str, Path]:
    """Write every result file of the run directory; returns the important paths."""
    with cyclic_gc_paused():
        return _finish(study, result, report_options)


def _finish(
    study: Study, result: StudyResult, report_options: ReportOptions | None
) -> dict[str, Path]:
    """Scores, the exports, the report's tables, the manifest (it needs the exports' time) and
    the page, one after the other in this process."""
    run_dir = result.run_dir
    items = [item for run in result.elections for item in run.items]
    panel = list(study.config.judges)
    with study.stage("scores"):
        scored = score_study(result, study.config)
    with study.stage("exports"):
        call_stats = _write_stage_outputs(result, items)
        cells_path, summary_path = _write_score_files(run_dir, scored.cells, items, panel)
    with study.stage("report"):
        inputs = _report_inputs(study, result, items, scored)
        report_scores = score_content(inputs, report_options)
    paths: dict[str, Path] = {"scores": summary_path, "cells": cells_path}
    paths["manifest"] = write_manifest(
        run_dir,
        study.config,
        study.endpoints,
        call_stats,
        started=study.started,
        # run.json, written before the page (which shows it), has no report time: the CLI
        # prints it.
        stage_seconds={k: v for k, v in result.stage_seconds.items() if k != "report"},
        calls_made=result.calls_made,
        extra=_manifest_extra(study, result, scored, call_stats),
    )
    with study.stage("report"):
        inputs = with_manifest(inputs, read_manifest(run_dir))
        paths["report"] = write_report(
            inputs, run_dir / RUN_REPORT_FOLDER, report_options, scores=report_scores
        )
    return paths


def _report_inputs(
    study: Study, result: StudyResult, items: list[EnvironmentItem], scored: MajorityResult
) -> ReportInputs:
    """The report gets the run's outputs from memory, not by reading the files back
    (``polistemics report RUN_DIR`` reads the same from the files); the manifest comes later
    (``with_manifest``)."""
    return run_report_inputs(
        result.run_dir,
        cells=validate_cells(scored.cells),
        manifest=None,
        items=items,
        answers=result.answers,
        judge_records=result.verdicts,
        evidence=[ev for run in result.elections for ev in run.evidence],
        judging=scored.tally,
        stance_codes=result.stance_codes if study.config.stance_coder else None,
        probes=result.probe_answers if study.config.prior_probe else None,
    )


def _manifest_extra(
    study: Study, result: StudyResult, scored: MajorityResult, call_stats: list[dict]
) -> dict:
    return {
        "elections": {
            run.scoped.election.id: {
                "counts": run.scoped.counts,
                "standardisation": run.standardisation,
                "environments": run.environments,
                "vague": run.vague,
            }
            for run in result.elections
        },
        "judging": {
            "panel": list(study.config.judges),
            "answers_not_judged": result.judges_skipped,
            "excluded_items": scored.n_excluded,
            "ties": scored.n_ties,
            "ignored_sub_questions": dict(scored.ignored),
        },
        # Attempts, retries and missing verdicts per judge and output mode (the exclusion rate).
        "judge_parsing": judge_parsing(
            result.verdicts,
            {name: study.endpoints[name] for name in study.config.judges},
            call_stats,
        ),
        "judge_repeats": summarise_repeats(
            study.config,
            result.verdicts,
            result.repeat_verdicts,
            [item for run in result.elections for item in run.items],
            result.repeats_drawn,
        ),
        "stance_coding": summarise_codes(study.config, result.stance_codes, result.probe_answers),
    }


def _write_stage_outputs(result: StudyResult, items: list[EnvironmentItem]) -> list[dict]:
    """evidence, answers and judge records as JSONL, and the release folders' items and
    answers (their scores come later). Returns the run store's ``call_stats`` for the manifest."""
    run_files = RunDir(result.run_dir)
    run_files.write_evidence(ev for run in result.elections for ev in run.evidence)
    run_files.write_answers(result.answers)
    run_files.write_judge_records(result.verdicts)
    if result.repeat_verdicts:
        write_repeats(run_files.root, result.repeat_verdicts)
    else:  # none this time: no stale file from an earlier config
        run_files.judge_repeats.unlink(missing_ok=True)
    run_files.write_release_answers(items, result.answers)
    swapped = [item for run in result.elections for item in run.swapped_items]
    run_files.write_mechanism_files(items, swapped, result.stance_codes, result.probe_answers)
    with RunStore(run_files.store) as store:
        return store.call_stats()


def _write_score_files(
    run_dir: Path, cells: pd.DataFrame, items: list[EnvironmentItem], panel: list[str]
) -> tuple[Path, Path]:
    """``scores/cells.csv``, ``scores/summary.json`` and the release folders' score files."""
    run = RunDir(run_dir)
    paths = run.write_cells(cells), run.write_summary(summary_rows(cells))
    write_release_score_files(run, items, cells, panel)
    return paths
