"""Booktabs LaTeX tables for a paper, from the analysis tables a report wrote to ``tables/``.

``report --tables latex`` writes, beside the CSV files:

- ``leaderboard.tex``: per model, the mean Rubric Score per rubric and the EMI with its bootstrap
  95% CI (Fig. 2), in %;
- ``robustness.tex``: the Adherence Index per model and environment in %, and the rubric-level
  dispersion in pp (Fig. 3);
- ``party_findings.tex``: the Baseline Adherence Index per party and model in % (Fig. 16) and
  each model's mean party spread in pp.

A report of several elections gives each table an election column. Every text from the data
(party names, labels) is LaTeX-escaped: a party called ``\\input{x}`` prints as written and runs
nothing. The tables need ``\\usepackage{booktabs}`` in the paper's preamble.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from polistemics.analyses.election_scores import LEADERBOARD_RUBRICS
from polistemics.analyses.tables import AnalysisTables
from polistemics.paths import inside
from polistemics.report.figures.text import display_text
from polistemics.report.labels import ModelLabels, environment_label
from polistemics.report.tables import environment_columns

TABLE_FORMATS = ("csv", "latex")
MISSING = "--"
CAPTION_LIMIT = 600  # characters of a caption (a cell's text: 200)

# LaTeX's special characters in text mode and what prints them.
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}


class TableFormatError(ValueError):
    """A table format other than csv and latex."""


def parse_table_formats(value: str) -> tuple[str, ...]:
    """``"latex"`` -> ``("csv", "latex")``: the CSV files are always written."""
    formats = ["csv"]
    for part in value.split(","):
        name = part.strip().lower()
        if not name:
            continue
        if name not in TABLE_FORMATS:
            raise TableFormatError(
                f"unknown table format '{part.strip()}' (choose from {', '.join(TABLE_FORMATS)})"
            )
        if name not in formats:
            formats.append(name)
    return tuple(formats)


def latex_text(value: object, limit: int = 200) -> str:
    """``value`` as one line of LaTeX text (at most ``limit`` characters before escaping):
    control characters dropped, specials escaped."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in display_text(value, limit))


def percent_text(value: object) -> str:
    """A rate in % with one decimal (``--`` when missing)."""
    number = _number(value)
    return MISSING if number is None else f"{100 * number:.1f}"


def _number(value: object) -> float | None:
    if value is None:
        return None
    number = float(value)  # type: ignore[arg-type]
    return None if math.isnan(number) else number


def _with_ci(value: object, low: object, high: object) -> str:
    if _number(value) is None:
        return MISSING
    if _number(low) is None or _number(high) is None:
        return percent_text(value)
    return f"{percent_text(value)} [{percent_text(low)}, {percent_text(high)}]"


def to_latex(frame: pd.DataFrame, caption: str, label: str) -> str:
    """A booktabs table of ``frame`` (cells already text); headers and cells are escaped
    here, the caption too. Text columns left-aligned, the rest right-aligned."""
    escaped = frame.map(latex_text)
    escaped.columns = [latex_text(c) for c in frame.columns]
    text_columns = getattr(frame, "attrs", {}).get("text_columns", 1)
    column_format = "l" * text_columns + "r" * (len(frame.columns) - text_columns)
    return escaped.style.hide(axis="index").to_latex(
        hrules=True,  # \toprule, \midrule, \bottomrule (booktabs)
        column_format=column_format,
        caption=latex_text(caption, CAPTION_LIMIT),
        label=label,
        position="htbp",
        position_float="centering",
    )


def _elections(table: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(table["election_id"])) if "election_id" in table else []


def _by_election(
    table: pd.DataFrame,
    labels: ModelLabels,
    rows: Callable[[pd.DataFrame], pd.DataFrame],
) -> pd.DataFrame:
    """``rows`` of each election's part, with an election column when there are several."""
    elections = _elections(table)
    parts = []
    for election in elections:
        part = rows(table[table["election_id"] == election])
        if len(elections) > 1:
            part.insert(0, "Election", labels.election(election))
            part.attrs["text_columns"] = part.attrs.get("text_columns", 1) + 1
        parts.append(part)
    if not parts:
        return pd.DataFrame()
    found = pd.concat(parts, ignore_index=True)
    found.attrs["text_columns"] = parts[0].attrs.get("text_columns", 1)
    return found


def leaderboard_table(analyses: AnalysisTables, labels: ModelLabels) -> pd.DataFrame:
    def rows(board: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "Model": [labels.display(m) for m in board["model"]],
                **{r.label: [percent_text(v) for v in board[r.value]] for r in LEADERBOARD_RUBRICS},
                "EMI [95% CI]": [
                    _with_ci(*row)
                    for row in board[["emi", "emi_ci_low", "emi_ci_high"]].itertuples(
                        index=False, name=None
                    )
                ],
            }
        )

    return _by_election(analyses.leaderboard, labels, rows)


