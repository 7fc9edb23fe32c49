from __future__ import annotations

import dataclasses
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure as MplFigure
from matplotlib.text import Text
from PIL import Image
from typer.testing import CliRunner

from polistemics.analyses.elections import elections_in
from polistemics.cli import app
from polistemics.conditions import Variant
from polistemics.paths import UnsafePathError
from polistemics.report.build import build_any
from polistemics.report.colours import diverging_scale, score_scale
from polistemics.report.content import ReportOptions
from polistemics.report.figures import (
    FIGURE_FORMATS,
    Figure,
    FigureDataError,
    FigureFormatError,
    Heatmap,
    ReportFigure,
    ablation_delta,
    baseline_parties,
    diverging_limit,
    draw_heatmap,
    election_figures,
    environment_detail,
    leaderboard,
    parse_figure_formats,
    party_loo,
    party_spread,
    robustness,
)
from polistemics.report.figures.export import (
    KEYS_FILE,
    MAX_KEYS_BYTES,
    MIN_PARALLEL_FIGURES,
    inline_svg,
    save_figures,
    svg_document,
    write_figure,
)
from polistemics.report.figures.heatmap import _tick_text, cell_text
from polistemics.report.figures.text import BIDI_CONTROLS, MAX_LABEL_CHARS, display_label
from polistemics.report.formatting import signed_points
from polistemics.report.labels import RUBRIC_ORDER, ModelLabels
from polistemics.report.release_inputs import load_release_inputs
from polistemics.report.run_inputs import load_run_inputs
from polistemics.report.tables import election_tables

from .conftest import cells_frame, rate_cells
from .synthetic_run import build_synthetic_run
from .test_tables import F1, B, study_rows

SVG = "http://www.w3.org/2000/svg"
runner = CliRunner()


def _figures():
    anon = rate_cells([("m1", B, "p1", F1, 3, 5)], variant=Variant.ANONYMIZED)
    tables = election_tables(cells_frame(study_rows() + anon), "e", resamples=50)
    return tables, election_figures(tables, ModelLabels({"m1": "Model One"}))


@pytest.fixture
def figures():
    """The figures, drawn for this test (it may save them, which caches their drawing)."""
    return _figures()


@pytest.fixture(scope="module")
def shared_figures():
    """The same figures drawn once for the tests that only read them (none saves them)."""
    return _figures()


def test_every_figure_renders_to_svg_with_a_note(shared_figures) -> None:
    _, found = shared_figures
    ids = [f.figure_id for f in found.all()]
    assert len(ids) == len(set(ids))
    assert {"e-fig02", "e-fig03", "e-fig04", "e-fig16", "e-fig13", "e-fig36"} <= set(ids)
    for fig in found.all():
        ET.fromstring(fig.svg)
        assert fig.note.endswith(".") and fig.file_name.endswith(".svg")


def test_leaderboard_figure_rows_by_emi_with_labels(shared_figures) -> None:
    tables, found = shared_figures
    heatmap = found.leaderboard.heatmap
    assert list(heatmap.rows) == ["M2", "Model One"]  # m2 by its display name
    assert heatmap.columns[-1] == "EMI"
    assert heatmap.values[1][-1] == pytest.approx(tables.leaderboard["emi"].iloc[1])


def test_spread_figure_borders_rubric_level_flags(shared_figures) -> None:
    tables, found = shared_figures
    heatmap = found.party_spread.heatmap
    row = tables.models.index("m1")
    assert heatmap.bordered == frozenset(
        {
            (row, tables.environments.index("baseline")),
            (row, tables.environments.index("ie_availability_absent")),
        }
    )
    assert heatmap.scale.high == pytest.approx(0.40)


def test_absent_figure_greys_faithfulness_and_impartiality(shared_figures) -> None:
    _, found = shared_figures
    absent = next(f for f in found.environments if "absent" in f.figure_id).heatmap
    assert list(absent.columns[:3]) == ["F", "I", "EC"]
    assert all(row[0] is None and row[1] is None and row[2] is not None for row in absent.values)
    assert "F1" not in absent.columns and "EC1" in absent.columns


