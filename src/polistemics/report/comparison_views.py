"""View data of a ``Comparison`` that the comparison page (``compare_page.py``), the report's
cross-election section (``sections.py``) and ``compare``'s terminal and JSON output show: the
delta columns, the rank agreements, the summary in words and the small-sample warnings.

Everything here is read from the comparison's computed tables (``compare.tables``): the words
are counted and quoted from the rows, never written by hand.

It sits below the page and the section so that neither imports the other.
"""

from __future__ import annotations

import math

import pandas as pd

from polistemics.compare.comparison import SMALL_SAMPLE_UNITS, Comparison
from polistemics.compare.unpaired import excludes_zero
from polistemics.report.formatting import MISSING, number, number_interval, percent, signed_points
from polistemics.report.labels import (
    ModelLabels,
    environment_label,
    rubric_label,
    sub_question_label,
    variant_label,
)
from polistemics.report.view import Column, table_view

# The tables the summary speaks of, in the order it speaks of them.
TABLE_TITLES = {
    "emi": "EMI",
    "adherence": "Adherence Index (model x environment)",
    "rubrics": "Rubric Score (model x environment x rubric)",
    "sub_questions": "Sub-question pass rate (model x environment)",
    "sub_questions_pooled": "Sub-question pass rate pooled over environments",
    "parties": "Pass rate per party (pooled over models)",
}
RANK_TITLES = {
    "leaderboard": "leaderboard",
    "environment_difficulty": "environment difficulty",
    "dispersion": "model dispersion",
}


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def p_value_text(value: object) -> str:
    """A p-value with four decimals; below 0.0001 written ``< 0.0001``, never ``0.0000``."""
    if _missing(value):
        return MISSING
    return "< 0.0001" if float(value) < 0.0001 else f"{float(value):.4f}"  # type: ignore[arg-type]


def _yes_no(value: object) -> str:
    return MISSING if _missing(value) else ("yes" if bool(value) else "no")


def observations_text(row: pd.Series) -> str:
    """``60 / 60``; with a warning sign when either side has fewer than 30."""
    text = f"{int(row['n_observations_a'])} / {int(row['n_observations_b'])}"
    return f"{text} ⚠" if bool(row["small_sample"]) else text


def delta_columns(paired: bool, *, tests: bool = True) -> list[Column]:
    """A, B, B - A and its interval, and the observations it rests on; with ``tests`` also the
    test columns: paired, the McNemar columns; unpaired, the raw verdict (the interval excludes
    0), the bootstrap-z p-value and the Holm-corrected verdict."""
    columns = [
        Column("A", "value_a", percent, numeric=True),
        Column("B", "value_b", percent, numeric=True),
        Column("Δ (pp)", "delta", signed_points, numeric=True),
        Column(
            "95% CI (pp)",
            lambda r: f"[{signed_points(r['ci_low'])}, {signed_points(r['ci_high'])}]",
            numeric=True,
        ),
    ]
    if tests and paired:
        columns += [
            Column("Only A passed", "only_a_passed", numeric=True, title="discordant pairs"),
            Column("Only B passed", "only_b_passed", numeric=True, title="discordant pairs"),
            Column("p (McNemar)", "p_value", p_value_text, numeric=True),
            Column("p (Holm)", "p_holm", p_value_text, numeric=True),
            Column("Significant", lambda r: "yes" if r["significant"] else "no"),
        ]
    elif tests:
        columns += [
            Column(
                "CI excludes 0",
                "excludes_zero",
                _yes_no,
                title="raw verdict: the 95% interval lies wholly above or below 0",
            ),
            Column(
                "p (bootstrap z)",
                "p_value",
                p_value_text,
                numeric=True,
                title="difference / bootstrap SE, two-sided; –: the draws have no spread",
            ),
            Column("p (Holm)", "p_holm", p_value_text, numeric=True),
            Column(
                "Significant after Holm",
                "significant",
                _yes_no,
                title="corrected verdict: Holm-adjusted p below alpha across the table",
            ),
        ]
    columns.append(
        Column(
            "Obs. A / B",
            observations_text,
            numeric=True,
            title=f"observations the interval rests on; ⚠: fewer than {SMALL_SAMPLE_UNITS}",
        )
    )
    return columns