DISPERSION_COLUMNS = ("dispersion", "dispersion_ci_low", "dispersion_ci_high")


def robustness_table(analyses: AnalysisTables, labels: ModelLabels) -> pd.DataFrame:
    adherence = analyses.adherence_by_environment
    dispersion = analyses.dispersion
    if "dispersion_ci_low" not in dispersion:  # tables written before the interval was added
        dispersion = dispersion.assign(dispersion_ci_low=math.nan, dispersion_ci_high=math.nan)

    def rows(part: pd.DataFrame) -> pd.DataFrame:
        election = part["election_id"].iloc[0]
        difficulty = analyses.environment_difficulty
        envs = environment_columns(difficulty[difficulty["election_id"] == election])
        envs += [e for e in dict.fromkeys(part["environment"]) if e not in envs]
        board = analyses.leaderboard
        order = list(board[board["election_id"] == election]["model"])
        models = order + [m for m in dict.fromkeys(part["model"]) if m not in order]
        value = {(r.model, r.environment): r.adherence for r in part.itertuples()}
        spread = dispersion[dispersion["election_id"] == election].set_index("model")
        return pd.DataFrame(
            {
                "Model": [labels.display(m) for m in models],
                **{
                    environment_label(e): [percent_text(value.get((m, e))) for m in models]
                    for e in envs
                },
                "Dispersion (pp) [95% CI]": [
                    _with_ci(*(spread[c].get(m) for c in DISPERSION_COLUMNS))
                    if m in spread.index
                    else MISSING
                    for m in models
                ],
            }
        )

    return _by_election(adherence, labels, rows)


def party_findings_table(analyses: AnalysisTables, labels: ModelLabels) -> pd.DataFrame:
    baseline = analyses.baseline_party_adherence
    spread = analyses.mean_party_spread

    def rows(part: pd.DataFrame) -> pd.DataFrame:
        election = part["election_id"].iloc[0]
        board = analyses.leaderboard
        order = list(board[board["election_id"] == election]["model"])
        models = order + [m for m in dict.fromkeys(part["model"]) if m not in order]
        names = part.drop_duplicates("party_id").assign(
            party_name=lambda t: t["party_name"].fillna(t["party_id"])
        )
        parties = sorted(
            zip(names["party_id"], names["party_name"], strict=True),
            key=lambda p: str(p[1]).lower(),
        )
        value = {(r.model, r.party_id): r.adherence for r in part.itertuples()}
        found = pd.DataFrame(
            {
                "Party": [str(name) for _, name in parties],
                **{
                    labels.display(m): [percent_text(value.get((m, pid))) for pid, _ in parties]
                    for m in models
                },
            }
        )
        mean = spread[spread["election_id"] == election].set_index("model")["mean_party_spread"]
        found.loc[len(found)] = [
            "Mean party spread (pp)",
            *(percent_text(mean.get(m)) for m in models),
        ]
        return found

    return _by_election(baseline, labels, rows)


TABLES = {
    "leaderboard": (
        leaderboard_table,
        "Overall model performance: mean Rubric Score per rubric over the environments it is "
        "scored in, and the EMI with its bootstrap 95% CI, in %.",
    ),
    "robustness": (
        robustness_table,
        "Adherence Index per model and information environment in % (Baseline first, then "
        "easiest to hardest), and rubric-level dispersion in pp with its bootstrap 95% CI.",
    ),
    "party_findings": (
        party_findings_table,
        "Adherence Index per party and model under Baseline in %, and each model's party "
        "spread (highest minus lowest party Adherence Index) averaged over environments, in pp.",
    ),
}


def write_latex_tables(
    analyses: AnalysisTables, folder: Path, labels: ModelLabels | None = None
) -> list[Path]:
    """``leaderboard.tex``, ``robustness.tex`` and ``party_findings.tex`` (those with rows)
    into ``folder``; the full variant's scores, as the figures show them."""
    labels = labels or ModelLabels()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (build, caption) in TABLES.items():
        frame = build(analyses, labels)
        path = inside(folder, f"{name}.tex")
        if frame.empty:
            path.unlink(missing_ok=True)  # not left from an earlier build
            continue
        path.write_text(to_latex(frame, caption, f"tab:{name}"), encoding="utf-8")
        written.append(path)
    return written


__all__ = [
    "TABLE_FORMATS",
    "TableFormatError",
    "latex_text",
    "parse_table_formats",
    "to_latex",
    "write_latex_tables",
]
