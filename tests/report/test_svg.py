from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from polistemics.report.colours import (
    MISSING_COLOUR,
    diverging_scale,
    interpolate,
    luminance,
    score_scale,
    spread_scale,
)
from polistemics.report.svg import ColumnGroup, Heatmap, HeatmapError, Strip, render_heatmap

NS = {"svg": "http://www.w3.org/2000/svg"}


def cells(svg: str) -> list[ET.Element]:
    """The coloured cell rectangles (not the background, bars or flag outlines)."""
    root = ET.fromstring(svg)
    return [
        r
        for r in root.iter("{http://www.w3.org/2000/svg}rect")
        if r.get("height") == "26" and r.get("class") != "flagged"
    ]


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


def test_interpolate_midpoint_and_text_contrast() -> None:
    assert interpolate(("#000000", "#ffffff"), 0.5) == "#808080"
    assert luminance("#ffffff") == pytest.approx(1.0) and luminance("#000000") == 0.0
    scale = score_scale()
    assert scale.text_colour(1.0) == "#ffffff"  # dark blue cell
    assert scale.text_colour(0.6) == "#000000"  # pale yellow cell


def test_heatmap_has_one_cell_per_value_and_escapes_labels() -> None:
    heatmap = Heatmap(
        figure_id="t-1",
        title='Title with <script>alert("x")</script> & more',
        rows=["A & B", "<b>bold</b>"],
        columns=["F1", "F2", "I1"],
        values=[[0.95, None, 0.7], [0.61, 0.99, 1.0]],
        scale=score_scale(),
        bordered=frozenset({(1, 2)}),
        column_groups=[ColumnGroup("Faithfulness", 0, 2), ColumnGroup("Impartiality", 2, 3)],
        column_titles=["F1 Position Representation", "F2 Information Fabrication", "I1 End"],
    )
    svg = render_heatmap(heatmap)
    root = ET.fromstring(svg)  # well-formed XML despite the markup in labels
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any("A & B" in t for t in texts) and any("<b>bold</b>" in t for t in texts)
    drawn = cells(svg)
    assert len(drawn) == 6
    assert [r.get("fill") for r in drawn].count(MISSING_COLOUR) == 1
    assert (
        len(
            [
                r
                for r in root.iter("{http://www.w3.org/2000/svg}rect")
                if r.get("class") == "flagged"
            ]
        )
        == 1
    )
    assert "95.0" in texts and "Faithfulness" in texts and "Impartiality" in texts


def test_strip_and_custom_annotations() -> None:
    heatmap = Heatmap(
        figure_id="t-2",
        title="Strip",
        rows=["m1", "m2"],
        columns=["Baseline"],
        values=[[0.9], [0.8]],
        annotations=[["a"], ["b"]],
        scale=score_scale(),
        strip=Strip("SD", [0.05, None], spread_scale()),
    )
    svg = render_heatmap(heatmap)
    assert len(cells(svg)) == 4
    texts = [
        "".join(t.itertext()) for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")
    ]
    assert "a" in texts and "b" in texts and "5.0" in texts and "SD" in texts
    assert svg.count("<linearGradient") == 2  # the strip has its own colour bar


@pytest.mark.parametrize(
    "change",
    [
        {"values": [[0.9, 0.8]]},  # one value row for two rows
        {"values": [[0.9], [0.8, 0.7]]},  # ragged
        {"annotations": [["x"]]},
        {"column_groups": [ColumnGroup("X", 0, 2)]},
        {"strip": Strip("SD", [0.1], score_scale())},
    ],
)
def test_heatmap_rejects_mismatched_shapes(change: dict) -> None:
    fields = {
        "figure_id": "bad",
        "title": "Bad",
        "rows": ["m1", "m2"],
        "columns": ["c1"],
        "values": [[0.9], [0.8]],
        "scale": score_scale(),
    } | change
    with pytest.raises(HeatmapError, match="bad"):
        render_heatmap(Heatmap(**fields))
