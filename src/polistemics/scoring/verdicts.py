"""Judge verdicts and the panel's strict-majority vote (paper Sec. 5.1, App. G).

A judge answers each active sub-question of a rubric with Yes/No; ``SubQuestion.passes`` turns
that into pass/fail for the environment (Table 10), and the panel's strict majority
(> half of the panel, i.e. >= 2 of 3) is the final verdict of a cell. An answer x rubric for
which fewer judges than the panel size returned a complete, parseable verdict (after the
retry) is excluded and counted, never scored. With an even panel a tie has no strict
majority: that cell is excluded and counted too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from polistemics.conditions import ENVIRONMENT_ORDER, Environment, Variant
from polistemics.rubrics import BY_KEY, Rubric, sub_questions
from polistemics.scoring.cells import (
    ITEM_COLUMNS,
    METADATA_COLUMNS,
    attach_metadata,
    compact_cells,
    compact_rows,
    compact_take,
    compact_values,
    empty_cells,
    first_rows,
    group_ids,
    metadata_keys,
    plain,
    scoreable_mask,
)
from polistemics.scoring.errors import VerdictError
from polistemics.scoring.panel_agreement import PanelAgreement, panel_agreement

VERDICT_COLUMNS: tuple[str, ...] = (*ITEM_COLUMNS, "rubric", "judge", "sub_question", "says_yes")
ITEM_RUBRIC: list[str] = [*ITEM_COLUMNS, "rubric"]
DEFAULT_PANEL_SIZE = 3


@dataclass(frozen=True, slots=True)
class ItemKey:
    """One target-model answer: an observation in an environment and variant, one sample."""

    model: str
    environment: Environment
    variant: Variant
    observation_id: str
    party_id: str
    sample_index: int = 0
    election_id: str | None = None
    language: str | None = None  # the answer's (output) language


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """One judge's raw answer to one sub-question about one item (None = unparseable)."""

    item: ItemKey
    rubric: Rubric
    judge: str
    sub_question: str  # release key, e.g. "position_representation"
    says_yes: bool | None


def verdict_frame(verdicts: Iterable[JudgeVerdict] | pd.DataFrame) -> pd.DataFrame:
    """Verdicts as a table with ``VERDICT_COLUMNS`` (enum columns as their string values)."""
    if isinstance(verdicts, pd.DataFrame):
        missing = [c for c in VERDICT_COLUMNS if c not in verdicts.columns]
        if missing:
            raise VerdictError(f"verdict table lacks columns {missing}")
        frame = verdicts.loc[:, list(VERDICT_COLUMNS)]  # a copy: the caller may change it
        index = frame.index
        numbered = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
        return frame if numbered else frame.reset_index(drop=True)
    items: dict[ItemKey, tuple] = {}  # many verdicts share one item: convert it once
    rubrics = {r: r.value for r in Rubric}
    rows = []
    for v in verdicts:
        fields = items.get(v.item)
        if fields is None:
            fields = items[v.item] = _item_fields(v.item)
        rows.append((*fields, rubrics[v.rubric], v.judge, v.sub_question, v.says_yes))
    frame = pd.DataFrame(rows, columns=list(VERDICT_COLUMNS))
    frame["sample_index"] = frame["sample_index"].astype("int64")
    frame["says_yes"] = frame["says_yes"].astype("object")
    return frame


def _item_fields(item: ItemKey) -> tuple:
    return (
        item.model,
        Environment(item.environment).value,
        Variant(item.variant).value,
        item.observation_id,
        item.sample_index,
        item.party_id,
        item.election_id,
        item.language,
    )


@dataclass
class PanelVotes:
    """Each panel judge's pass/fail on the items that have a complete panel."""

    votes: pd.DataFrame  # VERDICT_COLUMNS + "passes" (bool) + "item_id" (item x rubric)
    excluded: pd.DataFrame  # ITEM_RUBRIC + n_complete_judges: items x rubric left out
    ignored: Counter[str] = field(default_factory=Counter)  # sub-question keys not scored
    panel_size: int = DEFAULT_PANEL_SIZE


def panel_votes(
    verdicts: Iterable[JudgeVerdict] | pd.DataFrame, panel_size: int = DEFAULT_PANEL_SIZE
) -> PanelVotes:
    """Map each verdict to pass/fail and keep the items x rubric with a complete panel.

    A judge is complete for an item x rubric when it gave a parseable Yes/No to every
    sub-question active for that rubric in that environment.
    """
    return _votes_of(verdict_frame(verdicts), panel_size)


