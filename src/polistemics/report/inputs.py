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


@dataclass(frozen=True)
class AnswerView:
    """One target-model answer as the item browser shows it."""

    item: EnvironmentItem
    model: str
    sample_index: int
    text: str | None
    error: str | None = None  # why there is no usable answer (failed call, empty, ...)
    truncated: bool = False  # cut at the model's max_tokens (finish reason "length")


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
