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
from dataclasses import dataclass, field

import pandas as pd

from polistemics.conditions import Environment, Variant
from polistemics.rubrics import BY_KEY, Rubric, sub_questions
from polistemics.scoring.cells import (
    ITEM_COLUMNS,
    METADATA_COLUMNS,
    attach_metadata,
    empty_cells,
    scoreable_mask,
)
from polistemics.scoring.errors import VerdictError

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
        return verdicts.loc[:, list(VERDICT_COLUMNS)].reset_index(drop=True)
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
    if panel_size < 1:
        raise VerdictError(f"panel size must be at least 1, got {panel_size}")
    frame = verdict_frame(verdicts)
    _reject_duplicates(frame)
    if frame.empty:
        return PanelVotes(_with_pass_columns(frame), _empty_excluded(), Counter(), panel_size)

    keep, ignored = scoreable_mask(frame["rubric"], frame["sub_question"], frame["environment"])
    frame = frame[keep].reset_index(drop=True)
    frame["item_id"] = frame.groupby(ITEM_RUBRIC, dropna=False, sort=False).ngroup()

    expected = _expected_counts(frame)
    answered = frame["says_yes"].notna()
    per_judge = (
        pd.DataFrame(
            {
                "item_id": frame["item_id"],
                "judge": frame["judge"],
                "answered": answered,
                "expected": expected,
            }
        )
        .groupby(["item_id", "judge"], sort=False)
        .agg(answered=("answered", "sum"), expected=("expected", "first"))
    )
    per_judge["complete"] = per_judge["answered"] == per_judge["expected"]
    per_item = per_judge.groupby(level="item_id").agg(
        judges=("complete", "size"), complete=("complete", "sum")
    )

    too_many = per_item[per_item["judges"] > panel_size]
    if not too_many.empty:
        first = frame.loc[frame["item_id"] == too_many.index[0], ITEM_RUBRIC].iloc[0].to_dict()
        raise VerdictError(
            f"{int(too_many['judges'].iloc[0])} judges gave verdicts but the panel size is {panel_size}",
            record=_describe(first),
            field="judge",
        )

    short_ids = per_item.index[per_item["complete"] < panel_size]
    excluded = (
        frame[frame["item_id"].isin(short_ids)]
        .drop_duplicates("item_id")
        .loc[:, ["item_id", *ITEM_RUBRIC]]
        .merge(
            per_item["complete"].rename("n_complete_judges"), left_on="item_id", right_index=True
        )
        .drop(columns="item_id")
        .reset_index(drop=True)
    )
    votes = frame[~frame["item_id"].isin(short_ids)].reset_index(drop=True)
    return PanelVotes(_with_pass_columns(votes), excluded, ignored, panel_size)


def _expected_counts(frame: pd.DataFrame) -> pd.Series:
    counts = {(r.value, e.value): len(sub_questions(r, e)) for r in Rubric for e in Environment}
    return pd.Series(
        [
            counts[(rub, env)]
            for rub, env in zip(frame["rubric"], frame["environment"], strict=True)
        ],
        index=frame.index,
        dtype="int64",
    )


def _with_pass_columns(votes: pd.DataFrame) -> pd.DataFrame:
    votes = votes.copy()
    if "item_id" not in votes.columns:
        votes["item_id"] = pd.Series(dtype="int64")
    outcome = {
        (sq.key, env.value, says): sq.passes(says, env)
        for sq in BY_KEY.values()
        for env in Environment
        for says in (True, False)
    }
    votes["passes"] = pd.Series(
        [
            outcome[(key, env, bool(says))]
            for key, env, says in zip(
                votes["sub_question"], votes["environment"], votes["says_yes"], strict=True
            )
        ],
        index=votes.index,
        dtype="bool",
    )
    return votes


def _empty_excluded() -> pd.DataFrame:
    return pd.DataFrame(columns=[*ITEM_RUBRIC, "n_complete_judges"])


def _reject_duplicates(frame: pd.DataFrame) -> None:
    key = [*ITEM_RUBRIC, "judge", "sub_question"]
    duplicated = frame.duplicated(subset=key, keep=False)
    if duplicated.any():
        first = frame.loc[duplicated.idxmax(), key].to_dict()
        raise VerdictError(
            "more than one verdict from the same judge on the same sub-question "
            "(pass only the final verdict after retries; repeat calls go to flip_rate)",
            record=_describe(first),
            field="judge",
        )


def _describe(row: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in row.items() if v is not None)


@dataclass
class MajorityResult:
    """Scored cells plus what was left out and why."""

    cells: pd.DataFrame  # CELL_COLUMNS
    excluded: pd.DataFrame  # items x rubric without a complete panel
    ties: pd.DataFrame  # cells without a strict majority (even panels only)
    ignored: Counter[str]  # sub-question keys never scored
    panel_size: int

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
    panel = panel_votes(verdicts, panel_size)
    votes = panel.votes
    if votes.empty:
        return MajorityResult(
            empty_cells(), panel.excluded, empty_cells(), panel.ignored, panel_size
        )

    grouped = votes.groupby(["item_id", "sub_question"], sort=False)
    tallies = (
        grouped.first()
        .loc[:, ITEM_RUBRIC]
        .join(grouped["passes"].agg(n_pass="sum", n_votes="size"))
        .reset_index()
    )
    passed = tallies["n_pass"] * 2 > panel_size
    failed = (tallies["n_votes"] - tallies["n_pass"]) * 2 > panel_size
    tallies["passed"] = passed
    for column in METADATA_COLUMNS:
        tallies[column] = None

    columns = [*ITEM_RUBRIC, "sub_question", "passed", *METADATA_COLUMNS]
    decided = tallies[passed | failed].loc[:, columns].reset_index(drop=True)
    ties = tallies[~(passed | failed)].loc[:, columns].reset_index(drop=True)
    decided["sample_index"] = decided["sample_index"].astype("int64")
    decided["passed"] = decided["passed"].astype("bool")
    return MajorityResult(
        attach_metadata(decided, metadata), panel.excluded, ties, panel.ignored, panel_size
    )
