"""What a report is built from, whichever kind of folder it came from.

A finished run directory has everything; an authors' release folder has cells, answers and
contexts but no raw judge verdicts, no manifest (costs, times, standardisation counts) and no
run evidence file. Missing parts are ``None`` and the page says they are not available.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import pandas as pd

from polistemics.analyses.pushback import PushbackRecords
from polistemics.records import Evidence
from polistemics.runlog import (
    JudgeRecords,
    JudgeVerdictRecord,
    ProbeAnswer,
    RunManifest,
    StanceCodeRecord,
)
from polistemics.runlog.items import EnvironmentItem
from polistemics.runlog.read import RunFileError, read_answers_at
from polistemics.scoring.verdicts import PanelTally


class ReportInputError(ValueError):
    """A folder the report cannot be built from; the message names the file and the problem."""


@runtime_checkable
class JudgeRecordSource(Protocol):
    """Judge records on disk (``report.verdict_source``): each iteration reads them again, in
    parts; ``read_for_scoring`` reads them into columns without their call keys and raw
    outputs."""

    def __iter__(self) -> Iterator[JudgeVerdictRecord]: ...

    def read_for_scoring(self) -> JudgeRecords: ...


@dataclass(frozen=True, slots=True)
class StoredText:
    """An answer's text left in the run's ``answers.jsonl``: the byte offset of its line. The
    item browser shows 20,000 answers at most: a view of every answer holding its text took
    about 50 MB at 8x the paper's election (issue 32)."""

    path: Path
    offset: int


@dataclass(frozen=True, eq=False, slots=True)
class AnswerView:
    """One target-model answer as the item browser shows it. ``stored_text``, when a ``StoredText``:
    the text is read from the run's answers file when it is asked for (``answer_texts`` reads
    many at once); views compare by what they show."""

    item: EnvironmentItem
    model: str
    sample_index: int
    stored_text: str | None | StoredText
    error: str | None = None  # why there is no usable answer (failed call, empty, ...)
    truncated: bool = False  # cut at the model's max_tokens (finish reason "length")

    @property
    def text(self) -> str | None:
        stored = self.stored_text
        return answer_texts([self])[0] if isinstance(stored, StoredText) else stored

    def _shown(self) -> tuple:
        return (self.item, self.model, self.sample_index, self.text, self.error, self.truncated)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AnswerView):
            return NotImplemented
        return self._shown() == other._shown()

    def __hash__(self) -> int:
        return hash((self.item.key, self.model, self.sample_index))


def answer_texts(views: Sequence[AnswerView]) -> list[str | None]:
    """The views' texts in their order; those left in a file read from it, each file once in
    the order of its lines. ``ReportInputError``: a line is no longer the view's answer (the
    file changed since it was read)."""
    texts: list[str | None] = []
    stored: dict[Path, list[tuple[int, int]]] = {}
    for index, view in enumerate(views):
        text = view.stored_text
        if isinstance(text, StoredText):
            stored.setdefault(text.path, []).append((text.offset, index))
            text = None
        texts.append(text)
    for path, places in stored.items():
        places.sort()
        try:
            read = read_answers_at(path, [offset for offset, _ in places])
            for (_, index), answer in zip(places, read, strict=True):
                view = views[index]
                if (answer.item_key, answer.model, answer.sample_index) != (
                    view.item.key,
                    view.model,
                    view.sample_index,
                ):
                    raise ReportInputError(f"{path} changed while the report was made")
                texts[index] = answer.text
        except (RunFileError, OSError) as exc:
            raise ReportInputError(str(exc)) from None
    return texts


@dataclass(frozen=True)
class SourceGap:
    """A part the source folder lacks, in plain words for the page's reader (the technical detail
    stays in ``notes``)."""

    text: str
    variant: str | None = None  # the variant whose answers it keeps out of the item browser


@dataclass
class ReportInputs:
    kind: Literal["run", "release"]
    source: Path
    title: str
    cells: pd.DataFrame  # scored cells, every variant
    answers: list[AnswerView] = field(default_factory=list)
    # None: not available (a release). A run's are read from their file where they are used,
    # never held whole (``report.verdict_source``).
    judge_records: JudgeRecordSource | Sequence[JudgeVerdictRecord] | None = None
    # the panel's vote counts; None: no raw verdicts, or to be counted from ``judge_records``
    # when the analysis tables are computed (``verdict_source.panel_tally_of``)
    judging: PanelTally | None = None
    manifest: RunManifest | None = None  # run.json
    evidence: list[Evidence] | None = None
    items: list[EnvironmentItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    gaps: list[SourceGap] = field(default_factory=list)  # what a release lacks, in plain words
    stance_codes: list[StanceCodeRecord] | None = None  # None: the run did not code stances
    probes: list[ProbeAnswer] | None = None  # None: the run did not probe priors
    pushback: PushbackRecords | None = None  # None: the run had no pushback turns (issue 30)
    # the run directory when these are exactly one run's outputs (its tables/ folder holds
    # their analysis tables); None: a release folder or several sources combined
    run_dir: Path | None = None
    # the judge panel's size the votes are (or would be) counted with; 0: no raw verdicts
    panel_size: int = 0

    def __post_init__(self) -> None:
        if self.judging is not None and not self.panel_size:
            self.panel_size = self.judging.panel_size
