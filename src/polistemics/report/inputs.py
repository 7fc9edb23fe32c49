"""What a report is built from, whichever kind of folder it came from.

A finished run directory has everything; an authors' release folder has cells, answers and
contexts but no raw judge verdicts, no manifest (costs, times, standardisation counts) and no
run evidence file. Missing parts are ``None`` and the page says they are not available.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pandas as pd

from polistemics.analyses.pushback import PushbackRecords
from polistemics.records import Evidence
from polistemics.runlog import JudgeVerdictRecord, ProbeAnswer, RunManifest, StanceCodeRecord
from polistemics.runlog.items import EnvironmentItem
from polistemics.scoring.verdicts import PanelTally


class ReportInputError(ValueError):
    """A folder the report cannot be built from; the message names the file and the problem."""


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
    judge_records: list[JudgeVerdictRecord] | None = None  # None: not available (release)
    judging: PanelTally | None = None  # the panel's vote counts; None: no raw judge verdicts
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
