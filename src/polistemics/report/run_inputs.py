"""A finished run (``run/finish.py``) as ``ReportInputs``: from its directory, or from memory.

From the directory, items come from the run's release exports (``exports/<election>/[anon_v1|
en_v1/]ground_truth.jsonl``, which carry chunk provenance); answers, raw judge verdicts and
evidence from the JSONL files beside them; the manifest from ``run.json``. ``finish_run`` hands
over what it just wrote instead (``run_report_inputs``), so the report does not read it back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from itertools import islice
from pathlib import Path

import pandas as pd

from polistemics.analyses.pushback import PushbackRecords
from polistemics.records import Evidence
from polistemics.report.inputs import (
    AnswerView,
    JudgeRecordSource,
    ReportInputError,
    ReportInputs,
    StoredText,
)
from polistemics.report.verdict_source import JudgeRecordFile
from polistemics.runlog import (
    ANSWERS_FILE,
    CELLS_FILE,
    JUDGES_FILE,
    MANIFEST_FILE,
    Answer,
    JudgeVerdictRecord,
    ProbeAnswer,
    RunDir,
    RunFileError,
    RunManifest,
    StanceCodeRecord,
    is_run_dir,
)
from polistemics.runlog.items import EnvironmentItem
from polistemics.runlog.read import read_answer_chunks, record_offsets
from polistemics.scoring.cells import validate_cells
from polistemics.scoring.mechanisms.coded import derived_swap
from polistemics.scoring.verdicts import DEFAULT_PANEL_SIZE, PanelTally

__all__ = [
    "is_run_dir",
    "load_run_inputs",
    "read_manifest",
    "run_file_inputs",
    "run_report_inputs",
    "with_manifest",
]


def read_manifest(run_dir: Path) -> RunManifest | None:
    """``run.json``, or None when the run has none."""
    try:
        return RunDir(run_dir).read_manifest()
    except RunFileError as exc:
        raise ReportInputError(str(exc)) from None


def load_run_inputs(run_dir: Path) -> ReportInputs:
    """A finished run's report inputs from its files (``polistemics report RUN``)."""
    run = RunDir(run_dir)
    run_dir = run.root
    if not run.is_finished():
        raise ReportInputError(f"{run_dir}: not a finished run directory (no {CELLS_FILE})")
    try:
        cells = validate_cells(run.read_cells(), source=str(run.cells))
        manifest = run.read_manifest()
    except RunFileError as exc:
        raise ReportInputError(str(exc)) from None
    notes: list[str] = []
    if manifest is None:
        notes.append(f"no {MANIFEST_FILE} in {run_dir}: costs, times and pipeline counts unknown")
    return run_file_inputs(run_dir, cells=cells, manifest=manifest, notes=notes)


def run_file_inputs(
    run_dir: Path,
    *,
    cells: pd.DataFrame,
    manifest: RunManifest | None = None,
    judging: PanelTally | None = None,
    items: list[EnvironmentItem] | None = None,
    notes: list[str] | None = None,
) -> ReportInputs:
    """A run's report inputs read from its files, in memory that does not hold every answer as
    an object (answers are read in parts, judge records into columns): what ``load_run_inputs``
    reads after the cells and run.json, and what a run's finish calls once its stages wrote
    their files (issue 32), with the cells and panel tally it scored (``judging``; None: counted
    here from ``judges.jsonl`` with the manifest's panel size) and no manifest (``with_manifest``
    adds it later). ``items``: the run's items when the caller holds them (default: read from
    the exports)."""
    run = RunDir(run_dir)
    run_dir = run.root
    notes = list(notes or [])
    try:
        items = run.read_items() if items is None else items
        answers = read_answer_chunks(run.answers)
        # read where they are used, in parts (``report.verdict_source``)
        records = JudgeRecordFile(run.judges) if items and run.judges.is_file() else None
        evidence = run.read_evidence()
        stance_codes = run.read_stance_codes()
        probes = run.read_prior_probe()
        pushback = run.read_pushback()
    except RunFileError as exc:
        raise ReportInputError(str(exc)) from None
    if not items:
        notes.append(f"no exports/*/ground_truth.jsonl in {run_dir}: contexts unknown")
    if answers is None:
        notes.append(f"no {ANSWERS_FILE} in {run_dir}: the item browser is empty")
    if not run.judges.is_file():
        notes.append(f"no {JUDGES_FILE} in {run_dir}: judge reliability unknown")
    elif not items:
        notes.append(
            f"{JUDGES_FILE} is not read without the items it refers to: reliability unknown"
        )
    try:
        return run_report_inputs(
            run_dir,
            cells=cells,
            manifest=manifest,
            items=items,
            answers=answers or (),
            answers_file=run.answers if answers is not None else None,
            judge_records=records,
            evidence=evidence,
            judging=judging,
            notes=notes,
            stance_codes=stance_codes,
            probes=probes,
            pushback=None if pushback is None else PushbackRecords(*pushback),
        )
    except RunFileError as exc:  # an answer of answers.jsonl, read while its views are made
        raise ReportInputError(str(exc)) from None


