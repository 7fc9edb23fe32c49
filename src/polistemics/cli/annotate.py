"""CLI commands ``polistemics annotate sample|export|import RUN``: human validation (issue 17).

``stats`` (agreement and corrected scores) and ``serve`` (the annotation app) join the group from
their own modules.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from polistemics.annotate.defaults import (
    DEFAULT_OVERLAP,
    DEFAULT_OVERLAP_SHARE,
    DEFAULT_SPLIT_SHARE,
)
from polistemics.cli.console import stdout_console
from polistemics.cli.errors import fail, user_errors
from polistemics.cli.groups import add_group
from polistemics.runlog.layout import is_run_dir
from polistemics.tasks import PARTY_POSITION

if TYPE_CHECKING:
    from polistemics.annotate.sample import SampleDesign

# The annotation modules (pandas) are imported by the commands that use them: ``polistemics
# --help`` imports this module too.

RunArgument = Annotated[Path, typer.Argument(help="A finished run directory.")]


def _printable(text: str) -> str:
    """A reason may quote an imported value: control characters are shown escaped, never sent
    to the terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _finished_run(run: Path) -> Path:
    if not is_run_dir(run):
        fail(f"{run}: not a finished run directory (no scores/cells.csv)")
    return run


def _print_design(design: SampleDesign) -> None:
    console = stdout_console()
    table = Table(title=f"Annotation sample: {design.drawn} items (seed {design.seed})")
    for column in ("Environment", "Rubric", "Judges", "Size", "Drawn", "Weight"):
        table.add_column(
            column, justify="right" if column in ("Size", "Drawn", "Weight") else "left"
        )
    for stratum in design.strata:
        weight = "–" if stratum.weight is None else f"{stratum.weight:.2f}"
        table.add_row(
            stratum.environment.label,
            stratum.rubric.label,
            "agreed" if stratum.judges_agreed else "split",
            str(stratum.size),
            str(stratum.drawn),
            weight,
        )
    console.print(table)
    lines = [
        f"population: {design.population} judged answer x rubric units, "
        f"{design.population_split} split",
        f"split items drawn: {design.drawn_split} of {design.drawn} "
        f"(target share {design.split_share_target:g})",
        f"overlap: {design.items_wanting_overlap} items want {design.overlap} annotators, "
        "the rest 1",
    ]
    for line in lines:
        console.print(line, markup=False, highlight=False)
    if design.drawn < design.requested:
        console.print(
            f"note: {design.requested} requested, only {design.drawn} units exist",
            markup=False,
            highlight=False,
        )


