"""Figures of the mechanism analyses (issue 16): per party, a rate with its Wilson 95% interval,
one marker series per model.

- fallback accuracy under Absent (union rule);
- first-chunk rate under Contradictory (original order; the swapped order as hollow markers);
- closed-book prior accuracy.
Drawn as ``PlotFigure`` (matplotlib, the report's SVG/PDF/PNG export). Party and model names
come from the data: they pass through ``display_label`` and are never parsed as mathtext.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from polistemics.report.figures.findings import PlotFigure, percent_axis
from polistemics.report.figures.paper import _party_order
from polistemics.report.figures.text import display_label, display_text
from polistemics.report.labels import ModelLabels
from polistemics.scoring.mechanisms import MechanismTables

MODEL_COLOURS = ("#1b4f72", "#b9770e", "#7d3c98", "#1e8449", "#922b21", "#5d6d7e")


@dataclass(frozen=True)
class _Series:
    table: pd.DataFrame  # model, party_id, party_name, rate, ci_low, ci_high
    label_suffix: str = ""
    hollow: bool = False


def _rates_figure(
    figure_id: str,
    title: str,
    ylabel: str,
    series: list[_Series],
    labels: ModelLabels,
    reference: float | None = None,
) -> Figure | None:
    frames = [s.table for s in series if not s.table.empty]
    if not frames:
        return None
    parties = _party_order(pd.concat(frames, ignore_index=True))
    position = {pid: i for i, (pid, _) in enumerate(parties)}
    models = sorted({m for frame in frames for m in frame["model"]})
    fig = Figure(figsize=(max(4.5, 0.75 * len(parties) + 1.8), 3.4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    slots = len(models) * len(series)
    half = min(0.3, 0.08 * (slots - 1))  # markers of one party stay near its tick
    offsets = np.linspace(-half, half, slots) if slots > 1 else [0.0]
    slot = 0
    for m_index, model in enumerate(models):
        colour = MODEL_COLOURS[m_index % len(MODEL_COLOURS)]
        for s in series:
            rows = s.table[s.table["model"] == model]
            offset = offsets[slot]
            slot += 1
            if rows.empty:
                continue
            xs = [position[pid] + offset for pid in rows["party_id"]]
            rates = rows["rate"].to_numpy(dtype=float)
            # Wilson bounds at a rate of exactly 0 or 1 can overshoot it by a rounding error.
            low = np.clip(rates - rows["ci_low"].to_numpy(dtype=float), 0.0, None)
            high = np.clip(rows["ci_high"].to_numpy(dtype=float) - rates, 0.0, None)
            ax.errorbar(
                xs,
                rates,
                yerr=np.vstack([low, high]),
                fmt="o",
                color=colour,
                markerfacecolor="white" if s.hollow else colour,
                capsize=2.5,
                markersize=4,
                linewidth=1,
                label=display_label(labels.display(model) + s.label_suffix),
            )
    if reference is not None:
        ax.axhline(reference, color="#888888", linewidth=0.8, linestyle="--")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(-0.5, len(parties) - 0.5)
    ax.set_xticks(range(len(parties)))
    ax.set_xticklabels(
        [display_label(str(name), 24) for _, name in parties], rotation=35, ha="right", fontsize=8
    )
    ax.set_ylabel(f"{ylabel} (%)", fontsize=8)
    percent_axis(ax)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="y", linewidth=0.4, alpha=0.5)
    ax.legend(fontsize=7, frameon=False, loc="best")
    ax.set_title(display_text(title), fontsize=10, loc="left")
    for text in [*ax.get_xticklabels(), ax.title, *ax.get_legend().get_texts()]:
        text.set_parse_math(False)
    fig.tight_layout()
    return fig


def _plot(figure_id: str, stem: str, figure: Figure | None, note: str) -> PlotFigure | None:
    if figure is None:
        return None
    return PlotFigure(figure_id, "Issue 16", stem, figure, note)


def fallback_figure(tables: MechanismTables, labels: ModelLabels) -> PlotFigure | None:
    full = tables.fallback.by_party
    union = full[(full["rule"] == "union") & (full["variant"] == "full")]
    figure = _rates_figure(
        "mechanisms-fallback",
        "Fallback accuracy under Absent (full variant)",
        "matches the VAA stance",
        [_Series(union)],
        labels,
    )
    return _plot(
        "mechanisms-fallback",
        "mechanisms_fallback_accuracy",
        figure,
        "Share of Absent answers that fall back on internal knowledge (EC4 fails or the coder "
        "says so) whose coded stance matches the party's VAA stance; bars: Wilson 95% CI.",
    )


def first_chunk_figure(tables: MechanismTables, labels: ModelLabels) -> PlotFigure | None:
    by_party = tables.first_chunk.by_party
    full = by_party[by_party["variant"] == "full"]
    original = full[full["chunk_order"] == "original"]
    swapped = full[full["chunk_order"] == "swapped"]
    series = [_Series(original)]
    if not swapped.empty:
        series.append(_Series(swapped, " (swapped)", hollow=True))
    figure = _rates_figure(
        "mechanisms-first-chunk",
        "First-chunk preference under Contradictory (full variant)",
        "follows the first chunk",
        series,
        labels,
        reference=0.5,
    )
    return _plot(
        "mechanisms-first-chunk",
        "mechanisms_first_chunk",
        figure,
        "Share of committed Contradictory answers that follow the first chunk; filled: the "
        "party's own evidence first, hollow: the opposing party's first; dashed: 50%; bars: "
        "Wilson 95% CI.",
    )


def prior_figure(tables: MechanismTables, labels: ModelLabels) -> PlotFigure | None:
    figure = _rates_figure(
        "mechanisms-prior",
        "Closed-book prior accuracy",
        "states the VAA stance",
        [_Series(tables.prior.by_party)],
        labels,
    )
    return _plot(
        "mechanisms-prior",
        "mechanisms_prior_accuracy",
        figure,
        "Share of closed-book probe answers whose coded stance is the party's VAA stance "
        "(abstentions count as not accurate); bars: Wilson 95% CI.",
    )


def mechanism_figures(tables: MechanismTables, labels: ModelLabels) -> list[PlotFigure]:
    found = [
        fallback_figure(tables, labels),
        first_chunk_figure(tables, labels),
        prior_figure(tables, labels),
    ]
    return [f for f in found if f is not None]
