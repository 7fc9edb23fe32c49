"""CLI command ``polistemics annotate stats RUN [--json]``: human-human agreement, humans against
the judges and the panel, and PPI-corrected scores next to the panel-only ones (issue 17).

``register(app)`` adds the command to the ``annotate`` group (``cli/annotate.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from polistemics.cli.errors import user_errors
from polistemics.cli.groups import group


def stats(
    run: Annotated[Path, typer.Argument(help="A finished run directory with a sample.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print every table as JSON (fractions, not %).")
    ] = False,
) -> None:
    """Agreement of humans with each other, with each judge and the panel; corrected scores."""
    from polistemics.annotate.stats import annotation_stats
    from polistemics.cli.annotate_tables import render
    from polistemics.runlog import RunFileError

    with user_errors(FileNotFoundError, RunFileError):
        result = annotation_stats(run)
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=1, ensure_ascii=False))
        return
    render(result, Console(width=160))


def register(app: typer.Typer) -> None:
    """Add ``stats`` to the ``annotate`` group (``cli/annotate.py``)."""
    group(app, "annotate").command("stats")(stats)
