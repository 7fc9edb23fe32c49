"""Per-task comparisons (issue 29): each task beyond the paper's that a run asked, compared
where both sides asked it, through the views its definition gives (``Task.views``), never by
its name, so a further task plugs in by filling those in.

For a task both sides asked:
- its judged cells are compared as the party-position cells are (``judged``): EMI, Adherence
  Index per environment, Rubric Scores, sub-question pass rates and per-party (here: per
  degraded party) pass rates, with percentile bootstrap intervals, exact McNemar tests when the
  answers pair (same item, model, sample and sub-question) and bootstrap z tests when they do
  not, Holm within each table;
- its deterministic checks per answer (set precision, recall, F1, omissions, ...) are compared
  by ``task_metrics`` (bootstrap over answers, paired when the answers pair).

A task one side asked and the other did not is named in the notes, and not compared. A side
that is an authors' release folder asked the paper's task only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from polistemics.compare.deltas import DeltaTables
from polistemics.compare.errors import CompareError
from polistemics.compare.judged import (
    CORRECTION,
    PAIRED_TEST,
    UNPAIRED_TEST,
    CompareOptions,
    judged_deltas,
    tested_tables,
)
from polistemics.compare.matching import PAIRED, Matched
from polistemics.compare.sides import Side
from polistemics.compare.task_metrics import metric_deltas
from polistemics.runlog import RunFileError
from polistemics.tasks import TASKS, Task
from polistemics.tasks.views import METRIC_COLUMNS

METRICS_TABLE = "metrics"


@dataclass
class TaskComparison:
    """One task compared: its judged deltas and its checks' deltas (B minus A)."""

    task: str
    label: str
    matched: Matched | None  # None: the judged cells could not be compared (see notes)
    deltas: DeltaTables | None
    metrics: pd.DataFrame
    metric_meanings: dict[str, str]
    options: CompareOptions
    notes: list[str] = field(default_factory=list)

    @property
    def paired(self) -> bool:
        return self.matched is not None and self.matched.mode == PAIRED

    def tested(self) -> list[tuple[str, pd.DataFrame]]:
        judged = [] if self.deltas is None else tested_tables(self.paired, self.deltas)
        return [*judged, (METRICS_TABLE, self.metrics)]

    def n_significant(self) -> int:
        return sum(int(table["significant"].astype(bool).sum()) for _, table in self.tested())

    def to_json(self, records: Callable[[pd.DataFrame], list[dict]]) -> dict:
        m = self.matched
        return {
            "label": self.label,
            "mode": None if m is None else m.mode,
            "shared": None if m is None else m.shared(),
            "notes": [*([] if m is None else m.notes), *self.notes],
            "left_out": [] if m is None else list(m.left_out),
            "tests": {
                "judged": PAIRED_TEST if self.paired else UNPAIRED_TEST,
                "metrics": UNPAIRED_TEST + " (paired resamples where the answers pair)",
                "correction": CORRECTION,
                "alpha": self.options.alpha,
                "n_significant": self.n_significant(),
            },
            "deltas": {}
            if self.deltas is None
            else {name: records(table) for name, table in self.deltas.items()},
            "metrics": records(self.metrics),
            "metric_meanings": dict(self.metric_meanings),
        }

    def table_names(self, prefix: str) -> dict[str, str]:
        """Table key (a delta grain or ``metrics``) -> its CSV file stem."""
        grains = [] if self.deltas is None else [name for name, _ in self.deltas.items()]
        return {name: f"{prefix}{self.task}_delta_{name}" for name in [*grains, METRICS_TABLE]}

    def csv_tables(self, prefix: str) -> dict[str, pd.DataFrame]:
        tables = dict(self.deltas.items()) if self.deltas is not None else {}
        tables[METRICS_TABLE] = self.metrics
        return {stem: tables[name] for name, stem in self.table_names(prefix).items()}

    def with_tables(self, tables: dict[str, pd.DataFrame], prefix: str) -> TaskComparison:
        """This comparison with its tables as read back from the written files."""
        stems = self.table_names(prefix)
        deltas = (
            None
            if self.deltas is None
            else DeltaTables(**{name: tables[stems[name]] for name, _ in self.deltas.items()})
        )
        return TaskComparison(
            self.task,
            self.label,
            self.matched,
            deltas,
            tables[stems[METRICS_TABLE]],
            self.metric_meanings,
            self.options,
            list(self.notes),
        )


def _read(side: Side, reader: Callable[[Path], pd.DataFrame | None]) -> pd.DataFrame | None:
    """What the task's reader finds in a run side (a release folder has no tasks)."""
    if side.kind != "run":
        return None
    try:
        return reader(side.source)
    except (RunFileError, ValueError, KeyError) as exc:
        raise CompareError(f"{side.source}: cannot read its task files ({exc})") from None


def _relabelled(metrics_a: pd.DataFrame, metrics_b: pd.DataFrame) -> pd.DataFrame:
    """B's metrics with its one model named as A's one model when the sides share none (as
    ``matching`` does for the judged cells)."""
    in_a, in_b = set(metrics_a["model"]), set(metrics_b["model"])
    if in_a & in_b or len(in_a) != 1 or len(in_b) != 1:
        return metrics_b
    return metrics_b.assign(model=next(iter(in_a)))


def compare_task(a: Side, b: Side, task: Task, options: CompareOptions) -> TaskComparison | str:
    """The task compared, or a note saying why it is not."""
    assert task.views is not None
    views = task.views
    cells_a, cells_b = _read(a, views.judged_cells), _read(b, views.judged_cells)
    if cells_a is None and cells_b is None:
        return ""
    if cells_a is None or cells_b is None:
        only = a if cells_a is not None else b
        return f"task {task.name} ({task.label}) was asked only in {only.label}: not compared"
    notes: list[str] = []
    matched, deltas = None, None
    try:
        matched, deltas = judged_deltas(
            Side(a.label, a.source, a.kind, _in_elections(cells_a, a)),
            Side(b.label, b.source, b.kind, _in_elections(cells_b, b)),
            options,
        )
    except CompareError as exc:
        notes.append(f"judged cells not compared: {exc}")
    metrics_a = _read(a, views.answer_metrics)
    metrics_b = _read(b, views.answer_metrics)
    order = list(views.metric_meanings)
    if metrics_a is None or metrics_b is None or metrics_a.empty or metrics_b.empty:
        notes.append("checks not compared: a side has no readable answers")
        empty = pd.DataFrame(columns=list(METRIC_COLUMNS))
        metrics = metric_deltas(empty, empty, order, options, task.name)
    else:
        metrics = metric_deltas(
            metrics_a, _relabelled(metrics_a, metrics_b), order, options, task.name
        )
    return TaskComparison(
        task.name, task.label, matched, deltas, metrics, views.metric_meanings, options, notes
    )


def _in_elections(cells: pd.DataFrame, side: Side) -> pd.DataFrame:
    """The task's cells of the side's elections (a side may be one election of a run)."""
    elections = side.values("election_id")
    kept = cells[cells["election_id"].isin(elections)] if elections else cells
    return kept.reset_index(drop=True)


def compare_tasks(
    a: Side, b: Side, options: CompareOptions
) -> tuple[list[TaskComparison], list[str]]:
    """Every task with views (in the order of ``TASKS``) compared, and the notes."""
    compared, notes = [], []
    for task in TASKS.values():
        if task.views is None:
            continue
        found = compare_task(a, b, task, options)
        if isinstance(found, TaskComparison):
            compared.append(found)
        elif found:
            notes.append(found)
    return compared, notes
