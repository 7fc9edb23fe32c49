"""The tables of ``polistemics annotate stats`` drawn in the terminal (rich): human-human
agreement, humans vs judges, corrected scores. Imported when the command runs."""

from __future__ import annotations

import pandas as pd
from rich.console import Console
from rich.table import Table

from polistemics.annotate.small_sample import COLUMN as SMALL_SAMPLE
from polistemics.annotate.small_sample import MIN_UNITS, warning
from polistemics.annotate.stats import AnnotationStats
from polistemics.report.formatting import number, percent, row_interval
from polistemics.rubrics import BY_KEY


def _sub_question(key: str) -> str:
    sq = BY_KEY.get(key)
    return key if sq is None else f"{sq.code} {sq.title}"


def _table(title: str, frame: pd.DataFrame, columns: dict[str, object]) -> Table:
    """``columns``: header -> a column name, or a function of the row."""
    table = Table(title=title)
    for header in columns:
        table.add_column(header)
    for _, row in frame.iterrows():
        table.add_row(
            *(str(c(row)) if callable(c) else str(row[c]) for c in columns.values())  # type: ignore[arg-type]
        )
    return table


SMALL_MARK = f"n<{MIN_UNITS}!"


def _small(row: pd.Series) -> str:
    return SMALL_MARK if row.get(SMALL_SAMPLE, False) else ""


def _print_table(console: Console, name: str, table: Table, frame: pd.DataFrame) -> None:
    """The table, then a warning line when some of its rows rest on few labelled items."""
    console.print(table)
    text = warning(name, frame)
    if text:
        console.print(f"warning: {text} (marked {SMALL_MARK})", markup=False, style="bold")


def render(stats: AnnotationStats, console: Console) -> None:
    console.print(
        f"{stats.n_sample} sample items, {stats.n_labels} labels by "
        f"{len(stats.annotators)} annotators, {stats.n_labelled_items} items fully labelled"
    )
    for note in stats.notes:
        console.print(f"note: {note}", markup=False)
    if stats.has_labels and stats.n_labelled_items < MIN_UNITS:
        console.print(
            f"warning: only {stats.n_labelled_items} sample items are fully labelled (fewer "
            f"than {MIN_UNITS}): every figure below is indicative only",
            markup=False,
            style="bold",
        )
    if stats.message:
        console.print(stats.message, markup=False)
    if not stats.has_labels:
        return
    _print_table(
        console,
        "Human-human agreement",
        _table(
            "Human-human agreement (items labelled by >= 2 annotators)",
            stats.agreement,
            {
                "Rubric": "rubric",
                "Sub-question": lambda r: _sub_question(r["sub_question"]),
                "Items": "n_items",
                "Ratings": "n_ratings",
                "% agreement": lambda r: percent(r["percent_agreement"], unit=""),
                "Fleiss' κ": lambda r: number(r["fleiss_kappa"]),
                "AC1": lambda r: number(r["gwet_ac1"]),
                "": _small,
            },
        ),
        stats.agreement,
    )
    console.print(f"{stats.n_ties} item x sub-question ties between annotators left out below")
    for grain, title in (("all", "all items"), ("rubric", "per rubric")):
        frame = stats.versus[grain]
        group = "group" if grain == "all" else grain
        _print_table(
            console,
            f"Humans vs judges, {title}",
            _table(
                f"Humans vs judges, {title} (human majority as truth)",
                frame,
                {
                    "Judge": "judge",
                    "Group": group,
                    "n": "n",
                    "Items": "n_items",
                    "TP/FP/FN/TN": lambda r: f"{r['tp']}/{r['fp']}/{r['fn']}/{r['tn']}",
                    "Accuracy %": lambda r: percent(r["accuracy"], unit=""),
                    "AC1": lambda r: number(r["ac1"]),
                    "Yes | human No %": lambda r: percent(r["yes_when_human_no"], unit=""),
                    "No | human Yes %": lambda r: percent(r["no_when_human_yes"], unit=""),
                    "": _small,
                },
            ),
            frame,
        )
    scores = {
        "Answers": "n_answers",
        "Labelled": "n_labelled",
        "Panel %": lambda r: percent(r["panel"], unit=""),
        "Corrected %": lambda r: percent(r["corrected"], unit=""),
        "95% CI": row_interval(),
        "Difference (pp)": lambda r: percent(r["difference"], unit=""),
        "": _small,
    }
    _print_table(
        console,
        "Corrected Rubric Scores",
        _table(
            "Corrected Rubric Scores (PPI) vs panel-only",
            stats.rubric_scores,
            {"Variant": "variant", "Model": "model", "IE": "environment", "Rubric": "rubric"}
            | scores,
        ),
        stats.rubric_scores,
    )
    _print_table(
        console,
        "Corrected Adherence Indices",
        _table(
            "Corrected Adherence Indices vs panel-only",
            stats.adherence,
            {"Variant": "variant", "Model": "model", "IE": "environment"} | scores,
        ),
        stats.adherence,
    )
    _print_table(
        console,
        "Corrected EMI",
        _table(
            "Corrected EMI (delta-method CI) vs panel-only",
            stats.emi,
            {"Variant": "variant", "Model": "model", "IEs": "n_environments"}
            | {name: column for name, column in scores.items() if name != "Answers"},
        ),
        stats.emi,
    )
