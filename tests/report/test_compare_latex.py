"""Booktabs LaTeX tables of a comparison (``report/compare_latex.py``, ``compare --out DIR
--tables latex``): written only when asked, the values of the CSV tables, every text from the
data and the folder names LaTeX-escaped, and a golden table."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from compare.cells import random_cells, run_dir
from polistemics.cli import app

runner = CliRunner()

# Side labels are folder names: each holds LaTeX specials (& % _ # $).
SIDE_A, SIDE_B = "A&B 100%", "x_1 #2 $3"
GOLDEN_EMI = r"""\begin{table}[htbp]
\centering
\caption{EMI of side A (A\&B 100\%) and side B (x\_1 \#2 \$3) in \%, and B - A in pp with its percentile bootstrap 95\% CI (Full (real labels, native language) variant; unpaired; p: bootstrap z test, Holm-corrected across the table's rows, alpha = 0.05).}
\label{tab:delta_emi}
\begin{tabular}{lrrrrrr}
\toprule
Model & A (\%) & B (\%) & B - A (pp) & 95\% CI (pp) & p (Holm) & Significant \\
\midrule
Model \& Co \#1 & 90.9 & 81.9 & -9.0 & [-12.8, -5.5] & 0.0002 & yes \\
M-2 & 63.4 & 78.9 & +15.5 & [+8.9, +22.8] & 0.0002 & yes \\
\bottomrule
\end{tabular}
\end{table}
"""


def sides(tmp_path: Path) -> tuple[str, str]:
    small = {"statements": 6, "parties": ("p1", "p2"), "models": ("m1", "m_2")}
    a = random_cells(election="de_x", pass_rate={"m1": 0.9, "m_2": 0.7}, seed=1, **small)
    b = random_cells(election="nl_x", pass_rate={"m1": 0.8, "m_2": 0.8}, seed=2, **small)
    return str(run_dir(tmp_path / SIDE_A, a)), str(run_dir(tmp_path / SIDE_B, b))


def compare(tmp_path: Path, *options: str):
    a, b = sides(tmp_path)
    argv = ["compare", a, b, "--resamples", "30", "--label", "m1=Model & Co #1", *options]
    return runner.invoke(app, argv)


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    tmp_path = tmp_path_factory.mktemp("compare")
    out = tmp_path / "out"
    result = compare(tmp_path, "--out", str(out), "--tables", "latex")
    assert result.exit_code == 0, result.output
    return out / "tables"


def body_rows(tex: str) -> list[list[str]]:
    """The rows between \\midrule and \\bottomrule, split on unescaped ``&``."""
    body = tex.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    return [re.split(r"(?<!\\)&", line.removesuffix("\\\\").strip()) for line in body.splitlines()]


def test_the_golden_emi_table(written: Path) -> None:
    assert (written / "delta_emi.tex").read_text(encoding="utf-8") == GOLDEN_EMI


def test_booktabs_tables_beside_the_csv_files(written: Path) -> None:
    tex = {p.stem: p.read_text(encoding="utf-8") for p in written.glob("*.tex")}
    assert set(tex) == {"delta_emi", "delta_adherence", "rank_correlation"}
    for name, text in tex.items():
        assert text.index("\\toprule") < text.index("\\midrule") < text.index("\\bottomrule")
        assert f"\\label{{tab:{name}}}" in text and (written / f"{name}.csv").is_file()
        header = text.split("\\toprule\n", 1)[1].split("\\midrule", 1)[0]
        spec = re.search(r"\\begin\{tabular\}\{([lr]+)\}", text).group(1)
        width = len(re.split(r"(?<!\\)&", header))
        assert len(spec) == width and all(len(row) == width for row in body_rows(text)), name


def test_every_special_character_is_escaped(written: Path) -> None:
    for path in written.glob("*.tex"):
        text = path.read_text(encoding="utf-8")
        caption = re.search(r"\\caption\{(.*)\}\n", text).group(1)
        assert r"side A (A\&B 100\%) and side B (x\_1 \#2 \$3)" in caption
        for line in [caption, *(cell for row in body_rows(text) for cell in row)]:
            # no special character without its backslash (& between cells is split off)
            assert not re.search(r"(?<!\\)[&%_#$]", line), (path.name, line)


def test_values_are_the_csv_tables_values(written: Path) -> None:
    adherence = pd.read_csv(written / "delta_adherence.csv")
    rows = body_rows((written / "delta_adherence.tex").read_text(encoding="utf-8"))
    assert len(rows) == len(adherence)
    for row, (_, found) in zip(rows, adherence.iterrows(), strict=True):
        a, b, delta, ci = (cell.strip() for cell in row[2:6])
        assert a == f"{100 * found['value_a']:.1f}" and b == f"{100 * found['value_b']:.1f}"
        assert float(delta) == pytest.approx(100 * found["delta"], abs=0.051)
        assert ci == f"[{100 * found['ci_low']:+.1f}, {100 * found['ci_high']:+.1f}]".replace(
            "+0.0", "0.0"
        ).replace("-0.0", "0.0")
    ranks = pd.read_csv(written / "rank_correlation.csv").set_index("ordering")
    leaderboard = body_rows((written / "rank_correlation.tex").read_text(encoding="utf-8"))[0]
    assert [c.strip() for c in leaderboard[:3]] == [
        "Leaderboard",
        str(ranks.loc["leaderboard", "n"]),
        f"{ranks.loc['leaderboard', 'spearman']:.3f}",
    ]


def test_latex_tables_only_when_asked_and_only_with_out(tmp_path: Path) -> None:
    result = compare(tmp_path, "--out", str(tmp_path / "plain"))
    assert result.exit_code == 0, result.output
    assert not list((tmp_path / "plain" / "tables").glob("*.tex"))
    assert list((tmp_path / "plain" / "tables").glob("*.csv"))
    refused = compare(tmp_path, "--tables", "latex")
    assert refused.exit_code != 0 and "--out" in refused.output
    unknown = compare(tmp_path, "--out", str(tmp_path / "x"), "--tables", "xls")
    assert unknown.exit_code != 0 and "unknown table format 'xls'" in unknown.output
