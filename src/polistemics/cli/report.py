"""CLI command ``polistemics report PATH``: the HTML report of a run or an authors' release.

PATH is a finished run directory (``scores/cells.csv``) or a release experiment folder
(``scores/<rubric>/aggregated_scores.jsonl``, ablations in ``anon_v1/`` and ``en_v1/``).
Several PATHs (``report A B --out DIR``) give one report of all their elections; a run or
report of two or more elections adds the cross-election deltas (paper App. I).
Writes ``report.html``, ``figures/*.{svg,pdf,png}`` (``--figure-format``) and ``tables/*.csv``
into ``--out`` (default: ``PATH/report``); ``--tables latex`` adds booktabs ``tables/*.tex``.
``--label ID=NAME`` names a model or an election in the figures (and a model on the page).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from polistemics.cli.errors import UserError, user_errors
from polistemics.report.defaults import DEFAULT_MAX_ANSWERS
from polistemics.report.figures.formats import (
    FIGURE_FORMATS,
    FigureFormatError,
    parse_figure_formats,
)
from polistemics.scoring.defaults import LOO_MIN_ITEMS
from polistemics.stats.defaults import DEFAULT_RESAMPLES

# The report's modules (matplotlib, jinja2, pandas) are imported when a report is written:
# ``polistemics --help`` and ``run`` import this module too.

LABEL_HELP = (
    "Display name of a model or an election, ID=NAME (repeatable): --label gpt_5_4=GPT-5.4 "
    "--label bundestagswahl2025='Bundestag 2025'."
)


def parse_labels(values: list[str]) -> dict[str, str]:
    """``["gpt_5_4=GPT-5.4", ...]`` -> ``{"gpt_5_4": "GPT-5.4"}`` (model or election ids)."""
    labels = {}
    for value in values:
        model, sep, label = value.partition("=")
        if not sep or not model.strip() or not label.strip():
            raise UserError(
                f"--label '{value}': expected MODEL=DISPLAY NAME or ELECTION=DISPLAY NAME"
            )
        labels[model.strip()] = label.strip()
    return labels


FIGURE_FORMAT_HELP = "Figure files to write, a comma list of svg, pdf, png (PNG at 300 dpi)."


def figure_formats(value: str) -> tuple[str, ...]:
    """``--figure-format`` as a tuple; an unknown format is a user error."""
    try:
        return parse_figure_formats(value)
    except FigureFormatError as exc:
        raise UserError(f"--figure-format: {exc}") from None


def table_file_formats(value: str) -> tuple[str, ...]:
    """``--tables`` as a tuple (csv always first); an unknown format is a user error."""
    from polistemics.report.latex_tables import TableFormatError, parse_table_formats

    try:
        return parse_table_formats(value)
    except TableFormatError as exc:
        raise UserError(f"--tables: {exc}") from None


def report(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Finished run directory or authors' release experiment folder; several (each "
            "with its own elections, --out required) give one multi-election report."
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output folder (default: PATH/report)."),
    ] = None,
    label: Annotated[
        list[str],
        typer.Option("--label", help=LABEL_HELP, show_default=False),
    ] = [],  # noqa: B006 (typer needs a list default for repeatable options)
    max_items: Annotated[
        int,
        typer.Option(
            "--max-items",
            min=1,
            help="Most answers embedded in the item browser (seeded sample beyond).",
        ),
    ] = DEFAULT_MAX_ANSWERS,
    resamples: Annotated[
        int, typer.Option("--resamples", min=1, help="Bootstrap resamples for the 95% CIs.")
    ] = DEFAULT_RESAMPLES,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap and the sample.")] = 0,
    figure_format: Annotated[
        str, typer.Option("--figure-format", help=FIGURE_FORMAT_HELP)
    ] = ",".join(FIGURE_FORMATS),
    tables: Annotated[
        str,
        typer.Option(
            "--tables",
            help="Table files to write: csv (always), latex (adds booktabs tables/*.tex of the "
            "leaderboard, robustness and party findings).",
        ),
    ] = "csv",
    loo_min_items: Annotated[
        int | None,
        typer.Option(
            "--loo-min-items",
            min=1,
            help="Flag a leave-one-out deviation only for parties with at least this many items "
            "in the context (not in the paper; default: off, every party is flaggable; "
            f"{LOO_MIN_ITEMS} is the usual value).",
        ),
    ] = None,
) -> None:
    """Write a self-contained HTML report with the paper's figures and tables."""
    from polistemics.analyses.tables import read_analysis_tables
    from polistemics.report.build import build_any, build_combined
    from polistemics.report.election_names import recorded_names, source_titles
    from polistemics.report.inputs import ReportInputError
    from polistemics.report.latex_tables import write_latex_tables
    from polistemics.report.options import ReportOptions
    from polistemics.runlog.release_io import ReleaseFormatError as ItemsFormatError
    from polistemics.scoring.errors import ScoringError

    with user_errors(ReportInputError, ScoringError, ItemsFormatError):
        table_formats = table_file_formats(tables)
        recorded = recorded_names(paths)
        options = ReportOptions(
            # models by their display names and elections by their sources' titles (as run.json
            # records them, else from the sources) unless a --label names them
            model_labels=parse_labels(label),
            display_names=recorded.display_names,
            election_titles={**source_titles(paths), **recorded.election_titles},
            bootstrap_resamples=resamples,
            seed=seed,
            max_browser_answers=max_items,
            figure_formats=figure_formats(figure_format),
            loo_min_items=loo_min_items,
        )
        if len(paths) == 1:
            written = build_any(paths[0], out, options)
        elif out is None:
            raise UserError("a report of several sources needs --out (where to write it)")
        else:
            written = build_combined(paths, out, options)
    folder = written.parent / "tables"
    if "latex" in table_formats:
        analyses = read_analysis_tables(folder)
        write_latex_tables(analyses, folder, options.labels())
    typer.echo(f"report: {written}")
    typer.echo(f"figures: {written.parent / 'figures'}")
    typer.echo(f"tables: {folder}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("report")(report)
