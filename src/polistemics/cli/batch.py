"""CLI commands: ``polistemics batch status RUN`` (the ``batch`` group; its other commands may
live in further modules, registered after this one)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import typer
from rich.table import Table

from polistemics.cli.cache import terminal_safe
from polistemics.cli.console import stdout_console
from polistemics.cli.errors import fail
from polistemics.cli.groups import add_group
from polistemics.llm.batch.ledger import Ledger
from polistemics.runlog import STORE_FILE


def status(
    run: Path = typer.Argument(..., help="Run directory (or its store.sqlite)."),
    show_all: bool = typer.Option(False, "--all", help="List closed batches too."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the run's open batches: sent to a provider's batch API, their results not all
    stored yet. A resumed run polls them instead of sending their requests again."""
    path = run / STORE_FILE if run.is_dir() else run
    if not path.is_file():
        fail(f"{path}: no run store here (expected a run directory containing {STORE_FILE})")
    with Ledger(path) as ledger:
        rows = [
            {
                "batch_id": row.batch_id,
                "endpoint": row.endpoint,
                "model": row.model,
                "status": row.status,
                "requests": row.requests,
                "without_result": len(ledger.unstored_keys_of(row.batch_id)),
                "created": datetime.fromtimestamp(row.created_at, UTC).isoformat(
                    timespec="seconds"
                ),
                "open": not row.closed,
            }
            for row in ledger.batches(open_only=not show_all)
        ]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        typer.echo("no open batches" if not show_all else "no batches")
        return
    table = Table("batch", "endpoint", "model", "status", "requests", "without result", "created")
    if show_all:
        table.add_column("open")
    for r in rows:
        cells = [
            terminal_safe(r["batch_id"]),
            terminal_safe(r["endpoint"]),
            terminal_safe(r["model"]),
            terminal_safe(r["status"]),
            str(r["requests"]),
            str(r["without_result"]),
            r["created"],
        ]
        table.add_row(*cells, *(["yes" if r["open"] else "no"] if show_all else []))
    stdout_console().print(table)


def register(app: typer.Typer) -> None:
    """Add the ``batch`` command group and its ``status`` command."""
    batch = add_group(
        app, "batch", help="Batches: sent to providers' batch APIs, or run offline (vLLM)."
    )
    batch.command("status")(status)
