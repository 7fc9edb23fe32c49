from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from matplotlib.colors import to_hex

from polistemics.report.colours import (
    MISSING_COLOUR,
    dispersion_scale,
    diverging_scale,
    luminance,
    score_scale,
    spread_scale,
)

SCALES = [score_scale(), spread_scale(), dispersion_scale(), diverging_scale(0.2)]


def test_scale_ends_clip_and_missing_is_grey() -> None:
    scale = score_scale()
    assert scale.colour(0.60) == scale.stops[0] and scale.colour(1.0) == scale.stops[-1]
    assert scale.colour(0.10) == scale.stops[0]  # below the scale: end colour
    assert scale.colour(None) == MISSING_COLOUR and scale.colour(float("nan")) == MISSING_COLOUR
    assert [round(t, 2) for t in scale.ticks()] == [0.6, 0.7, 0.8, 0.9, 1.0]
    assert spread_scale().high == pytest.approx(0.40)
    diverging = diverging_scale(0.2)
    assert diverging.colour(0.0) == "#f7f7f7"  # white middle
    assert diverging.colour(-0.2).startswith("#21") and diverging.colour(0.2).startswith("#b2")


def test_matplotlib_colormap_and_norm_match_the_scale() -> None:
    scale = spread_scale()
    for value in (0.0, 0.1, 0.25, 0.4, 0.9):
        assert to_hex(scale.cmap(scale.norm(value))) == scale.colour(value)
    assert scale.norm(0.9) == 1.0 and scale.norm(-1.0) == 0.0  # clipped
    assert to_hex(scale.cmap.get_bad()) == MISSING_COLOUR


@settings(max_examples=400, deadline=None)
@given(
    scale=st.sampled_from(SCALES),
    value=st.floats(min_value=-2.0, max_value=2.0, allow_nan=False),
)
@example(scale=SCALES[0], value=1.0)
@example(scale=SCALES[0], value=0.6)
@example(scale=SCALES[3], value=0.0)
@example(scale=SCALES[3], value=0.2 - 1e-12)
@example(scale=SCALES[1], value=0.4 * 255 / 257)
def test_the_looked_up_colour_is_the_one_matplotlibs_colormap_gives(scale, value: float) -> None:
    assert scale.colour(value) == to_hex(scale.cmap(scale.position(value)))
    assert scale.colour(value) == to_hex(scale.cmap(scale.norm(value)))


def test_text_contrast() -> None:
    assert luminance("#ffffff") == pytest.approx(1.0) and luminance("#000000") == 0.0
    scale = score_scale()
    assert scale.text_colour(1.0) == "#ffffff"  # dark blue cell
    assert scale.text_colour(0.6) == "#000000"  # pale yellow cell