def run_report_inputs(
    run_dir: Path,
    *,
    cells: pd.DataFrame,
    manifest: RunManifest | None,
    items: list[EnvironmentItem],
    answers: list[Answer] | Iterable[list[Answer]],
    judge_records: JudgeRecordSource | Sequence[JudgeVerdictRecord] | None,
    evidence: list[Evidence] | None,
    judging: PanelTally | None = None,
    notes: list[str] | None = None,
    stance_codes: list[StanceCodeRecord] | None = None,
    probes: list[ProbeAnswer] | None = None,
    pushback: PushbackRecords | None = None,
    answers_file: Path | None = None,
) -> ReportInputs:
    """The report's view of a run's outputs (None: not available).

    ``answers``: the answers, or their parts as read (``runlog.read.read_answer_chunks``: only
    their views are kept); ``answers_file``: the file they were read from, in its order: their
    texts are left in it (``inputs.StoredText``, read again for the answers the item browser
    shows). ``judge_records``: a file's records (``JudgeRecordSource``: read where
    they are used, never held whole) or the records. ``judging`` is the panel's tally when the
    caller has it already (``finish_run``); otherwise it is counted from ``judge_records`` with
    the manifest's panel size when the analysis tables are computed. ``stance_codes`` and ``probes`` (issue 16) are None when the run did not code stances
    or probe priors.
    """
    notes = list(notes or [])
    by_key = {item.key: item for item in items}
    views: list[AnswerView] = []
    unknown = 0
    offsets = None if answers_file is None else record_offsets(answers_file)
    for part in _parts(answers):
        for answer in part:  # swapped-order Contradictory answers: no such item in the exports
            if answer.item_key not in by_key:
                derived_swap(answer.item_key, by_key)
        places = None
        if offsets is not None and answers_file is not None:
            places = [StoredText(answers_file, offset) for offset in islice(offsets, len(part))]
            if len(places) != len(part):
                raise ReportInputError(f"{answers_file} changed while the report read it")
        part_views, part_unknown = answer_views(part, by_key, places)
        views += part_views
        unknown += part_unknown
    if unknown:
        notes.append(
            f"{run_dir / ANSWERS_FILE}: {unknown} answers name no item of the exports; not shown"
        )
    panel_size = 0
    if judging is not None:
        panel_size = judging.panel_size
    elif judge_records is not None:
        judges = manifest.panel_judges if manifest is not None else []
        panel_size = len(judges) if judges else DEFAULT_PANEL_SIZE
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
        pushback=pushback,
        run_dir=run_dir,
        panel_size=panel_size,
    )


def _parts(answers: list[Answer] | Iterable[list[Answer]]) -> Iterator[list[Answer]]:
    """A list of answers as one part; parts as they come."""
    if isinstance(answers, list) and (not answers or isinstance(answers[0], Answer)):
        yield answers
    else:
        yield from answers


def with_manifest(inputs: ReportInputs, manifest: RunManifest | None) -> ReportInputs:
    """A run's inputs with its manifest (read later than the rest), which also names the run."""
    return replace(inputs, manifest=manifest, title=_title(inputs.source, manifest))


def _title(run_dir: Path, manifest: RunManifest | None) -> str:
    config = manifest.config if manifest is not None else None
    return (config.name if config is not None else None) or run_dir.name


def answer_views(
    answers: list[Answer],
    items: dict[str, EnvironmentItem],
    places: list[StoredText] | None = None,
) -> tuple[list[AnswerView], int]:
    """The answers the item browser shows, and how many name no known item; ``places``: where
    each answer's line is in its file (its text is left there; None: the texts are kept)."""
    views: list[AnswerView] = []
    for index, answer in enumerate(answers):
        item = items.get(answer.item_key)
        if item is None:
            continue
        error = (
            None
            if answer.ok
            else (answer.error or ("empty answer" if answer.empty else answer.status))
        )
        truncated = answer.ok and answer.finish_reason == "length"
        text = answer.text if places is None or answer.text is None else places[index]
        views.append(AnswerView(item, answer.model, answer.sample_index, text, error, truncated))
    return views, len(answers) - len(views)
