"""The heatmap's colour bar, drawn from plain artists, looks as matplotlib's own colour bar did."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.figure import Figure

from polistemics.report.colours import (
    ColourScale,
    dispersion_scale,
    diverging_scale,
    score_scale,
    spread_scale,
)
from polistemics.report.figures.heatmap import (
    BAR_H,
    BAR_W,
    NOTE_SIZE,
    Heatmap,
    _colour_bar,
    _tick_text,
    draw_heatmap,
)

WIDTH, HEIGHT = 4.0, 1.0  # inches
BOX = [0.1, 0.5, BAR_W / WIDTH, BAR_H / HEIGHT]  # figure fractions, as draw_heatmap passes


def _pixels(draw) -> np.ndarray:
    figure = Figure(figsize=(WIDTH, HEIGHT), dpi=150)
    FigureCanvasAgg(figure)
    figure.patch.set_facecolor("white")
    draw(figure)
    figure.canvas.draw()
    return np.asarray(figure.canvas.buffer_rgba())[..., :3].astype(int)


def _matplotlib_colour_bar(figure: Figure, scale: ColourScale) -> None:
    """The colour bar as the heatmap drew it with ``fig.colorbar`` (before 2026-12-03)."""
    cax = figure.add_axes(BOX)
    bar = figure.colorbar(
        ScalarMappable(norm=scale.norm, cmap=scale.cmap), cax=cax, orientation="horizontal"
    )
    ticks = scale.ticks()
    bar.set_ticks(ticks, labels=[_tick_text(scale, t) for t in ticks])
    cax.tick_params(labelsize=NOTE_SIZE, length=2, pad=1.5)
    bar.outline.set_linewidth(0.4)
    if scale.caption:
        cax.text(
            1.04,
            0.5,
            scale.caption,
            transform=cax.transAxes,
            ha="left",
            va="center",
            fontsize=NOTE_SIZE,
            color="#444444",
            parse_math=False,
        )


@pytest.mark.parametrize(
    "scale",
    [score_scale(), spread_scale(), dispersion_scale(), diverging_scale(0.3, "delta")],
    ids=["score", "spread", "dispersion", "diverging"],
)
def test_the_colour_bar_draws_what_matplotlibs_colour_bar_drew(scale: ColourScale) -> None:
    ours = _pixels(lambda figure: _colour_bar(figure, scale, BOX))
    theirs = _pixels(lambda figure: _matplotlib_colour_bar(figure, scale))
    assert ours.shape == theirs.shape
    difference = np.abs(ours - theirs).max(axis=2)
    # The gradient is resampled from the scale's colours instead of a rasterised mesh: a pixel
    # may differ by one level of 255, no more (ticks, labels, outline and caption included).
    assert difference.max() <= 1, np.argwhere(difference > 1)[:5]


def test_the_colour_bar_runs_from_the_low_colour_to_the_high_one() -> None:
    scale = diverging_scale(0.2, "deviation")
    pixels = _pixels(lambda figure: _colour_bar(figure, scale, BOX))
    height, width, _ = pixels.shape
    row = round(height * (1 - (BOX[1] + BOX[3] / 2)))
    left = round(width * BOX[0]) + 3
    right = round(width * (BOX[0] + BOX[2])) - 4

    def rgb(hex_colour: str) -> np.ndarray:
        return np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)])

    assert np.abs(pixels[row, left] - rgb(scale.colour(scale.low))).max() <= 12
    assert np.abs(pixels[row, right] - rgb(scale.colour(scale.high))).max() <= 12
    assert np.abs(pixels[row, (left + right) // 2] - rgb(scale.colour(0.0))).max() <= 12


def test_a_heatmap_builds_no_axes_for_its_colour_bars() -> None:
    heatmap = Heatmap(
        figure_id="f",
        title="t",
        rows=["a", "b"],
        columns=["x", "y"],
        values=[[0.7, 0.8], [0.9, None]],
        scale=score_scale(),
    )
    figure = draw_heatmap(heatmap)
    assert len(figure.axes) == 1
    labels = {text.get_text() for text in figure.texts}
    assert {"60%", "70%", "80%", "90%", "100%", "score"} <= labels