def _votes_of(frame: pd.DataFrame, panel_size: int) -> PanelVotes:
    """``panel_votes`` of a verdict table of the caller's own (it may become the votes table)."""
    if panel_size < 1:
        raise VerdictError(f"panel size must be at least 1, got {panel_size}")
    if frame.empty:
        votes = frame.assign(item_id=pd.Series(dtype="int64"), passes=pd.Series(dtype="bool"))
        return PanelVotes(votes, _empty_excluded(), Counter(), panel_size)
    item_id, _ = group_ids([frame[c] for c in ITEM_RUBRIC])
    judge, _ = group_ids([frame["judge"]])
    _reject_duplicates(frame, item_id, judge)

    keep, ignored = scoreable_mask(frame["rubric"], frame["sub_question"], frame["environment"])
    if ignored:
        kept = keep.to_numpy()
        frame = frame[kept].reset_index(drop=True)
        # Renumbered over the kept rows: the numbers grouping the kept rows afresh gives.
        item_id, judge = group_ids([item_id[kept]])[0], judge[kept]
    first = first_rows(item_id)

    judges, n_complete = _judge_completeness(frame, item_id, judge, first)
    _reject_large_panels(frame, first, judges, panel_size)
    short = n_complete < panel_size
    excluded = frame.loc[first[short], ITEM_RUBRIC].reset_index(drop=True)
    excluded["n_complete_judges"] = n_complete[short]

    in_full_panel = ~short[item_id]
    votes = frame if in_full_panel.all() else frame[in_full_panel].reset_index(drop=True)
    votes["item_id"] = item_id[in_full_panel]
    votes["passes"] = _passes(votes)
    return PanelVotes(votes, excluded, ignored, panel_size)


