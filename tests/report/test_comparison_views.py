"""How the comparison views write p-values: never ``0.0000``."""

from __future__ import annotations

import math

from polistemics.report.comparison_views import p_value_text


def test_p_values_below_the_shown_precision_are_not_zero() -> None:
    assert p_value_text(0.0) == "< 0.0001"
    assert p_value_text(3e-9) == "< 0.0001"
    assert p_value_text(0.00012) == "0.0001"
    assert p_value_text(1 / 3) == "0.3333"
    assert p_value_text(None) == "–" and p_value_text(math.nan) == "–"
