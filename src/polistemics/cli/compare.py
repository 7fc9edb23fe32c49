"""CLI command ``polistemics compare A B [C ...]``: differences between runs and release folders.

Each side is a run directory, an authors' release folder or either with ``@VARIANT``; every
side after the first is compared with the first (deltas are that side minus the first).
Prints a summary, or the JSON document with ``--json``; ``--out DIR`` writes the comparison page
(``compare.html``), its figures and the CSV tables (``--tables latex`` adds booktabs
``tables/*.tex``). The tables are computed once
(``compare.tables``); the summary in words, ``--json`` and the page all come from them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from polistemics.cli.console import stdout_console
from polistemics.cli.errors import UserError, user_errors
from polistemics.cli.report import (
    FIGURE_FORMAT_HELP,
    figure_formats,
    parse_labels,
    table_file_formats,
)
from polistemics.stats.defaults import DEFAULT_ALPHA, DEFAULT_RESAMPLES

if TYPE_CHECKING:
    from polistemics.compare import Comparison
    from polistemics.report.labels import ModelLabels

# The comparison and the report's modules (pandas, scipy, matplotlib) are imported by the
# functions that use them: ``polistemics --help`` imports this module too.


def _document(comparison: Comparison, labels: ModelLabels) -> dict:
    """One comparison's JSON object: the summary in words and the warnings first."""
    from polistemics.report.comparison_views import comparison_summary, small_sample_warnings

    return {
        "summary": comparison_summary(comparison, labels),
        "warnings": small_sample_warnings(comparison),
        **comparison.to_json(),
    }


def comparisons_document(comparisons: list[Comparison], labels: ModelLabels) -> dict:
    """The ``--json`` document: the first comparison, the others under
    ``additional_comparisons``."""
    document = _document(comparisons[0], labels)
    document["additional_comparisons"] = [_document(c, labels) for c in comparisons[1:]]
    return document


def _print_summary(comparison: Comparison, console: Console, labels: ModelLabels) -> None:
    from polistemics.report.comparison_views import (
        comparison_summary,
        p_value_text,
        small_sample_warnings,
    )
    from polistemics.report.formatting import signed_points

    m = comparison.matched
    console.print(
        f"[bold]{escape(m.b.label)} − {escape(m.a.label)}[/bold]: {m.mode} comparison",
        highlight=False,
    )
    for sentence in comparison_summary(comparison, labels):
        console.print(f"  {sentence}", markup=False, highlight=False)
    for warning in small_sample_warnings(comparison):
        console.print(f"  warning: {warning}", markup=False, highlight=False)
    for note in [*m.notes, *(f"left out: {x}" for x in m.left_out)]:
        console.print(f"  {note}", markup=False, highlight=False)
    table = Table(title="EMI difference (pp, B − A)")
    for column in ("Variant", "Model", "A", "B", "Δ", "95% CI"):
        table.add_column(column, justify="left" if column in ("Variant", "Model") else "right")
    for row in comparison.deltas.emi.itertuples():
        table.add_row(
            escape(str(row.variant)),
            escape(str(row.model)),
            f"{100 * row.value_a:.1f}",
            f"{100 * row.value_b:.1f}",
            signed_points(row.delta),
            f"[{signed_points(row.ci_low)}, {signed_points(row.ci_high)}]",
        )
    console.print(table)
    for what in ("leaderboard", "environment_difficulty", "dispersion"):
        found = comparison.ranks[what]
        rho = "–" if found["spearman"] is None else f"{found['spearman']:.3f}"
        tau = "–" if found["kendall"] is None else f"{found['kendall']:.3f}"
        p_values = (
            ""
            if found["spearman"] is None
            else f", p = {p_value_text(found['spearman_p'])} / "
            f"{p_value_text(found['kendall_p'])} ({found['p_method']})"
        )
        if found.get("spearman_ci_low") is not None:
            p_values += (
                f"; rho 95% CI [{found['spearman_ci_low']:.3f}, {found['spearman_ci_high']:.3f}]"
            )
        console.print(
            f"  rank agreement, {what}: Spearman {rho}, Kendall {tau} (n = {found['n']}{p_values})",
            markup=False,
            highlight=False,
        )
    _print_tasks(comparison, console, labels)
    if comparison.paired:
        console.print(
            f"  significant after Holm (exact McNemar): {comparison.n_significant()} tests",
            markup=False,
            highlight=False,
        )
    else:
        excluding = sum(int(t["excludes_zero"].sum()) for _, t in comparison.tested())
        rows = sum(len(t) for _, t in comparison.tested())
        console.print(
            f"  95% interval excludes 0: {excluding} of {rows} rows; significant after Holm "
            f"(bootstrap z, each table one family): {comparison.n_significant()}",
            markup=False,
            highlight=False,
        )