def test_loo_figure_counts_flags_in_the_colour_direction(shared_figures) -> None:
    tables, found = shared_figures
    heatmap = found.loo.heatmap
    column = list(heatmap.columns).index("EC1")
    p2 = list(heatmap.rows).index("P2")
    assert heatmap.values[p2][column] < 0
    # p2 falls 100 pp (m1 Baseline) and 80 pp (m1 Absent) below p1: flagged with 5 items each,
    # as in the paper; the optional minimum-items gate of 20 clears them
    assert heatmap.annotations[p2][column] == "2"
    gated = election_tables(cells_frame(study_rows()), "e", resamples=20, loo_min_items=20)
    gated_heatmap = election_figures(gated, ModelLabels()).loo.heatmap
    assert gated_heatmap.annotations[p2][column] == ""


def test_diverging_limit_rounds_up_to_five_points() -> None:
    assert diverging_limit([[0.012, None], [-0.031]]) == 0.05
    assert diverging_limit([[0.051]]) == 0.10
    assert diverging_limit([[-0.2]]) == 0.20
    assert diverging_limit([[0.9]]) == 0.30
    assert diverging_limit([[None]]) == 0.05


def test_loo_figure_shows_flagged_context_counts() -> None:
    rows = rate_cells([("m1", B, "p1", F1, 20, 20), ("m1", B, "p2", F1, 10, 20)])
    rows += rate_cells([("m2", B, "p1", F1, 20, 20), ("m2", B, "p2", F1, 20, 20)])
    tables = election_tables(cells_frame(rows), "e", resamples=20)
    heatmap = election_figures(tables, ModelLabels()).loo.heatmap
    p2, column = list(heatmap.rows).index("P2"), list(heatmap.columns).index("F1")
    # deviations of p2: -0.5 (m1, flagged) and 0 (m2); mean -0.25, one flagged context below
    assert heatmap.values[p2][column] == pytest.approx(-0.25)
    assert heatmap.annotations[p2][column] == "1"
    p1 = list(heatmap.rows).index("P1")
    assert heatmap.annotations[p1][column] == "1"  # +0.5 for m1, in the red direction


# --- matplotlib figures --------------------------------------------------------------------

PUBLIC_FIGURES = [leaderboard, robustness, party_spread, baseline_parties, party_loo]


def _texts(figure: MplFigure) -> list[str]:
    return [t.get_text() for t in figure.findobj(Text)]


def _cell_count(figure: MplFigure) -> int:
    return sum(len(c.get_paths()) for c in figure.axes[0].collections)


def _cell_texts(figure: MplFigure) -> dict[str, str]:
    return {t.get_gid(): t.get_text() for t in figure.findobj(Text) if t.get_gid()}


def test_public_figure_functions_on_the_small_release(fixtures_dir: Path) -> None:
    inputs = load_release_inputs(fixtures_dir / "scoring" / "release_small")
    tables = election_tables(inputs.cells, elections_in(inputs.cells)[0], resamples=20)
    for function in PUBLIC_FIGURES:
        figure = function(tables)
        assert isinstance(figure, MplFigure) and isinstance(figure.canvas, FigureCanvasAgg)
        assert _cell_count(figure) > 0, function.__name__
        if function is not party_loo:  # LOO cells show only counts of flagged contexts
            assert len(_cell_texts(figure)) >= _cell_count(figure) // 2, function.__name__
    for env in tables.environments:
        assert "Rubric Score" in _texts(environment_detail(tables, env))
    model = tables.leaderboard["model"].iloc[0]
    texts = _texts(leaderboard(tables, ModelLabels({model: "Shown Name"})))
    assert "Shown Name" in texts and model not in texts


def test_figures_of_a_synthetic_run(release_dir: Path, tmp_path: Path) -> None:
    run_dir = build_synthetic_run(release_dir, tmp_path / "run", extra_models=0)
    inputs = load_run_inputs(run_dir)
    tables = election_tables(inputs.cells, elections_in(inputs.cells)[0], resamples=20)
    found = election_figures(tables, ModelLabels())
    assert len(found.environments) == len(tables.environments) >= 6
    assert {f.paper_ref for f in found.ablations} == {"Fig. 36", "Fig. 37", "Fig. 38"}
    for function in PUBLIC_FIGURES:
        assert _cell_count(function(tables)) > 0, function.__name__
    assert _cell_texts(ablation_delta(tables, "en", "baseline"))


