"""After the model stages: scores, exports, manifest and report for a finished study."""

from __future__ import annotations

from pathlib import Path

from polistemics.llm.session import STORE_NAME
from polistemics.llm.store import RunStore
from polistemics.report.build import build_report
from polistemics.run.exports import (
    write_cells,
    write_jsonl,
    write_release_exports,
    write_summary,
)
from polistemics.run.manifest import write_manifest
from polistemics.run.pipeline import Study, StudyResult, score_study


def finish_run(study: Study, result: StudyResult) -> dict[str, Path]:
    """Write every result file of the run directory; returns the important paths."""
    run_dir = result.run_dir
    scored = score_study(result, study.config)
    cells_path = write_cells(run_dir, scored.cells)
    summary_path = write_summary(run_dir, scored.cells)
    items = [item for run in result.elections for item in run.items]
    write_jsonl(
        run_dir / "evidence.jsonl",
        (ev.model_dump(mode="json") for run in result.elections for ev in run.evidence),
    )
    write_jsonl(run_dir / "answers.jsonl", (a.model_dump(mode="json") for a in result.answers))
    write_jsonl(run_dir / "judges.jsonl", (r.model_dump(mode="json") for r in result.verdicts))
    write_release_exports(run_dir, items, result.answers, scored.cells, list(study.config.judges))
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
    paths["report"] = build_report(run_dir)
    return paths
