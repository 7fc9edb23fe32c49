"""Figure files for papers (``report/figures/export.py``): fonts embedded as Type 42, never
Type 3 (some publishers reject Type 3), in the files written here and by the forked workers;
the page's inline copy sized to the column."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib
import pytest

from polistemics.report.colours import score_scale
from polistemics.report.figures import Heatmap, ReportFigure
from polistemics.report.figures.export import (
    FONT_RC,
    MAX_PAGE_SCALE,
    MIN_PARALLEL_FIGURES,
    PAD_INCHES,
    inline_svg,
    save_figures,
    svg_document,
    tight_box,
    write_figure,
)

# A PDF font dictionary's subtype: /Type3, /TrueType, /Type0 (with a /CIDFontType2 descendant
# for Type 42 with many glyphs), /Type1.
_SUBTYPE = re.compile(rb"/Subtype\s*/(Type3|TrueType|Type0|CIDFontType2|CIDFontType0|Type1)\b")


def font_subtypes(pdf: bytes) -> set[str]:
    """The font subtypes a PDF declares (matplotlib writes font dictionaries uncompressed)."""
    return {m.group(1).decode() for m in _SUBTYPE.finditer(pdf)}


def figure(index: int = 0) -> ReportFigure:
    heatmap = Heatmap(
        figure_id=f"f{index}",
        title="Überschrift — Ĳ title with ümlauts",
        rows=["Model One", "Modèle deux"],
        columns=["Faithfulness", "Impartiality"],
        values=[[0.9, 0.7], [None, 0.65]],
        scale=score_scale(),
        footnote="Scores in %; colour scale 60-100%.",
    )
    return ReportFigure(heatmap.figure_id, "Fig. 2", f"fig{index}", heatmap, "A note.")


def test_the_reader_sees_type3_in_matplotlibs_default() -> None:
    """The check can fail: matplotlib's own default (Type 3) is found by ``font_subtypes``."""
    buffer = io.BytesIO()
    with matplotlib.rc_context({"pdf.fonttype": 3}):
        figure().figure.savefig(buffer, format="pdf")
    assert "Type3" in font_subtypes(buffer.getvalue())


def test_pdf_fonts_are_type42_even_when_the_caller_asks_for_type3(tmp_path: Path) -> None:
    with matplotlib.rc_context({"pdf.fonttype": 3}):
        path = write_figure(figure().figure, tmp_path / "f.pdf", "pdf", "f0")
    found = font_subtypes(path.read_bytes())
    assert "Type3" not in found
    assert found & {"TrueType", "CIDFontType2"}, found


def test_postscript_fonts_are_type42() -> None:
    """PS is not a report format, but users save ``fig.savefig("x.ps")`` under ``FONT_RC``."""
    buffer = io.BytesIO()
    with matplotlib.rc_context({"ps.fonttype": 3, **FONT_RC}):
        figure().figure.savefig(buffer, format="ps")
    text = buffer.getvalue()
    assert b"/FontType 42" in text and b"/FontType 3" not in text


def test_forked_workers_embed_type42(tmp_path: Path, monkeypatch) -> None:
    """Enough PDF files for the worker pool: each is checked."""
    import polistemics.report.figures.export as export

    monkeypatch.setattr(export, "_cores", lambda: 2)
    figures = [figure(i) for i in range(MIN_PARALLEL_FIGURES)]
    with matplotlib.rc_context({"pdf.fonttype": 3}):
        paths = save_figures(figures, tmp_path, ["pdf"])
    assert len(paths) == MIN_PARALLEL_FIGURES
    for path in paths:
        found = font_subtypes(path.read_bytes())
        assert "Type3" not in found and found & {"TrueType", "CIDFontType2"}, (path, found)