def test_missing_figure_data_is_an_error(shared_figures) -> None:
    tables, _ = shared_figures
    with pytest.raises(FigureDataError):
        ablation_delta(tables, "en", "baseline")  # the fixture has only the anonymised variant
    with pytest.raises(FigureDataError):
        ablation_delta(tables, "anon", "ie_consistency_contradiction")  # no paper figure


def test_report_figure_keeps_the_attributes_the_page_uses(shared_figures) -> None:
    _, found = shared_figures
    fig = found.leaderboard
    assert Figure is ReportFigure
    assert fig.file_name == fig.stem + ".svg" and fig.paper_ref == "Fig. 2"
    assert fig.svg.startswith("<svg") and "<?xml" not in fig.svg and "DOCTYPE" not in fig.svg
    root = ET.fromstring(fig.svg)
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert ids and all(i.startswith(fig.figure_id + "-") for i in ids)
    text = "".join("".join(t.itertext()) for t in root.iter(f"{{{SVG}}}text"))
    assert "EMI" in text and "Model One" in text  # text as text, not glyph paths


def test_figures_written_by_forked_workers_match_one_by_one_saves(figures, tmp_path: Path) -> None:
    _, found = figures
    formats = ("svg", "pdf", "png")
    (tmp_path / "together").mkdir()
    (tmp_path / "alone").mkdir()
    together = save_figures(found.all(), tmp_path / "together", formats)
    assert len(together) == len(found.all()) * len(formats)
    assert len(found.all()) >= MIN_PARALLEL_FIGURES  # enough to fork workers
    for path in together:
        fig = next(f for f in found.all() if f.stem == path.stem)
        alone = fig.save(tmp_path / "alone", path.suffix[1:])
        assert path.read_bytes() == alone.read_bytes(), path.name


def test_inlined_figures_share_no_ids(shared_figures) -> None:
    _, found = shared_figures
    seen: list[str] = []
    for fig in found.all():
        seen += [e.get("id") for e in ET.fromstring(fig.svg).iter() if e.get("id")]
    assert len(seen) == len(set(seen))


def _heatmap(rows: list[str], columns: list[str] | None = None) -> Heatmap:
    columns = columns or ["F1", "F2"]
    return Heatmap(
        figure_id="t-1",
        title=rows[0],
        rows=rows,
        columns=columns,
        values=[[0.5 + 0.1 * i, 0.9] for i in range(len(rows))],
        scale=score_scale(),
        footnote=rows[-1],
    )


def test_hostile_labels_are_plain_text() -> None:
    mathtext = "Party $\\frac{1}{0}$ $x^2$"
    figure = draw_heatmap(_heatmap([mathtext, "<b>bold</b> & co"]))
    assert mathtext in _texts(figure)
    assert all(not t.get_parse_math() for t in figure.findobj(Text) if "$" in t.get_text())
    svg = inline_svg(figure, "t-1")
    root = ET.fromstring(svg)
    drawn = ["".join(t.itertext()) for t in root.iter(f"{{{SVG}}}text")]
    assert mathtext in drawn and "<b>bold</b> & co" in drawn and "<b>" not in svg


def test_bidi_controls_cannot_reorder_numbers() -> None:
    label = "\u202eABC\u2066 12\u200f\u061c\u202a"
    assert display_label(label) == "ABC 12"
    figure = draw_heatmap(_heatmap([label, "plain"]))
    svg = inline_svg(figure, "t-1")
    for char in BIDI_CONTROLS:
        assert char not in svg
    assert "ABC 12" in svg


