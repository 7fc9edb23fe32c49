"""A finished run (``run/finish.py``) as ``ReportInputs``: from its directory, or from memory.

From the directory, items come from the run's release exports (``exports/<election>/[anon_v1|
en_v1/]ground_truth.jsonl``, which carry chunk provenance); answers, raw judge verdicts and
evidence from the JSONL files beside them; the manifest from ``run.json``. ``finish_run`` hands
over what it just wrote instead (``run_report_inputs``), so the report does not read it back.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd

from polistemics.answers.models import Answer
from polistemics.coding.records import ProbeAnswer, StanceCodeRecord
from polistemics.environments.items import EnvironmentItem
from polistemics.judging.panel import JudgeVerdictRecord
from polistemics.records import Evidence
from polistemics.report.inputs import AnswerView, ReportInputError, ReportInputs
from polistemics.results import read
from polistemics.results.layout import (
    ANSWERS_FILE,
    CELLS_FILE,
    JUDGES_FILE,
    MANIFEST_FILE,
    is_run_dir,
)
from polistemics.scoring.cells import validate_cells
from polistemics.scoring.mechanisms.coded import derived_swap
from polistemics.scoring.verdict_table import UnknownItemError, verdict_table
from polistemics.scoring.verdicts import DEFAULT_PANEL_SIZE, PanelTally, tally_panel

__all__ = ["is_run_dir", "load_run_inputs", "read_manifest", "run_report_inputs", "with_manifest"]


def read_manifest(run_dir: Path) -> dict | None:
    """``run.json``, or None when the run has none."""
    try:
        return read.read_manifest(run_dir)
    except read.RunFileError as exc:
        raise ReportInputError(str(exc)) from None


def load_run_inputs(run_dir: Path) -> ReportInputs:
    run_dir = Path(run_dir)
    if not is_run_dir(run_dir):
        raise ReportInputError(f"{run_dir}: not a finished run directory (no {CELLS_FILE})")
    notes: list[str] = []
    try:
        cells = validate_cells(read.read_cells(run_dir), source=str(run_dir / CELLS_FILE))
        manifest = read.read_manifest(run_dir)
        items = read.read_run_items(run_dir)
        answers = read.read_answers(run_dir)
        records = read.read_judge_records(run_dir) if items else None
        evidence = read.read_evidence(run_dir)
        stance_codes = read.read_stance_codes(run_dir)
        probes = read.read_prior_probe(run_dir)
    except read.RunFileError as exc:
        raise ReportInputError(str(exc)) from None
    if manifest is None:
        notes.append(f"no {MANIFEST_FILE} in {run_dir}: costs, times and pipeline counts unknown")
    if not items:
        notes.append(f"no exports/*/ground_truth.jsonl in {run_dir}: contexts unknown")
    if answers is None:
        notes.append(f"no {ANSWERS_FILE} in {run_dir}: the item browser is empty")
    if not (run_dir / JUDGES_FILE).is_file():
        notes.append(f"no {JUDGES_FILE} in {run_dir}: judge reliability unknown")
    elif not items:
        notes.append(
            f"{JUDGES_FILE} is not read without the items it refers to: reliability unknown"
        )
    return run_report_inputs(
        run_dir,
        cells=cells,
        manifest=manifest,
        items=items,
        answers=answers or [],
        judge_records=records,
        evidence=evidence,
        notes=notes,
        stance_codes=stance_codes,
        probes=probes,
    )


def run_report_inputs(
    run_dir: Path,
    *,
    cells: pd.DataFrame,
    manifest: dict | None,
    items: list[EnvironmentItem],
    answers: list[Answer],
    judge_records: list[JudgeVerdictRecord] | None,
    evidence: list[Evidence] | None,
    judging: PanelTally | None = None,
    notes: list[str] | None = None,
    stance_codes: list[StanceCodeRecord] | None = None,
    probes: list[ProbeAnswer] | None = None,
) -> ReportInputs:
    """The report's view of a run's outputs (None: not available).

    ``judging`` is the panel's tally when the caller has it already (``finish_run``); otherwise
    it is computed from ``judge_records`` with the manifest's panel size. ``stance_codes`` and
    ``probes`` (issue 16) are None when the run did not code stances or probe priors.
    """
    notes = list(notes or [])
    by_key = {item.key: item for item in items}
    for answer in answers:  # swapped-order Contradictory answers: the exports hold no such item
        if answer.item_key not in by_key:
            derived_swap(answer.item_key, by_key)
    views, unknown = answer_views(answers, by_key)
    if unknown:
        notes.append(
            f"{run_dir / ANSWERS_FILE}: {unknown} answers name no item of the exports; not shown"
        )
    config = (manifest or {}).get("config", {})
    if judge_records is not None and judging is None:
        panel_size = len(config["judges"]) if config.get("judges") else DEFAULT_PANEL_SIZE
        judging = _tally(judge_records, by_key, panel_size)
    return ReportInputs(
        kind="run",
        source=run_dir,
        title=_title(run_dir, manifest),
        cells=cells,
        answers=views,
        judge_records=judge_records,
        judging=judging,
        manifest=manifest,
        evidence=evidence,
        items=items,
        notes=notes,
        stance_codes=stance_codes,
        probes=probes,
    )


def with_manifest(inputs: ReportInputs, manifest: dict | None) -> ReportInputs:
    """A run's inputs with its manifest (read later than the rest), which also names the run."""
    return replace(inputs, manifest=manifest, title=_title(inputs.source, manifest))


def _title(run_dir: Path, manifest: dict | None) -> str:
    return str((manifest or {}).get("config", {}).get("name") or run_dir.name)


def answer_views(
    answers: list[Answer], items: dict[str, EnvironmentItem]
) -> tuple[list[AnswerView], int]:
    """The answers the item browser shows, and how many name no known item."""
    views: list[AnswerView] = []
    for answer in answers:
        item = items.get(answer.item_key)
        if item is None:
            continue
        error = (
            None
            if answer.ok
            else (answer.error or ("empty answer" if answer.empty else answer.status))
        )
        truncated = answer.ok and answer.finish_reason == "length"
        views.append(
            AnswerView(item, answer.model, answer.sample_index, answer.text, error, truncated)
        )
    return views, len(answers) - len(views)


def _tally(
    records: list[JudgeVerdictRecord], items: dict[str, EnvironmentItem], panel_size: int
) -> PanelTally:
    try:
        return tally_panel(verdict_table(records, items), panel_size)
    except UnknownItemError as exc:
        raise ReportInputError(f"{JUDGES_FILE}: {exc}") from None
