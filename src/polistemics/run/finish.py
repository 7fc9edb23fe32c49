"""After the model stages: scores, exports, manifest and report for a finished study."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from polistemics.llm.session import STORE_NAME
from polistemics.llm.store import RunStore
from polistemics.report.build import RUN_REPORT_FOLDER, write_report
from polistemics.report.run_inputs import read_manifest, run_report_inputs
from polistemics.run.exports import (
    ANSWERS_FILE,
    EVIDENCE_FILE,
    JUDGES_FILE,
    write_cells,
    write_jsonl,
    write_release_exports,
    write_summary,
)
from polistemics.run.manifest import write_manifest
from polistemics.run.pipeline import Study, StudyResult, score_study
from polistemics.scoring.cells import validate_cells


def finish_run(study: Study, result: StudyResult) -> dict[str, Path]:
    """Write every result file of the run directory; returns the important paths."""
    with _cyclic_gc_paused():
        return _finish(study, result)


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """No cyclic garbage collection meanwhile: this step builds millions of objects and keeps
    most of them, so each full collection would walk the whole heap again, for nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _finish(study: Study, result: StudyResult) -> dict[str, Path]:
    run_dir = result.run_dir
    with study.stage("scores"):
        scored = score_study(result, study.config)
        cells_path = write_cells(run_dir, scored.cells)
        summary_path = write_summary(run_dir, scored.cells)
    items = [item for run in result.elections for item in run.items]
    evidence = [ev for run in result.elections for ev in run.evidence]
    with study.stage("exports"):
        write_jsonl(run_dir / EVIDENCE_FILE, (ev.model_dump(mode="json") for ev in evidence))
        write_jsonl(run_dir / ANSWERS_FILE, (a.model_dump(mode="json") for a in result.answers))
        write_jsonl(run_dir / JUDGES_FILE, (r.model_dump(mode="json") for r in result.verdicts))
        write_release_exports(
            run_dir, items, result.answers, scored.cells, list(study.config.judges)
        )
    paths: dict[str, Path] = {"scores": summary_path, "cells": cells_path}
    extra = {
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
        "calls_made_this_run": result.calls_made,
    }
    with RunStore(run_dir / STORE_NAME) as store:
        paths["manifest"] = write_manifest(
            run_dir,
            study.config,
            study.endpoints,
            store,
            started=study.started,
            stage_seconds=result.stage_seconds,
            extra=extra,
        )
    # The report gets what was just written from memory, not by reading the files back
    # (``polistemics report RUN_DIR`` reads the same from the files).
    with study.stage("report"):
        inputs = run_report_inputs(
            run_dir,
            cells=validate_cells(scored.cells),
            manifest=read_manifest(run_dir),
            items=items,
            answers=result.answers,
            judge_records=result.verdicts,
            evidence=evidence,
            judging=scored.tally,
        )
        paths["report"] = write_report(inputs, run_dir / RUN_REPORT_FOLDER)
    # run.json (written before the report, which shows it) has no report time; the CLI prints it.
    return paths
