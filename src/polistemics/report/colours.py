"""Colour scales of the paper's heatmaps: sequential for scores, sequential for party spread,
diverging blue/red for deviations and deltas. Values outside a scale take its end colour.

Each scale is a matplotlib colormap (``cmap``, missing values grey) and a clipping norm
(``norm``); ``colour`` gives the hex colour matplotlib draws for a value."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
from matplotlib.colors import Colormap, LinearSegmentedColormap, Normalize, to_hex

MISSING_COLOUR = "#d9d9d9"  # grey: not scored in this environment (e.g. F and I in Absent)

_SCORES = ("#ffffd9", "#c7e9b4", "#7fcdbb", "#41b6c4", "#1d91c0", "#225ea8", "#0c2c84")
_SPREAD = ("#fff7ec", "#fdd49e", "#fdbb84", "#fc8d59", "#e34a33", "#b30000")
_DISPERSION = ("#f7f7f7", "#cccccc", "#969696", "#636363", "#252525")
_DIVERGING = ("#2166ac", "#67a9cf", "#d1e5f0", "#f7f7f7", "#fddbc7", "#ef8a62", "#b2182b")


@dataclass(frozen=True)
class ColourScale:
    low: float
    high: float
    stops: tuple[str, ...]
    kind: Literal["sequential", "diverging"] = "sequential"
    caption: str = ""  # shown beside the colour bar
    percent: bool = True  # tick labels in % (pp for diverging scales and ``unit="pp"``)
    unit: Literal["%", "pp"] = "%"  # of a sequential scale: levels (%) or differences (pp)
    tick_count: int = 5

    @cached_property
    def cmap(self) -> Colormap:
        # An odd number of entries puts a diverging scale's middle stop exactly at 0.
        cmap = LinearSegmentedColormap.from_list(f"polistemics-{self.caption}", self.stops, N=257)
        return cmap.with_extremes(bad=MISSING_COLOUR)

    @cached_property
    def norm(self) -> Normalize:
        return Normalize(self.low, self.high, clip=True)  # beyond the range: the end colour

    def position(self, value: float) -> float:
        """Where ``value`` lies on the scale, clipped to [0, 1]."""
        span = self.high - self.low
        return min(1.0, max(0.0, (value - self.low) / span)) if span else 0.5

    @cached_property
    def _hex_colours(self) -> tuple[str, ...]:
        """The colormap's entries as hex, in its order."""
        return tuple(to_hex(rgba) for rgba in self.cmap(np.arange(self.cmap.N)))

    def colour(self, value: float | None) -> str:
        """``to_hex(self.cmap(self.position(value)))``: the entry matplotlib's colormap picks
        for a position in [0, 1] (``int(position * N)``, the top end in the last entry), looked
        up instead of called, which cost a heatmap about a tenth of its building time."""
        if value is None or math.isnan(value):
            return MISSING_COLOUR
        entries = self._hex_colours
        return entries[min(int(self.position(value) * len(entries)), len(entries) - 1)]

    def text_colour(self, value: float | None) -> str:
        """Black or white, whichever reads better on the cell colour."""
        return "#000000" if luminance(self.colour(value)) > 0.4 else "#ffffff"

    def ticks(self) -> list[float]:
        step = (self.high - self.low) / (self.tick_count - 1)
        return [self.low + i * step for i in range(self.tick_count)]


def score_scale(low: float = 0.60, high: float = 1.00) -> ColourScale:
    """Figs. 2, 3, 16, 19-27: scores in %, 0.60-1.00."""
    return ColourScale(low, high, _SCORES, caption="score")


def spread_scale(high: float = 0.40) -> ColourScale:
    """Fig. 4: party spread (a difference of Adherence Indices), 0-40 pp."""
    return ColourScale(0.0, high, _SPREAD, caption="party spread", unit="pp")


def dispersion_scale(high: float = 0.15) -> ColourScale:
    """Fig. 3's right strip: SD of the Adherence Index across environments."""
    return ColourScale(0.0, high, _DISPERSION, caption="SD", tick_count=4, unit="pp")


def diverging_scale(limit: float = 0.20, caption: str = "deviation") -> ColourScale:
    """Figs. 13, 36-38: blue below zero, red above, symmetric around 0."""
    return ColourScale(-limit, limit, _DIVERGING, kind="diverging", caption=caption)


def luminance(hex_colour: str) -> float:
    """Relative luminance (WCAG) of a ``#rrggbb`` colour."""

    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in _rgb(hex_colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    value = hex_colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
