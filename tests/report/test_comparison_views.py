"""The comparison views: p-values never written ``0.0000``, and a summary that claims no more
than its tables hold."""

from __future__ import annotations

import math

from polistemics.compare import CompareOptions, compare_pair, load_side
from polistemics.conditions import Environment
from polistemics.report.comparison_views import (
    comparison_summary,
    p_value_text,
    small_sample_warnings,
)
from polistemics.rubrics import active_rubrics, sub_questions
from polistemics.runlog import RunDir

from .conftest import cells_frame, rate_cells


def test_p_values_below_the_shown_precision_are_not_zero() -> None:
    assert p_value_text(0.0) == "< 0.0001"
    assert p_value_text(3e-9) == "< 0.0001"
    assert p_value_text(0.00012) == "0.0001"
    assert p_value_text(1 / 3) == "0.3333"
    assert p_value_text(None) == "–" and p_value_text(math.nan) == "–"


def test_summary_of_two_tiny_constant_elections_claims_no_significance(tmp_path) -> None:
    """Three observations passing everything in one election, failing in the other: the
    intervals exclude 0, but no p-value is claimed, nothing is significant, and every
    interval is flagged as resting on too few observations."""
    spec = [
        ("m1", Environment.BASELINE, "p1", sq.key)
        for rubric in active_rubrics(Environment.BASELINE)
        for sq in sub_questions(rubric, Environment.BASELINE)
    ]
    sides = []
    for election, passes in (("de_x", 3), ("nl_x", 0)):
        cells = cells_frame(rate_cells([(*s[:4], passes, 3) for s in spec], election=election))
        cells["election_id"] = election
        RunDir(tmp_path / election).write_cells(cells)
        sides.append(load_side(str(tmp_path / election)))
    c = compare_pair(*sides, CompareOptions(resamples=50))
    table = c.deltas.sub_questions
    assert table["excludes_zero"].all() and table["p_value"].isna().all()
    assert not table["significant"].any() and table["small_sample"].all()
    sentences = comparison_summary(c)
    sub = next(s for s in sentences if s.startswith("Sub-question pass rate (model"))
    assert f"0 are significant after Holm's correction across the table's {len(table)} rows" in sub
    assert f"{len(table)} have no p-value" in sub
    assert len(small_sample_warnings(c)) == len(c.deltas.items())
    assert sentences[-1].startswith("Small samples: 6 tables hold intervals")