def sample(
    run: RunArgument,
    n: Annotated[int, typer.Option("--n", min=1, help="Items (answer x rubric) to draw.")] = 300,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the draw.")] = 0,
    overlap: Annotated[
        int,
        typer.Option("--overlap", min=1, max=100, help="Annotators wanted on overlap items."),
    ] = DEFAULT_OVERLAP,
    overlap_share: Annotated[
        float,
        typer.Option(
            "--overlap-share", min=0.0, max=1.0, help="Share of items that want --overlap (1: all)."
        ),
    ] = DEFAULT_OVERLAP_SHARE,
    split_share: Annotated[
        float,
        typer.Option(
            "--split-share",
            min=0.0,
            max=1.0,
            help="Target share of items on which the judges split (oversampled).",
        ),
    ] = DEFAULT_SPLIT_SHARE,
    replace: Annotated[
        bool, typer.Option("--replace", help="Replace a sample that has no labels yet.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the design as JSON.")] = False,
    task: Annotated[
        list[str],
        typer.Option(
            "--task",
            help="Draw --n items of this task (repeatable; issue 29): party_position (the "
            "paper's) or another task the run asked, e.g. navigation.",
        ),
    ] = [PARTY_POSITION],  # noqa: B006 (typer needs a list default for repeatable options)
) -> None:
    """Draw a stratified sample of judged answer x rubric items into the run's store."""
    from polistemics.annotate.item_view import prepare_views
    from polistemics.annotate.run_data import RunDataError
    from polistemics.annotate.sample import SampleError, SampleOptions, draw_task_samples
    from polistemics.annotate.store import AnnotationStore, SampleExistsError
    from polistemics.runlog import RunFileError
    from polistemics.tasks import TASKS

    run = _finished_run(run)
    unknown = [name for name in task if name not in TASKS]
    if unknown:
        fail(f"--task {unknown[0]}: unknown task (known: {', '.join(TASKS)})")
    options = SampleOptions(
        n=n, seed=seed, overlap=overlap, overlap_share=overlap_share, split_share=split_share
    )
    tasks = list(dict.fromkeys(task))
    with user_errors(SampleError, SampleExistsError, RunDataError, RunFileError):
        items, designs = draw_task_samples(run, options, tasks)
        with AnnotationStore.open(run) as store:
            store.write_sample(items, replace=replace)
        cached = prepare_views(run)
    if as_json:
        if len(designs) == 1:
            typer.echo(json.dumps(designs[0].model_dump(mode="json"), indent=2))
        else:
            shown = [
                {"task": name, **design.model_dump(mode="json")}
                for name, design in zip(tasks, designs, strict=True)
            ]
            typer.echo(json.dumps(shown, indent=2))
    else:
        for name, design in zip(tasks, designs, strict=True):
            if len(designs) > 1:
                print(f"task {name}:")
            _print_design(design)
        print(f"item views prepared for the app: {cached}")


def export(
    run: RunArgument,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write the JSONL here (default: standard output)."),
    ] = None,
) -> None:
    """Export the sample items (blind: nothing derived from the judges) and every label as
    JSONL (docs/annotation.md)."""
    from polistemics.annotate.jsonl_io import export_lines, write_export
    from polistemics.annotate.run_data import RunDataError
    from polistemics.runlog import RunFileError

    run = _finished_run(run)
    with user_errors(RunDataError, RunFileError, OSError):
        if out is None:
            for line in export_lines(run):
                typer.echo(line)
            return
        count = write_export(run, out)
    print(f"wrote {count} lines to {out}", file=sys.stderr)


def design(
    run: RunArgument,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Write the JSONL here (default: standard output)."),
    ] = None,
) -> None:
    """Export each sample item's stratum and weight (for analysis; not blind: it tells whether
    the judges agreed, so keep it from annotators)."""
    from polistemics.annotate.jsonl_io import design_lines, write_design
    from polistemics.runlog import RunFileError

    run = _finished_run(run)
    with user_errors(RunFileError, OSError):
        if out is None:
            for line in design_lines(run):
                typer.echo(line)
            return
        count = write_design(run, out)
    print(f"wrote {count} design lines to {out} (not blind)", file=sys.stderr)


def import_labels(
    run: RunArgument,
    file: Annotated[Path, typer.Argument(help="JSONL file of labels (docs/annotation.md).")],
    annotator: Annotated[
        str | None,
        typer.Option("--annotator", help="Annotator of the lines that name none."),
    ] = None,
) -> None:
    """Import labels; refused lines are listed with their number and reason, the rest kept."""
    from polistemics.annotate.jsonl_io import import_file

    run = _finished_run(run)
    if not file.is_file():
        fail(f"{file}: no such file")
    with user_errors(OSError):
        report = import_file(run, file, annotator)
    for refused in report.refused:
        print(f"line {refused.line}: refused: {_printable(refused.reason)}", file=sys.stderr)
    print(
        f"imported {report.committed} labels, refused {len(report.refused)} lines"
        + (
            f", passed over {report.items_passed_over} item lines"
            if report.items_passed_over
            else ""
        )
    )
    if report.refused:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the ``annotate`` command group and its sample, export and import commands."""
    annotate = add_group(
        app, "annotate", help="Human validation of the judges: sample, label, export and import."
    )
    annotate.command("sample")(sample)
    annotate.command("export")(export)
    annotate.command("design")(design)
    annotate.command("import")(import_labels)