def rank_views(c: Comparison, labels: ModelLabels) -> list[dict]:
    """The three rank agreements of a comparison: coefficients and a table of the ranks."""
    rank_tables = []
    for what, title, item in (
        ("leaderboard", "Leaderboard (EMI, rank 1 = highest)", "Model"),
        ("environment_difficulty", "Environment difficulty (rank 1 = easiest)", "Environment"),
        (
            "dispersion",
            "Model rubric-level dispersion (mean over rubrics of the SD of the Rubric Score "
            "across active IEs, rank 1 = most robust)",
            "Model",
        ),
    ):
        found = c.ranks[what]
        name = (
            (lambda r: environment_label(r["item"]))
            if what == "environment_difficulty"
            else (lambda r: labels(r["item"]))
        )
        value = percent
        rank_tables.append(
            {
                "title": title,
                "spearman": number(found["spearman"]),
                "spearman_p": p_value_text(found["spearman_p"]),
                "spearman_ci": rho_interval(found),
                "kendall": number(found["kendall"]),
                "kendall_p": p_value_text(found["kendall_p"]),
                "p_method": found.get("p_method"),
                "n": found["n"],
                "reason": found["reason"],
                "table": table_view(
                    pd.DataFrame(
                        found["ranks"], columns=["item", "rank_a", "rank_b", "value_a", "value_b"]
                    ),
                    [
                        Column(item, name),
                        Column("Rank A", "rank_a", lambda v: f"{v:g}", numeric=True),
                        Column("Rank B", "rank_b", lambda v: f"{v:g}", numeric=True),
                        Column("A", "value_a", value, numeric=True),
                        Column("B", "value_b", value, numeric=True),
                    ],
                    caption=title,
                ),
            }
        )
    return rank_tables


def _row_name(row: pd.Series, labels: ModelLabels) -> str:
    """A row's keys in words: ``m1, Vague, I4 ...``."""
    parts = []
    if "party_id" in row.index:
        party = row.get("party_name")
        parts.append(party if isinstance(party, str) and party else str(row["party_id"]))
    if "model" in row.index:
        parts.append(labels(row["model"]))
    if "environment" in row.index:
        parts.append(environment_label(row["environment"]))
    if "sub_question" in row.index:
        parts.append(sub_question_label(row["sub_question"]))
    elif "rubric" in row.index:
        parts.append(rubric_label(row["rubric"]))
    return ", ".join(parts)


def _delta_text(row: pd.Series) -> str:
    return (
        f"{signed_points(row['delta'])} pp "
        f"[{signed_points(row['ci_low'])}, {signed_points(row['ci_high'])}]"
    )