def _print_tasks(comparison: Comparison, console: Console, labels: ModelLabels) -> None:
    """The tasks beyond the paper's (issue 29): each compared task's EMI difference per model,
    and the tasks only one side asked. Nothing for runs of the paper's task alone."""
    from polistemics.report.formatting import signed_points

    for note in comparison.task_notes:
        console.print(f"  task: {note}", markup=False, highlight=False)
    for task in comparison.tasks:
        for note in task.notes:
            console.print(f"  task {task.task}: {note}", markup=False, highlight=False)
        emi = task.deltas.emi if task.deltas is not None else None
        for row in [] if emi is None else emi.itertuples():
            console.print(
                f"  task {task.task}, {labels(row.model)}: EMI {100 * row.value_a:.1f} -> "
                f"{100 * row.value_b:.1f} ({signed_points(row.delta)} pp, 95% CI "
                f"[{signed_points(row.ci_low)}, {signed_points(row.ci_high)}])",
                markup=False,
                highlight=False,
            )
        console.print(
            f"  task {task.task}: {task.n_significant()} differences significant after Holm "
            "(sub-questions and checks)",
            markup=False,
            highlight=False,
        )


def compare(
    sides: Annotated[
        list[str],
        typer.Argument(
            help="Two or more run directories or release folders (PATH or PATH@VARIANT); "
            "each is compared with the first."
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write compare.html, figures/ and tables/*.csv here."),
    ] = None,
    resamples: Annotated[
        int, typer.Option("--resamples", min=1, help="Bootstrap resamples for the 95% CIs.")
    ] = DEFAULT_RESAMPLES,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 0,
    alpha: Annotated[
        float,
        typer.Option("--alpha", min=0.0, max=1.0, help="Level of the Holm-corrected tests."),
    ] = DEFAULT_ALPHA,
    label: Annotated[
        list[str],
        typer.Option(
            "--label", help="Display name of a model, MODEL=NAME (repeatable).", show_default=False
        ),
    ] = [],  # noqa: B006 (typer needs a list default for repeatable options)
    figure_format: Annotated[str, typer.Option("--figure-format", help=FIGURE_FORMAT_HELP)] = "svg",
    tables: Annotated[
        str,
        typer.Option(
            "--tables",
            help="Table files to write with --out: csv (always), latex (adds booktabs "
            "tables/*.tex of the EMI and Adherence Index differences and the rank agreement).",
        ),
    ] = "csv",
) -> None:
    """Compare runs or release folders: deltas with CIs, paired tests and rank agreement."""
    from polistemics.compare import CompareError, CompareOptions, compare_sides, load_sides
    from polistemics.compare.tables import comparison_tables, read_comparison_tables, with_tables
    from polistemics.report.compare_latex import write_comparison_latex
    from polistemics.report.compare_page import write_compare_page
    from polistemics.report.election_names import recorded_names
    from polistemics.report.figures.formats import FigureFormatError
    from polistemics.report.labels import ModelLabels

    with user_errors(CompareError, FigureFormatError):
        given = parse_labels(label)
        formats = figure_formats(figure_format)
        table_formats = table_file_formats(tables)
        if "latex" in table_formats and out is None:
            raise UserError("--tables latex writes into --out: give the folder")
        loaded = load_sides(sides)
        # models by the display names the runs' run.json record, unless a --label names them
        recorded = recorded_names([side.source for side in loaded])
        labels = ModelLabels(given, recorded.election_titles, recorded.display_names)
        comparisons = compare_sides(
            loaded, CompareOptions(resamples=resamples, seed=seed, alpha=alpha)
        )
        computed = comparison_tables(comparisons)  # computed once: JSON, summary and page
    shown = with_tables(comparisons, computed)
    for side in loaded:
        for note in side.notes:
            print(f"note: {side.label}: {note}", file=sys.stderr)
    if as_json:
        document = comparisons_document(shown, labels)
        typer.echo(json.dumps(document, indent=2, allow_nan=False))
    else:
        console = stdout_console()
        for comparison in shown:
            _print_summary(comparison, console, labels)
    if out is not None:
        with user_errors(CompareError):
            page = write_compare_page(comparisons, out, labels, formats, computed)
        if "latex" in table_formats:  # from the tables as the page wrote them
            written = read_comparison_tables(computed, out / "tables")
            write_comparison_latex(with_tables(comparisons, written), out / "tables", labels)
        print(f"comparison page: {page}", file=sys.stderr if as_json else sys.stdout)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("compare")(compare)
