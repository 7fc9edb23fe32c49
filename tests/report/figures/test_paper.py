"""The paper's heatmaps (``report/figures/paper.py``) as a paper needs them: display names in
titles and rows (never raw ids), one colour range per figure family stated in the footnote, and
one unit per figure (% for levels, pp for differences and thresholds)."""

from __future__ import annotations

import re

import pytest
from matplotlib.text import Text

from polistemics.conditions import Environment, Variant
from polistemics.report.colours import dispersion_scale, spread_scale
from polistemics.report.figures import election_figures
from polistemics.report.figures.heatmap import _tick_text
from polistemics.report.figures.paper import ablation_limit, loo_limit, range_note
from polistemics.report.labels import ModelLabels
from polistemics.report.tables import election_tables
from polistemics.scoring.analyses import LOO_MIN_DEVIATION, SPREAD_THRESHOLD

from ..conftest import cells_frame, rate_cells
from ..test_tables import EC1, F1, I1, study_rows

ELECTION = "bundestagswahl2025"
MODELS = {"m1": "gpt_5_4", "m2": "claude_sonnet_4_6"}
B, V = Environment.BASELINE, Environment.VAGUE
# A fraction written as a threshold or a scale end ("0.15", "0.60-1.00"): the figures use % / pp.
FRACTION = re.compile(r"(?<![\d.])0\.\d\d?\b")


def german_cells():
    ablations = rate_cells(
        [("m1", B, "p1", F1, 4, 5), ("m1", B, "p2", F1, 5, 5)],
        variant=Variant.ANONYMIZED,
        election=ELECTION,
    ) + rate_cells(
        # a larger swing under Vague than under Baseline: the family range must cover both
        [("m1", V, "p1", EC1, 0, 5), ("m1", V, "p2", I1, 5, 5)],
        variant=Variant.ANONYMIZED,
        election=ELECTION,
    )
    cells = cells_frame(study_rows(ELECTION) + ablations)
    return cells.assign(model=cells["model"].map(MODELS), country="DE")


@pytest.fixture(scope="module")
def tables():
    return election_tables(german_cells(), ELECTION, resamples=30)


def texts(figure) -> list[str]:
    return [t.get_text() for t in figure.findobj(Text) if t.get_text()]


def test_titles_and_rows_show_display_names_not_raw_ids(tables) -> None:
    found = election_figures(tables, ModelLabels())
    for fig in found.all():
        drawn = " | ".join(texts(fig.figure))
        assert ELECTION not in drawn and "gpt_5_4" not in drawn, (fig.figure_id, drawn)
        assert "DE: Bundestagswahl 2025" in fig.heatmap.title
    assert list(found.leaderboard.heatmap.rows) == ["Claude Sonnet 4.6", "GPT-5.4"]


def test_label_overrides_models_and_elections(tables) -> None:
    labels = ModelLabels({"gpt_5_4": "GPT-5.4 (low)", ELECTION: "Germany 2025"})
    found = election_figures(tables, labels)
    assert found.leaderboard.heatmap.title == "Overall model performance — Germany 2025"
    assert "GPT-5.4 (low)" in found.robustness.heatmap.rows
    assert all("Germany 2025" in f.heatmap.title for f in found.all())


def test_leave_one_out_and_ablation_families_share_one_stated_range(tables) -> None:
    from polistemics.report.figures.findings import finding_figures
    from polistemics.report.findings import finding_tables

    found = election_figures(tables, ModelLabels())
    findings = finding_figures(
        finding_tables(german_cells(), ELECTION, resamples=30), tables, ModelLabels()
    )
    loo = [found.loo, *findings.loo]
    assert len(loo) >= 2
    limit = loo_limit(tables)
    for fig in loo:
        assert (fig.heatmap.scale.low, fig.heatmap.scale.high) == (-limit, limit), fig.figure_id
        assert range_note(limit, "leave-one-out figure of this election") in fig.heatmap.footnote
    largest = max(
        abs(tables.loo["deviation"]).max(), abs(tables.loo_summary["mean_deviation"]).max()
    )
    assert limit >= min(largest, 0.30) - 1e-9

    assert len(found.ablations) == 2  # Figs. 36 and 38
    limit = ablation_limit(tables)
    assert limit >= min(abs(tables.ablations["delta"]).max(), 0.30) - 1e-9
    for fig in found.ablations:
        assert fig.heatmap.scale.high == limit, fig.figure_id
        assert f"±{100 * limit:.0f} pp" in fig.heatmap.footnote


def test_every_footnote_and_note_uses_percent_or_points(tables) -> None:
    for fig in election_figures(tables, ModelLabels()).all():
        for text in (fig.heatmap.footnote, fig.note):
            assert not FRACTION.search(text), (fig.figure_id, text)
    found = election_figures(tables, ModelLabels())
    assert f">= {100 * LOO_MIN_DEVIATION:.0f} pp" in found.loo.heatmap.footnote
    assert f">= {100 * SPREAD_THRESHOLD:.0f} pp" in found.party_spread.heatmap.footnote


def test_differences_are_ticked_in_points_levels_in_percent() -> None:
    assert [_tick_text(spread_scale(), t) for t in spread_scale().ticks()][-1] == "40 pp"
    assert _tick_text(dispersion_scale(), 0.15) == "15 pp"
