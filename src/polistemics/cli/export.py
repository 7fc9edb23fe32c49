"""CLI command group ``polistemics export``: a study in formats others read.

``export dataset RUN --out DIR`` writes the run's environment items and ground truth (and, with
``--answers`` and ``--verdicts``, the answers and the judge panel's verdicts) as Parquet tables
with a Hugging Face dataset card (``polistemics.export_dataset``; docs/guides/sharing-a-dataset.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from polistemics.cli.errors import user_errors
from polistemics.cli.groups import add_group


def dataset(
    run: Annotated[Path, typer.Argument(help="Run directory.")],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="Write the Parquet tables and README.md here."),
    ],
    answers: Annotated[
        bool, typer.Option("--answers", help="Also write the target models' answers.")
    ] = False,
    verdicts: Annotated[
        bool,
        typer.Option(
            "--verdicts", help="Also write the panel's majority verdicts and each judge's."
        ),
    ] = False,
    license: Annotated[
        str,
        typer.Option(
            "--license",
            help="License id for the card (a Hugging Face id, e.g. cc-by-4.0).",
        ),
    ] = "unknown",
) -> None:
    """Write a run as a dataset (Parquet and a dataset card) that `datasets` and inspect_ai load."""
    from polistemics.export_dataset import ExportError, export_dataset
    from polistemics.export_dataset.parquet import MissingPyarrow
    from polistemics.paths import UnsafePathError
    from polistemics.runlog import RunFileError

    with user_errors(ExportError, MissingPyarrow, UnsafePathError, RunFileError):
        written = export_dataset(run, out, answers=answers, verdicts=verdicts, license=license)
    for config, rows in written.rows.items():
        typer.echo(f"{config}: {rows} rows")
    typer.echo(f"dataset: {written.folder}")


def register(app: typer.Typer) -> None:
    """Add the ``export`` command group and its commands."""
    export = add_group(app, "export", help="Write a study in formats other tools read.")
    export.command("dataset")(dataset)
