"""What two sides share, and whether their observations pair up.

- Variants and models: the values both sides have are compared; when each side has exactly one
  value and they differ (a full run against its anonymised ablation, one target model against
  another), those two are compared with each other, the second side's value relabelled to the
  first's. Anything else with nothing in common is refused in one line.
- Environments: only those both sides scored; none shared is refused.
- Pairing: cells pair when both sides have the same variant, model, environment, observation
  id, sample index and sub-question. With any such pair the comparison is *paired* and unpaired
  cells are left out; with none (e.g. two elections) it is *unpaired*.

Everything left out is said in ``Matched.left_out``, every relabelling in ``Matched.notes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from polistemics.compare.errors import CompareError
from polistemics.compare.sides import Side

PAIR_KEYS: tuple[str, ...] = (
    "variant",
    "model",
    "environment",
    "observation_id",
    "sample_index",
    "rubric",
    "sub_question",
)
PAIRED, UNPAIRED = "paired", "unpaired"


@dataclass
class Matched:
    a: Side
    b: Side
    mode: str  # PAIRED or UNPAIRED
    variants: list[str]
    models: list[str]
    environments: list[str]
    cells_a: pd.DataFrame  # A's compared cells
    cells_b: pd.DataFrame  # B's compared cells, relabelled to A's variant / model names
    pairs: pd.DataFrame | None  # paired mode: one row per pair, passed_a and passed_b
    notes: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    def shared(self) -> dict:
        return {
            "variants": self.variants,
            "models": self.models,
            "environments": self.environments,
            "elections_a": self.a.values("election_id"),
            "elections_b": self.b.values("election_id"),
        }


def _shared_values(column: str, what: str, a: Side, b: Side, matched: Matched) -> dict[str, str]:
    """Values of ``column`` to compare and B's relabelling {B value: A value}."""
    in_a, in_b = a.values(column), b.values(column)
    shared = sorted(set(in_a) & set(in_b))
    if shared:
        for side, values in ((a, in_a), (b, in_b)):
            extra = [v for v in values if v not in shared]
            if extra:
                matched.left_out.append(f"{what} only in {side.label}: {', '.join(extra)}")
        return {v: v for v in shared}
    if len(in_a) == 1 and len(in_b) == 1:
        matched.notes.append(f"{what} {in_b[0]} ({b.label}) compared with {in_a[0]} ({a.label})")
        return {in_b[0]: in_a[0]}
    raise CompareError(
        f"nothing to compare: no shared {what} ({a.label}: {', '.join(in_a) or 'none'}; "
        f"{b.label}: {', '.join(in_b) or 'none'})"
    )


def match_sides(a: Side, b: Side) -> Matched:
    matched = Matched(a, b, UNPAIRED, [], [], [], a.cells, b.cells, None)
    variants = _shared_values("variant", "variant", a, b, matched)
    models = _shared_values("model", "model", a, b, matched)
    cells_a = a.cells[
        a.cells["variant"].isin(variants.values()) & a.cells["model"].isin(models.values())
    ]
    cells_b = b.cells[b.cells["variant"].isin(variants) & b.cells["model"].isin(models)]
    cells_b = cells_b.assign(
        variant=cells_b["variant"].map(variants), model=cells_b["model"].map(models)
    )
    env_a, env_b = set(cells_a["environment"]), set(cells_b["environment"])
    environments = sorted(env_a & env_b)
    if not environments:
        raise CompareError(
            f"nothing to compare: no shared environment ({a.label}: {', '.join(sorted(env_a))}; "
            f"{b.label}: {', '.join(sorted(env_b))})"
        )
    for side, found in ((a, env_a), (b, env_b)):
        extra = sorted(found - set(environments))
        if extra:
            matched.left_out.append(f"environments only in {side.label}: {', '.join(extra)}")
    cells_a = cells_a[cells_a["environment"].isin(environments)]
    cells_b = cells_b[cells_b["environment"].isin(environments)]
    for side, cells in ((a, cells_a), (b, cells_b)):
        if cells.duplicated(subset=list(PAIR_KEYS)).any():
            raise CompareError(
                f"{side.source}: more than one scored cell for the same answer and sub-question"
            )
    _note_parties(matched, cells_a, cells_b)
    matched.variants = sorted(variants.values())
    matched.models = sorted(models.values())
    matched.environments = environments
    # Parties and elections ride along from A; B's own party columns are kept for unpaired use.
    pairs = cells_a.merge(
        cells_b.loc[:, [*PAIR_KEYS, "passed"]],
        on=list(PAIR_KEYS),
        how="inner",
        suffixes=("_a", "_b"),
    )
    if len(pairs):
        matched.mode = PAIRED
        matched.pairs = pairs.reset_index(drop=True)
        for side, cells in ((a, cells_a), (b, cells_b)):
            unpaired = len(cells) - len(pairs)
            if unpaired:
                matched.left_out.append(
                    f"{unpaired} of {len(cells)} cells of {side.label} have no counterpart "
                    "(same observation, sample, environment, model and sub-question)"
                )
        keep_a = pairs.loc[:, list(PAIR_KEYS)]
        cells_a = cells_a.merge(keep_a, on=list(PAIR_KEYS))
        cells_b = cells_b.merge(keep_a, on=list(PAIR_KEYS))
    matched.cells_a = cells_a.reset_index(drop=True)
    matched.cells_b = cells_b.reset_index(drop=True)
    return matched


def _note_parties(matched: Matched, cells_a: pd.DataFrame, cells_b: pd.DataFrame) -> None:
    """Per-party deltas need the same party ids on both sides (not so across elections)."""
    in_a = set(cells_a["party_id"].dropna())
    in_b = set(cells_b["party_id"].dropna())
    if not in_a & in_b:
        matched.left_out.append(
            f"per-party deltas: no shared party ({len(in_a)} in {matched.a.label}, "
            f"{len(in_b)} in {matched.b.label})"
        )
        return
    for side, found in ((matched.a, in_a), (matched.b, in_b)):
        extra = sorted(found - (in_a & in_b))
        if extra:
            matched.left_out.append(f"parties only in {side.label}: {', '.join(extra)}")
