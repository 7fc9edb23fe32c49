"""Booktabs LaTeX tables of a comparison, for a paper: ``compare A B --out DIR --tables latex``.

Beside the comparison's CSV files in ``DIR/tables/`` (and from them, as read back), per
comparison (a further side's files prefixed ``vs3_``, ... as its CSV files are):

- ``delta_emi.tex``: per model, the EMI of A and B in %, the difference B - A in pp with its
  percentile bootstrap 95% CI (and, unpaired, the Holm-corrected p of the bootstrap z test);
- ``delta_adherence.tex``: the same for the Adherence Index per model and environment;
- ``rank_correlation.tex``: Spearman's rho and Kendall's tau-b of the three rank orderings.

A variant column is added when the comparison holds several variants. Models are named as in the
figures (``--label``, else the registry's display name, else the id made readable). Every text is
LaTeX-escaped by ``latex_tables.to_latex`` (side labels are folder names, party and model names
come from the data), so a name holding ``&``, ``%``, ``_``, ``#`` or ``$`` prints as written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from polistemics.compare.comparison import RANK_ORDERINGS, Comparison
from polistemics.compare.tables import table_prefix
from polistemics.paths import inside
from polistemics.report.comparison_views import RANK_TITLES, p_value_text, rho_interval
from polistemics.report.labels import ModelLabels, environment_label, variant_label
from polistemics.report.latex_tables import MISSING, percent_text, to_latex


def _signed(value: object) -> str:
    """A difference of two rates in pp: ``+3.4``; ``--`` when missing."""
    if value is None or pd.isna(value):  # type: ignore[call-overload]
        return MISSING
    text = f"{100 * float(value):+.1f}"  # type: ignore[arg-type]
    return "0.0" if text in ("+0.0", "-0.0") else text


def _p(value: object) -> str:
    text = p_value_text(value)
    return MISSING if text == p_value_text(None) else text


def _number(value: object) -> str:
    if value is None or pd.isna(value):  # type: ignore[call-overload]
        return MISSING
    return f"{float(value):.3f}"  # type: ignore[arg-type]


def _delta_rows(
    c: Comparison, table: pd.DataFrame, keys: dict[str, Callable[[pd.Series], str]]
) -> pd.DataFrame:
    """One row per compared row of ``table``: its keys (``keys``: header -> text of a row),
    A, B, the difference with its CI and, unpaired, the corrected p and verdict."""
    several = table["variant"].nunique() > 1 if len(table) else False
    columns: dict[str, Callable[[pd.Series], str]] = (
        {"Variant": lambda r: variant_label(r["variant"])} if several else {}
    )
    columns |= keys
    text_columns = len(columns)
    columns |= {
        "A (%)": lambda r: percent_text(r["value_a"]),
        "B (%)": lambda r: percent_text(r["value_b"]),
        "B - A (pp)": lambda r: _signed(r["delta"]),
        "95% CI (pp)": lambda r: f"[{_signed(r['ci_low'])}, {_signed(r['ci_high'])}]",
    }
    if not c.paired:  # a paired comparison tests sub-questions only (as on the page)
        columns |= {
            "p (Holm)": lambda r: _p(r["p_holm"]),
            "Significant": lambda r: "yes" if bool(r["significant"]) else "no",
        }
    frame = pd.DataFrame(
        [{name: text(row) for name, text in columns.items()} for _, row in table.iterrows()],
        columns=list(columns),
    )
    frame.attrs["text_columns"] = text_columns
    return frame


def emi_table(c: Comparison, labels: ModelLabels) -> pd.DataFrame:
    return _delta_rows(c, c.deltas.emi, {"Model": lambda r: labels.display(r["model"])})


def adherence_table(c: Comparison, labels: ModelLabels) -> pd.DataFrame:
    return _delta_rows(
        c,
        c.deltas.adherence,
        {
            "Model": lambda r: labels.display(r["model"]),
            "Environment": lambda r: environment_label(r["environment"]),
        },
    )


def rank_table(c: Comparison, labels: ModelLabels) -> pd.DataFrame:
    rows = []
    for what in RANK_ORDERINGS:
        found = c.ranks[what]
        rows.append(
            {
                "Ordering": RANK_TITLES[what].capitalize(),
                "n": str(found["n"]),
                "Spearman rho": _number(found["spearman"]),
                "p (rho)": _p(found["spearman_p"]),
                "95% CI (rho)": rho_interval(found) or MISSING,
                "Kendall tau-b": _number(found["kendall"]),
                "p (tau)": _p(found["kendall_p"]),
            }
        )
    frame = pd.DataFrame(rows)
    frame.attrs["text_columns"] = 1
    return frame


def _sides(c: Comparison) -> str:
    return f"side A ({c.matched.a.label}) and side B ({c.matched.b.label})"


def _tests(c: Comparison) -> str:
    if c.paired:
        return "paired: both sides resampled alike"
    return (
        f"unpaired; p: bootstrap z test, Holm-corrected across the table's rows, "
        f"alpha = {c.options.alpha:g}"
    )


def _variants(table: pd.DataFrame) -> str:
    variants = list(dict.fromkeys(table["variant"])) if len(table) else []
    return f"{variant_label(variants[0])} variant; " if len(variants) == 1 else ""


def _delta_caption(what: str, table: Callable[[Comparison], pd.DataFrame]) -> Callable:
    return lambda c: (
        f"{what} of {_sides(c)} in %, and B - A in pp with its percentile bootstrap 95% CI "
        f"({_variants(table(c))}{_tests(c)})."
    )


TABLES: dict[str, tuple[Callable[[Comparison, ModelLabels], pd.DataFrame], Callable]] = {
    "delta_emi": (emi_table, _delta_caption("EMI", lambda c: c.deltas.emi)),
    "delta_adherence": (
        adherence_table,
        _delta_caption(
            "Adherence Index per model and information environment", lambda c: c.deltas.adherence
        ),
    ),
    "rank_correlation": (
        rank_table,
        lambda c: (
            f"Rank agreement of {_sides(c)} ({variant_label(c.ranks['variant'])} "
            f"variant): Spearman's rho and Kendall's tau-b with two-sided p-values "
            f"({_p_methods(c)}).{_no_coefficient(c)}"
        ),
    ),
}


def _p_methods(c: Comparison) -> str:
    methods = [c.ranks[w].get("p_method") for w in RANK_ORDERINGS]
    found = sorted({m for m in methods if isinstance(m, str) and m})
    return " / ".join(found) if found else "none"


def _no_coefficient(c: Comparison) -> str:
    """Why an ordering has no coefficient, in the words the comparison gives."""
    reasons = [
        f" {RANK_TITLES[w].capitalize()}: {c.ranks[w]['reason']}."
        for w in RANK_ORDERINGS
        if c.ranks[w].get("reason")
    ]
    return "".join(reasons)


def write_comparison_latex(
    comparisons: list[Comparison], folder: Path, labels: ModelLabels | None = None
) -> list[Path]:
    """Each comparison's ``delta_emi.tex``, ``delta_adherence.tex`` and
    ``rank_correlation.tex`` (those with rows) into ``folder``, prefixed as its CSV files."""
    labels = labels or ModelLabels()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for index, comparison in enumerate(comparisons):
        prefix = table_prefix(index)
        for name, (build, caption) in TABLES.items():
            frame = build(comparison, labels)
            path = inside(folder, f"{prefix}{name}.tex")
            if frame.empty:
                path.unlink(missing_ok=True)  # not left from an earlier comparison
                continue
            latex = to_latex(frame, caption(comparison), f"tab:{prefix}{name}")
            path.write_text(latex, encoding="utf-8")
            written.append(path)
    return written


__all__ = ["write_comparison_latex"]