@pytest.mark.skipif(shutil.which("pdffonts") is None, reason="pdffonts (poppler) not installed")
def test_pdffonts_lists_no_type3(tmp_path: Path) -> None:
    path = write_figure(figure().figure, tmp_path / "f.pdf", "pdf", "f0")
    listing = subprocess.run(
        ["pdffonts", str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert "Type 3" not in listing and "TrueType" in listing


def test_inline_svg_fills_the_column_within_bounds() -> None:
    fig = figure()
    document = svg_document(fig.figure, fig.figure_id)
    natural = float(ET.fromstring(document).get("width").removesuffix("pt"))
    root = ET.fromstring(inline_svg(fig.figure, fig.figure_id, document))
    assert root.get("width") == "100%" and root.get("height") is None
    assert root.get("viewBox")  # keeps the aspect
    style = dict(part.split(":") for part in root.get("style").split(";"))
    assert style["width"] == "100%" and style["height"] == "auto"
    assert float(style["min-width"].removesuffix("pt")) == pytest.approx(natural)
    assert float(style["max-width"].removesuffix("pt")) == pytest.approx(MAX_PAGE_SCALE * natural)


def test_the_standalone_svg_file_keeps_its_size(tmp_path: Path) -> None:
    fig = figure()
    path = fig.save(tmp_path, "svg")
    assert ET.fromstring(path.read_text()).get("width").endswith("pt")


def _own_box(drawn) -> tuple[float, ...]:
    """The extent measured by the figure's own canvas renderer, as before a shared one."""
    return drawn.get_tightbbox(drawn.canvas.get_renderer()).padded(PAD_INCHES).bounds


def test_every_figure_is_measured_as_its_own_renderer_measures_it() -> None:
    """``tight_box`` measures every figure with one renderer per dpi (matplotlib keeps its text
    metrics per renderer): each box is the one the figure's own canvas renderer gives, for
    figures of other sizes, kinds and resolutions measured before it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figures = [figure(index).figure for index in range(3)]
    for dpi in (100, 200):
        plain = Figure(figsize=(5, 2), dpi=dpi)
        FigureCanvasAgg(plain)
        axes = plain.add_subplot()
        axes.bar(["Harbour Party", "Highland Alliance"], [0.4, 0.9], label="score")
        axes.set_xticks([0, 1], ["Harbour Party", "Highland Alliance"], rotation=40)
        axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        axes.set_title("Überschrift")
        figures.append(plain)
    for drawn in figures:
        assert tight_box(drawn).bounds == _own_box(drawn)


def forks_recorded(monkeypatch) -> list[int]:
    """Two cores, and a list that gets one entry per pool of forked workers."""
    import polistemics.report.figures.export as export

    forks: list[int] = []
    real = export._forked_workers

    def recorded(figures, workers):
        forks.append(workers)
        return real(figures, workers)

    monkeypatch.setattr(export, "_cores", lambda: 2)
    monkeypatch.setattr(export, "_forked_workers", recorded)
    return forks


def test_svg_alone_of_small_figures_is_drawn_without_forking(tmp_path: Path, monkeypatch) -> None:
    """What a run writes: a small report's drawing does not repay a fork."""
    forks = forks_recorded(monkeypatch)
    figures = [figure(i) for i in range(MIN_PARALLEL_FIGURES)]
    paths = save_figures(figures, tmp_path, ["svg"])
    assert forks == []
    assert [p.read_text(encoding="utf-8") for p in paths] == [f.svg_document for f in figures]


def test_svg_alone_forks_when_the_drawing_is_long(tmp_path: Path, monkeypatch) -> None:
    """Past the limit, workers render the figures the probe left: the same documents, and the
    probe's own are kept, not rendered again."""
    import polistemics.report.figures.export as export

    forks = forks_recorded(monkeypatch)
    monkeypatch.setattr(export, "FORK_MIN_SVG_SECONDS", 0.0)
    rendered_here: list[str] = []
    real_svg_document = export.svg_document

    def counted(drawn, salt: str) -> str:
        rendered_here.append(salt)
        return real_svg_document(drawn, salt)

    monkeypatch.setattr(export, "svg_document", counted)
    count = export.PROBE_FIGURES + 3
    paths = save_figures([figure(i) for i in range(count)], tmp_path, ["svg"])
    assert forks == [2]
    # The probe's figures here; the rest in the forked workers, whose calls this list misses.
    assert rendered_here == [f"f{i}" for i in range(export.PROBE_FIGURES)]
    monkeypatch.setattr(export, "svg_document", real_svg_document)
    alone = [figure(i).svg_document for i in range(count)]
    assert [p.read_text(encoding="utf-8") for p in paths] == alone
