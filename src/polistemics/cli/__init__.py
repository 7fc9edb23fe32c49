"""The ``polistemics`` command. Each command group lives in its own module and registers itself."""

from __future__ import annotations

import typer

from polistemics import __version__
from polistemics.cli import (
    cache,
    coder,
    compare,
    data,
    environments,
    evidence,
    report,
    run,
    score,
)
from polistemics.cli.help_format import FlagsWithoutTypes

app = typer.Typer(
    name="polistemics",
    cls=FlagsWithoutTypes,
    help="Audit how large language models mediate political information before elections.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Polistemics benchmark harness."""


for module in (data, evidence, environments, score, compare, report, run, cache, coder):
    module.register(app)


def main() -> None:
    app()
