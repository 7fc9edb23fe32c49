"""The comparison tables: counts per pair kind, side and named position, and every rate's
Wilson 95% interval against scipy's; pass rates split by where the degraded side is named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from polistemics.analyses.comparison import pass_rates, relation_table, side_table
from polistemics.tasks.comparison.metrics import AnswerCheck, SideCheck

OUTCOMES = ("faithful", "misrepresented", "omitted", "unread")


def _checks(seed: int = 5, n: int = 80) -> dict[tuple[str, str, str], list[AnswerCheck]]:
    rng = np.random.default_rng(seed)
    found: dict[tuple[str, str, str], list[AnswerCheck]] = {}
    for _ in range(n):
        pair = str(rng.choice(["differing", "agreeing"]))
        degraded_first = bool(rng.random() < 0.5)
        roles = ("degraded", "intact") if degraded_first else ("intact", "degraded")
        check = AnswerCheck(
            pair=pair,
            relation=rng.choice(["differ", "same", "undetermined"]).item(),
            sides=(
                SideCheck(roles[0], "first", str(rng.choice(OUTCOMES))),
                SideCheck(roles[1], "second", str(rng.choice(OUTCOMES))),
            ),
            invented=("Phantom",) if rng.random() < 0.1 else (),
            outside_pair=(),
        )
        found.setdefault(("m", "baseline", pair), []).append(check)
    return found


def _wilson(hits: int, n: int) -> tuple[float, float]:
    ci = scipy_stats.binomtest(hits, n).proportion_ci(method="wilson")
    return ci.low, ci.high


def test_false_claims_and_settled_comparisons_carry_n_and_scipys_wilson_interval() -> None:
    checks = _checks()
    table = relation_table(checks, {("m", "baseline", "agreeing"): 2}).set_index("pair")
    for pair, found in (
        ("differing", checks[("m", "baseline", "differing")]),
        ("agreeing", checks[("m", "baseline", "agreeing")]),
    ):
        row = table.loc[pair]
        wrong = "same" if pair == "differing" else "differ"
        false_claims = sum(c.relation == wrong for c in found)
        committed = sum(c.relation != "undetermined" for c in found)
        assert (row.answers, row.false_claims, row.committed) == (
            len(found),
            false_claims,
            committed,
        )
        assert row.false_claim == ("false_agreement" if pair == "differing" else "false_difference")
        assert (row.false_claim_rate_low, row.false_claim_rate_high) == pytest.approx(
            _wilson(false_claims, len(found))
        )
        assert (row.committed_rate_low, row.committed_rate_high) == pytest.approx(
            _wilson(committed, len(found))
        )
        assert row.answers_inventing == sum(bool(c.invented) for c in found)
    assert table.loc["agreeing", "unread_answers"] == 2
    assert table.loc["differing", "unread_answers"] == 0


def test_sides_by_role_and_named_position_with_scipys_wilson_interval() -> None:
    checks = _checks()
    table = side_table(checks).set_index(["role", "named"])
    sides = [side for found in checks.values() for check in found for side in check.sides]
    assert len(table) == 4
    for (role, named), row in table.iterrows():
        mine = [s for s in sides if (s.role, s.named) == (role, named)]
        assert row.n == len(mine) and [row[o] for o in OUTCOMES] == [
            sum(s.outcome == o for s in mine) for o in OUTCOMES
        ]
        assert (row.faithful_rate_low, row.faithful_rate_high) == pytest.approx(
            _wilson(row.faithful, row.n)
        )


def test_pass_rates_split_by_where_the_degraded_side_is_named() -> None:
    cells = pd.DataFrame(
        {
            "model": "m",
            "environment": "baseline",
            "rubric": "faithfulness",
            "sub_question": "false_difference",
            "degraded_named": ["first", "first", "first", "second"],
            "passed": [True, True, False, False],
        }
    )
    table = pass_rates(cells, ["model", "environment", "degraded_named", "rubric"])
    first, second = table.set_index("degraded_named").loc[["first", "second"]].itertuples()
    assert (first.code, first.title, first.n, first.passes) == ("CF1", "False Difference", 3, 2)
    assert (first.pass_rate_low, first.pass_rate_high) == pytest.approx(_wilson(2, 3))
    assert (second.n, second.passes, second.pass_rate) == (1, 0, 0)
    assert pass_rates(cells.iloc[:0], ["model"]).empty