def test_control_characters_keep_the_svg_valid(tmp_path: Path) -> None:
    label = "Null\x00Party\x07\x1b[31m\ud800\n"
    figure = draw_heatmap(_heatmap([label, "Bell\x0bParty"], ["E\x00C1", "F1"]))
    ET.fromstring(inline_svg(figure, "t-1"))
    path = write_figure(figure, tmp_path / "f.svg", "svg", "t-1")
    ET.parse(path)
    assert "NullParty[31m" in _texts(figure) and "EC1" in _texts(figure)


def test_a_giant_name_does_not_make_a_giant_figure() -> None:
    small = draw_heatmap(_heatmap(["A" * MAX_LABEL_CHARS, "b"]))
    giant = draw_heatmap(_heatmap(["A" * 10_000, "b" * 10_000]))
    assert "A" * (MAX_LABEL_CHARS - 1) + "…" in _texts(giant)
    assert max(len(t.replace("\n", "")) for t in _texts(giant)) <= 600  # footnote limit
    assert giant.get_size_inches()[0] <= small.get_size_inches()[0] + 0.5
    assert giant.get_size_inches()[1] < 10


def _formatted(value: object, kind: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return signed_points(float(value)) if kind == "delta" else cell_text(float(value))


def _svg_cells(path: Path) -> dict[str, str]:
    root = ET.parse(path).getroot()
    return {
        g.get("id"): "".join(g.itertext()).strip()
        for g in root.iter(f"{{{SVG}}}g")
        if (g.get("id") or "").startswith("cell-")
    }


@pytest.fixture(scope="module")
def small_release_report(tmp_path_factory: pytest.TempPathFactory, fixtures_dir: Path) -> Path:
    """The small release's report folder, figures in every format: built once for the tests
    that only read it (its SVG files are those of an SVG-only build, byte for byte)."""
    out = tmp_path_factory.mktemp("small-release") / "report"
    build_any(
        fixtures_dir / "scoring" / "release_small",
        out,
        ReportOptions(bootstrap_resamples=20, figure_formats=FIGURE_FORMATS),
    )
    return out


def test_figure_values_match_the_written_csv_tables(small_release_report: Path) -> None:
    out = small_release_report
    csv = {p.stem: pd.read_csv(p) for p in (out / "tables").glob("*.csv")}
    board = csv["leaderboard"]
    stem = next(p for p in (out / "figures").glob("*_fig02_leaderboard.svg"))
    cells = _svg_cells(stem)
    columns = ["faithfulness", "impartiality", "epistemic_calibration", "emi"]
    assert columns[:3] == [r.value for r in RUBRIC_ORDER]
    for i, row in enumerate(board.itertuples(index=False)):
        for j, column in enumerate(columns):
            assert cells.get(f"cell-{i}-{j}", "") == _formatted(getattr(row, column), "rate")

    robustness_cells = _svg_cells(next((out / "figures").glob("*_fig03_robustness.svg")))
    adherence = csv["adherence_by_environment"]
    models = list(adherence["model"].drop_duplicates())
    envs = list(adherence["environment"].drop_duplicates())
    checked = 0
    for row in adherence.itertuples(index=False):
        key = f"cell-{models.index(row.model)}-{envs.index(row.environment)}"
        assert robustness_cells[key] == _formatted(row.adherence, "rate")
        checked += 1
    dispersion = csv["dispersion"].set_index("model")["dispersion"]
    for i, model in enumerate(models):
        assert robustness_cells.get(f"cell-{i}-strip", "") == _formatted(dispersion[model], "rate")
    assert checked == len(models) * len(envs) > 0


def test_report_writes_pdf_and_png_at_300_dpi(small_release_report: Path) -> None:
    out = small_release_report
    svgs = sorted((out / "figures").glob("*.svg"))
    assert svgs
    for svg in svgs:
        pdf, png = svg.with_suffix(".pdf"), svg.with_suffix(".png")
        assert pdf.read_bytes()[:5] == b"%PDF-"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        with Image.open(png) as image:
            assert [round(d) for d in image.info["dpi"]] == [300, 300]
        assert ET.parse(svg).getroot().tag == f"{{{SVG}}}svg"
        assert "<dc:date>" not in svg.read_text(encoding="utf-8")


def test_figure_files_are_reproducible(figures, tmp_path: Path) -> None:
    _, found = figures
    fig = found.party_spread
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = [fig.save(tmp_path / "a", fmt).read_bytes() for fmt in ("svg", "pdf")]
    second = [fig.save(tmp_path / "b", fmt).read_bytes() for fmt in ("svg", "pdf")]
    assert first == second and b"CreationDate" not in second[1]


def test_svg_only_format_writes_only_svg(fixtures_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = runner.invoke(
        app,
        [
            "report",
            str(fixtures_dir / "scoring" / "release_small"),
            "--out",
            str(out),
            "--resamples",
            "20",
            "--figure-format",
            "svg",
        ],
    )
    assert result.exit_code == 0, result.output
    suffixes = {p.suffix for p in (out / "figures").iterdir()}
    assert suffixes == {".svg"}
    assert "figures are also saved as SVG in" in (out / "report.html").read_text(encoding="utf-8")


def test_unknown_figure_format_is_a_user_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["report", str(tmp_path), "--figure-format", "svg,gif"])
    assert result.exit_code == 2 and "gif" in result.output
    assert parse_figure_formats(" PNG, svg,png ") == ("png", "svg")
    with pytest.raises(FigureFormatError):
        parse_figure_formats(",")


def test_run_command_checks_the_figure_format_first() -> None:
    result = runner.invoke(app, ["run", "--figure-format", "pdf,tiff", "--dry-run"])
    assert result.exit_code == 2 and "tiff" in result.output


def test_colour_bar_ticks_are_symmetric() -> None:
    scale = diverging_scale(0.05)
    assert [_tick_text(scale, t) for t in scale.ticks()] == [
        "-5 pp",
        "-2.5 pp",
        "0 pp",
        "+2.5 pp",
        "+5 pp",
    ]
    assert _tick_text(score_scale(), 0.7) == "70%"


@pytest.mark.parametrize("stem", ["../escaped", "/tmp/escaped", "sub/../../escaped"])
def test_a_figure_file_never_leaves_its_folder(figures, tmp_path: Path, stem: str) -> None:
    _, found = figures
    hostile = dataclasses.replace(found.leaderboard, stem=stem)
    folder = tmp_path / "report" / "figures"
    folder.mkdir(parents=True)
    with pytest.raises(UnsafePathError):
        hostile.save(folder, "svg")
    assert not any(p.name.startswith("escaped") for p in tmp_path.rglob("*"))


def _file_states(paths: list[Path]) -> dict[str, tuple[int, bytes]]:
    """Per file: when it was last written (SVG files are always written: 0), and its bytes."""
    return {
        p.name: (0 if p.suffix == ".svg" else p.stat().st_mtime_ns, p.read_bytes()) for p in paths
    }


def test_a_rerun_keeps_the_pdf_and_png_files_of_unchanged_figures(figures, tmp_path: Path) -> None:
    _, found = figures
    formats = ("svg", "pdf", "png")
    folder = tmp_path / "figures"
    folder.mkdir()
    first = _file_states(save_figures(found.all(), folder, formats))
    assert (folder / KEYS_FILE).is_file()
    again = _file_states(save_figures(found.all(), folder, formats))
    assert again == first  # same bytes, and the PDF and PNG files were not written again
    (tmp_path / "fresh").mkdir()  # byte for byte what a first drawing writes
    fresh = save_figures(found.all(), tmp_path / "fresh", formats)
    assert {p.name: p.read_bytes() for p in fresh} == {k: v[1] for k, v in first.items()}


def test_a_changed_missing_or_edited_figure_file_is_drawn_again(figures, tmp_path: Path) -> None:
    _, found = figures
    figs = [found.leaderboard, found.party_spread]  # too few files to fork: drawn here
    folder = tmp_path / "figures"
    folder.mkdir()
    first = _file_states(save_figures(figs, folder, ("pdf", "png")))
    edited, removed = folder / f"{figs[0].stem}.png", folder / f"{figs[1].stem}.pdf"
    edited.write_bytes(b"not the drawing")
    removed.unlink()
    after = _file_states(save_figures(figs, folder, ("pdf", "png")))
    assert {k: v[1] for k, v in after.items()} == {k: v[1] for k, v in first.items()}
    kept = {f"{figs[0].stem}.pdf", f"{figs[1].stem}.png"}
    assert all(after[name][0] == first[name][0] for name in kept)
    # Another drawing under the same file name (the data changed): drawn again.
    other = dataclasses.replace(found.robustness, stem=figs[0].stem, figure_id=figs[0].figure_id)
    redrawn = _file_states(save_figures([other, figs[1]], folder, ("pdf", "png")))
    assert redrawn[f"{figs[0].stem}.pdf"][1] != first[f"{figs[0].stem}.pdf"][1]
    assert redrawn[f"{figs[1].stem}.pdf"][0] == after[f"{figs[1].stem}.pdf"][0]


def test_an_svg_only_rerun_removes_the_paper_files_of_changed_figures(
    figures, tmp_path: Path
) -> None:
    # `report` wrote PDF and PNG; the data changed and the run rewrote its SVGs only: a PDF
    # beside an SVG it no longer matches is removed, an unchanged figure's files stay.
    _, found = figures
    figs = [found.leaderboard, found.party_spread]
    folder = tmp_path / "figures"
    folder.mkdir()
    first = _file_states(save_figures(figs, folder, ("svg", "pdf", "png")))
    other = dataclasses.replace(found.robustness, stem=figs[0].stem, figure_id=figs[0].figure_id)
    save_figures([other, figs[1]], folder, ("svg",))
    names = {path.name for path in folder.iterdir()}
    assert f"{figs[0].stem}.pdf" not in names and f"{figs[0].stem}.png" not in names
    for kept in (f"{figs[1].stem}.pdf", f"{figs[1].stem}.png"):
        assert (folder / kept).read_bytes() == first[kept][1]


@pytest.mark.parametrize("hostile", ["not json", "[1, 2]", '{"x.pdf": 1}', "link", "huge"], ids=str)
def test_a_hostile_keys_file_only_makes_every_file_drawn_again(
    figures, tmp_path: Path, hostile: str
) -> None:
    _, found = figures
    figs = [found.leaderboard]
    folder = tmp_path / "figures"
    folder.mkdir()
    first = _file_states(save_figures(figs, folder, ("pdf",)))
    keys = folder / KEYS_FILE
    if hostile == "link":
        outside = tmp_path / "outside.json"
        outside.write_text(keys.read_text(encoding="utf-8"), encoding="utf-8")
        keys.unlink()
        keys.symlink_to(outside)
    elif hostile == "huge":
        keys.write_text(keys.read_text(encoding="utf-8") + " " * MAX_KEYS_BYTES, encoding="utf-8")
    else:
        keys.write_text(hostile, encoding="utf-8")
    after = _file_states(save_figures(figs, folder, ("pdf",)))
    name = f"{figs[0].stem}.pdf"
    assert after[name][1] == first[name][1] and after[name][0] != first[name][0]
    assert not keys.is_symlink()
    if hostile == "link":
        assert "sha256" in (tmp_path / "outside.json").read_text(encoding="utf-8")  # untouched


def test_svg_documents_rendered_by_workers_are_those_rendered_here(figures, tmp_path: Path) -> None:
    tables, found = figures
    here = election_figures(tables, ModelLabels({"m1": "Model One"})).all()  # drawn anew
    reference = [svg_document(f.figure, f.figure_id) for f in here]
    assert len(found.all()) >= MIN_PARALLEL_FIGURES  # rendered by forked workers
    (tmp_path / "together").mkdir()
    (tmp_path / "alone").mkdir()
    paths = save_figures(found.all(), tmp_path / "together", ("svg", "png"))
    assert [f.svg_document for f in found.all()] == reference
    svgs = [p for p in paths if p.suffix == ".svg"]
    assert [p.read_text(encoding="utf-8") for p in svgs] == reference
    for fig, alone in zip(found.all(), here, strict=True):  # the same box as a serial save
        png = tmp_path / "together" / f"{fig.stem}.png"
        assert png.read_bytes() == alone.save(tmp_path / "alone", "png").read_bytes()