def _judge_completeness(
    frame: pd.DataFrame, item_id: np.ndarray, judge: np.ndarray, first: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per item: how many judges gave verdicts, and how many of them answered every active
    sub-question."""
    pair, n_pairs = group_ids([item_id, judge])
    item_of_pair = item_id[first_rows(pair)]
    answered = np.bincount(pair, weights=frame["says_yes"].notna().to_numpy(), minlength=n_pairs)
    expected = _expected_counts(frame.loc[first, "rubric"], frame.loc[first, "environment"])
    complete = answered == expected[item_of_pair]
    n_items = len(first)
    judges = np.bincount(item_of_pair, minlength=n_items)
    return judges, np.bincount(item_of_pair, weights=complete, minlength=n_items).astype("int64")


def _reject_large_panels(
    frame: pd.DataFrame, first: np.ndarray, judges: np.ndarray, panel_size: int
) -> None:
    too_many = np.flatnonzero(judges > panel_size)
    if len(too_many):
        row = frame.loc[first[too_many[0]], ITEM_RUBRIC].to_dict()
        raise VerdictError(
            f"{int(judges[too_many[0]])} judges gave verdicts but the panel size is {panel_size}",
            record=_describe(row),
            field="judge",
        )


def _expected_counts(rubric: pd.Series, environment: pd.Series) -> np.ndarray:
    counts = {
        (r.value, e.value): len(sub_questions(r, e)) for r in Rubric for e in ENVIRONMENT_ORDER
    }
    return np.fromiter(
        (counts[pair] for pair in zip(rubric, environment, strict=True)),
        dtype="int64",
        count=len(rubric),
    )


def _passes(votes: pd.DataFrame) -> np.ndarray:
    """Each (parseable) verdict mapped to pass/fail by its sub-question's rule (Table 10)."""
    says_yes = votes["says_yes"].to_numpy(dtype=bool)
    combo, _ = group_ids([votes["sub_question"], votes["environment"]])
    rows = first_rows(combo)
    yes_passes = np.array(
        [
            BY_KEY[key].yes_passes(Environment(env))
            for key, env in zip(
                votes["sub_question"].to_numpy()[rows],
                votes["environment"].to_numpy()[rows],
                strict=True,
            )
        ],
        dtype=bool,
    )
    return says_yes == yes_passes[combo]


def _empty_excluded() -> pd.DataFrame:
    return pd.DataFrame(columns=[*ITEM_RUBRIC, "n_complete_judges"])


def _reject_duplicates(frame: pd.DataFrame, item_id: np.ndarray, judge: np.ndarray) -> None:
    key, n_keys = group_ids([item_id, judge, frame["sub_question"]])
    if n_keys == len(frame):
        return
    repeated = np.bincount(key, minlength=n_keys)[key] > 1
    first = frame.loc[int(np.argmax(repeated)), [*ITEM_RUBRIC, "judge", "sub_question"]]
    raise VerdictError(
        "more than one verdict from the same judge on the same sub-question "
        "(pass only the final verdict after retries; repeat calls go to flip_rate)",
        record=_describe(first.to_dict()),
        field="judge",
    )


def _describe(row: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in row.items() if v is not None)


VOTE_COUNT_COLUMNS: tuple[str, ...] = (*ITEM_RUBRIC, "sub_question", "n_pass", "n_votes")


def vote_counts(votes: pd.DataFrame) -> pd.DataFrame:
    """One row per item x rubric x sub-question of the panel votes, in order of appearance:
    ``VOTE_COUNT_COLUMNS`` (passing and total votes). The input of the majority and of judge
    agreement."""
    if votes.empty:
        integers = ("sample_index", "n_pass", "n_votes")
        return pd.DataFrame(
            {c: pd.Series(dtype="int64" if c in integers else "object") for c in VOTE_COUNT_COLUMNS}
        )
    cell, n_cells = group_ids([votes["item_id"], votes["sub_question"]])
    counts = votes.loc[first_rows(cell), [*ITEM_RUBRIC, "sub_question"]].reset_index(drop=True)
    passes = votes["passes"].to_numpy()
    counts["n_pass"] = np.bincount(cell, weights=passes, minlength=n_cells).astype("int64")
    counts["n_votes"] = np.bincount(cell, minlength=n_cells)
    return counts


@dataclass
class PanelTally:
    """Vote counts of the items x rubric with a complete panel, and what was left out."""

    counts: pd.DataFrame  # VOTE_COUNT_COLUMNS, one row per item x rubric x sub-question
    excluded: pd.DataFrame  # ITEM_RUBRIC + n_complete_judges: items x rubric left out
    ignored: Counter[str]  # sub-question keys never scored
    panel_size: int
    n_verdicts: int  # verdicts tallied (one per judge x sub-question), scored or not
    # Each judge's vote totals (``verdict_engine.TOTAL_COLUMNS``), when the tally counted them
    # in the same pass over the records (``verdict_engine.streamed_tally``); None: not counted.
    judge_totals: pd.DataFrame | None = None
    # The panel's agreement from ``counts``, when it was made where they were counted (the
    # scoring's own process, ``run.scoring_process``, which then sends no counts back:
    # ``without_counts``); None: made from ``counts`` when asked for.
    agreement: PanelAgreement | None = None

    def without_counts(self) -> PanelTally:
        """This tally with its agreement made (``panel_agreement``) and no vote counts (an
        empty frame of their columns): all that is read of them after the majority."""
        agreement = self.agreement if self.agreement is not None else panel_agreement(self.counts)
        return replace(self, counts=self.counts.iloc[:0].copy(), agreement=agreement)


def tally_panel(
    verdicts: Iterable[JudgeVerdict] | pd.DataFrame, panel_size: int = DEFAULT_PANEL_SIZE
) -> PanelTally:
    frame = verdict_frame(verdicts)
    n_verdicts = len(frame)
    panel = _votes_of(frame, panel_size)
    return PanelTally(
        vote_counts(panel.votes), panel.excluded, panel.ignored, panel_size, n_verdicts
    )


@dataclass
class MajorityResult:
    """Scored cells plus what was left out and why."""

    cells: pd.DataFrame  # CELL_COLUMNS
    ties: pd.DataFrame  # cells without a strict majority (even panels only)
    tally: PanelTally  # the votes behind the cells (also the input of judge agreement)

    @property
    def excluded(self) -> pd.DataFrame:
        """Items x rubric without a complete panel."""
        return self.tally.excluded

    @property
    def ignored(self) -> Counter[str]:
        return self.tally.ignored

    @property
    def panel_size(self) -> int:
        return self.tally.panel_size

    @property
    def n_excluded(self) -> int:
        return len(self.excluded)

    @property
    def n_ties(self) -> int:
        return len(self.ties)


def majority(
    verdicts: Iterable[JudgeVerdict] | pd.DataFrame,
    panel_size: int = DEFAULT_PANEL_SIZE,
    metadata: pd.DataFrame | None = None,
) -> MajorityResult:
    """Combine a panel's verdicts into one pass/fail per item x sub-question.

    ``metadata`` (optional) fills party_name / country / vague_mode, see ``attach_metadata``.
    """
    return majority_of(tally_panel(verdicts, panel_size), metadata)


def majority_of(tally: PanelTally, metadata: pd.DataFrame | None = None) -> MajorityResult:
    """``majority`` from the panel's vote counts (``tally_panel``, or the engine's
    ``verdict_table.panel_tally``).

    The cells come compact (``cells.compact_cells``: each text column a categorical of its
    sorted values), built column by column from the counts' rows, so no frame of every cell
    with a pointer per text value is made (a million cells at 8x the paper's scale, issue 32);
    ``cells.plain`` gives the text columns back. The ties (few) are plain."""
    panel_size = tally.panel_size
    counts = tally.counts
    if counts.empty:
        return MajorityResult(empty_cells(), empty_cells(), tally)
    n_pass, n_votes = counts["n_pass"].to_numpy(), counts["n_votes"].to_numpy()
    passed = n_pass * 2 > panel_size
    decided = passed | ((n_votes - n_pass) * 2 > panel_size)
    rows = np.flatnonzero(decided)
    if len(rows) == len(counts):  # no tie: the cells share the counts' key columns, not a copy
        columns = {name: _shared(counts[name]) for name in [*ITEM_RUBRIC, "sub_question"]}
    else:
        columns = {
            name: compact_rows(counts[name], rows) for name in [*ITEM_RUBRIC, "sub_question"]
        }
    columns["sample_index"] = columns["sample_index"].astype("int64", copy=False)
    columns["passed"] = passed[rows]
    cells = pd.DataFrame(columns, copy=False)
    del columns
    filled = _metadata_columns(cells, metadata)
    if filled is None:  # metadata for a column the cells have values of: row by row
        empty = dict.fromkeys(METADATA_COLUMNS, None)
        cells = compact_cells(attach_metadata(plain(cells).assign(**empty), metadata))
    else:
        for name, values in filled.items():
            cells[name] = values
    undecided = np.flatnonzero(~decided)
    ties = plain(counts.iloc[undecided].loc[:, [*ITEM_RUBRIC, "sub_question"]])
    ties = ties.assign(passed=passed[undecided]).reset_index(drop=True)
    for column in METADATA_COLUMNS:
        ties[column] = None
    return MajorityResult(cells, ties, tally)


def _shared(column: pd.Series) -> pd.Categorical | np.ndarray:
    """Every row of ``column`` as ``compact_rows`` gives them: the column's own categorical
    (when its rows hold every category) or array, not a copy (a million cells at 8x the
    paper's scale, issue 32)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        held = np.zeros(len(column.cat.categories) + 1, dtype=bool)
        held[column.cat.codes.to_numpy() + 1] = True  # [0]: a missing value
        if held[1:].all():
            return column.array
    elif not pd.api.types.is_object_dtype(column.dtype):
        return column.to_numpy()
    return compact_rows(column, np.arange(len(column)))


def _metadata_columns(cells: pd.DataFrame, metadata: pd.DataFrame | None) -> dict | None:
    """``METADATA_COLUMNS`` of the (compact) cells as ``attach_metadata`` fills them (none: no
    value), compact: looked up once per distinct key of ``metadata`` in the cells, not merged
    row by row. None when ``metadata`` fills a column the cells already have values of."""
    empty = compact_values(np.full(len(cells), None, dtype=object))
    columns = dict.fromkeys(METADATA_COLUMNS, empty)
    if metadata is None or metadata.empty or cells.empty:
        return columns
    keys = metadata_keys(metadata)
    fill = [c for c in metadata.columns if c not in keys and c in (*cells.columns, *columns)]
    if any(c not in METADATA_COLUMNS for c in fill):
        return None
    group, _ = group_ids([cells[k] for k in keys])
    distinct = plain(cells.iloc[first_rows(group)].loc[:, keys]).reset_index(drop=True)
    found = distinct.merge(metadata[keys + fill], on=keys, how="left")
    for name in fill:
        given = found[name]
        if pd.api.types.is_object_dtype(given.dtype):
            columns[name] = compact_take(given.to_numpy(), group)
        else:
            columns[name] = given.array.take(group)
    return columns
