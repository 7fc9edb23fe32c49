"""CLI command group ``polistemics batch``: a study's calls run in batches (offline engines:
``cli/batch_files.py``)."""

from __future__ import annotations

import typer

from polistemics.cli.groups import add_group


def register(app: typer.Typer) -> None:
    """Add the ``batch`` command group."""
    add_group(app, "batch", help="Run a study's calls in batches: offline engines (vLLM).")