def _counted(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _compared_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows with a difference (both sides have the row)."""
    return table[pd.to_numeric(table["delta"], errors="coerce").notna()]


def _table_sentence(
    name: str, table: pd.DataFrame, c: Comparison, labels: ModelLabels, *, tested: bool
) -> str:
    """How many rows differ, raw and after the correction, and the largest difference."""
    rows = _compared_rows(table)
    n = len(rows)
    raw = int(excludes_zero(rows).sum())
    sentence = (
        f"{TABLE_TITLES[name]}: {raw} of {_counted(n, 'row')} "
        f"{'has' if n == 1 else 'have'} a 95% interval that excludes 0"
    )
    if n >= 20:
        sentence += f" (about {0.05 * n:.0f} would by chance alone if nothing differed)"
    pick, which = rows, "largest"
    if tested:
        hits = rows[rows["significant"].astype(bool)]
        test = "exact McNemar" if c.paired else "bootstrap z"
        sentence += (
            f"; {len(hits)} {'is' if len(hits) == 1 else 'are'} significant after Holm's "
            f"correction across the table's {_counted(n, 'row')} ({test}, "
            f"alpha = {c.options.alpha:g})"
        )
        untested = int(pd.to_numeric(rows["p_value"], errors="coerce").isna().sum())
        if untested:
            sentence += (
                f"; {untested} {'has' if untested == 1 else 'have'} no p-value "
                "(the bootstrap draws have no spread)"
            )
        if len(hits):
            pick, which = hits, "largest significant"
    largest = pick.loc[pick["delta"].abs().idxmax()]
    return (
        f"{sentence}. The {which} difference: {_row_name(largest, labels)}, {_delta_text(largest)}."
    )


def _emi_sentence(c: Comparison, labels: ModelLabels) -> str | None:
    emi = _compared_rows(c.deltas.emi)
    if emi.empty:
        return None
    several = emi["variant"].nunique() > 1
    parts = [
        labels(row["model"])
        + (f" ({variant_label(row['variant'])})" if several else "")
        + f" {_delta_text(row)}"
        for _, row in emi.iterrows()
    ]
    shown = "; ".join(parts[:6]) + (f"; and {len(parts) - 6} more" if len(parts) > 6 else "")
    return f"EMI difference (B − A, percentage points, 95% interval): {shown}."


def rho_interval(found: dict) -> str:
    """Spearman's rho's 95% interval, ``[0.12, 0.80]``; empty below 4 items (none computed)."""
    if found.get("spearman_ci_low") is None:
        return ""
    return number_interval(found["spearman_ci_low"], found["spearman_ci_high"])


def _rank_sentence(c: Comparison) -> str:
    parts = []
    for what, title in RANK_TITLES.items():
        found = c.ranks[what]
        if found["spearman"] is None:
            parts.append(f"{title}: no coefficient ({found['reason']})")
            continue
        method = f", {found['p_method']}" if found.get("p_method") else ""
        interval = f", 95% CI {rho_interval(found)}" if rho_interval(found) else ""
        text = (
            f"{title} Spearman ρ = {number(found['spearman'], 2)} "
            f"(p = {p_value_text(found['spearman_p'])}{method}{interval}, n = {found['n']})"
        )
        # With n items (no ties) the exact two-sided p cannot go below 2 / n!.
        if 2 / math.factorial(found["n"]) >= c.options.alpha:
            text += f", and no order of {found['n']} items can reach p < {c.options.alpha:g}"
        parts.append(text)
    variant = variant_label(c.ranks["variant"])
    return f"Rank agreement ({variant} variant): " + "; ".join(parts) + "."


def small_sample_warnings(c: Comparison) -> list[str]:
    """One line per table that holds intervals resting on fewer than 30 observations on a
    side."""
    warnings = []
    for name, table in c.deltas.items():
        small = table[table["small_sample"].astype(bool)] if len(table) else table
        if small.empty:
            continue
        fewest = int(small[["n_observations_a", "n_observations_b"]].min(axis=1).min())
        warnings.append(
            f"{TABLE_TITLES[name]}: {len(small)} of {len(table)} intervals rest on fewer than "
            f"{SMALL_SAMPLE_UNITS} observations on a side (fewest: {fewest}); "
            "read them as rough."
        )
    return warnings


def comparison_summary(c: Comparison, labels: ModelLabels | None = None) -> list[str]:
    """The comparison in a few sentences, counted from its tables: what was compared, what
    differs and by how much, how sure (intervals, raw and corrected verdicts, sample sizes)."""
    labels = labels or ModelLabels()
    m = c.matched
    resampled = "the same resample on both sides" if c.paired else "each side on its own"
    emi = c.deltas.emi
    units = emi[["n_observations_a", "n_observations_b"]].to_numpy().ravel() if len(emi) else []
    article = "an" if m.mode[0] in "aeiou" else "a"
    if len(units):
        fewest, most = int(min(units)), int(max(units))
        spread = f"{fewest}" if fewest == most else f"{fewest} to {most}"
    sentences = [
        f"{m.b.label} − {m.a.label}: {article} {m.mode} comparison of "
        f"{_counted(len(m.models), 'model')} in {_counted(len(m.environments), 'environment')}"
        f", variant {' and '.join(variant_label(v) for v in m.variants)}; 95% intervals from "
        f"{c.options.resamples} bootstrap resamples of observations ({resampled})"
        + (f", {spread} observations per model and side" if len(units) else "")
        + "."
    ]
    emi_sentence = _emi_sentence(c, labels)
    if emi_sentence:
        sentences.append(emi_sentence)
    tested = {name for name, _ in c.tested()}
    for name, table in c.deltas.items():
        if name == "emi" and name not in tested:
            continue  # said above; a paired EMI has no test
        if not _compared_rows(table).empty:
            sentences.append(_table_sentence(name, table, c, labels, tested=name in tested))
    sentences.append(_rank_sentence(c))
    warnings = small_sample_warnings(c)
    sentences.append(
        f"Small samples: {_counted(len(warnings), 'table')} "
        f"{'holds' if len(warnings) == 1 else 'hold'} intervals resting on fewer than "
        f"{SMALL_SAMPLE_UNITS} observations on a side (see the warnings)."
        if warnings
        else f"Every interval rests on at least {SMALL_SAMPLE_UNITS} observations per side."
    )
    return sentences
