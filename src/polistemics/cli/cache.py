"""CLI commands: ``polistemics cache stats|errors|forget-errors RUN``."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from polistemics.cli.console import stdout_console
from polistemics.cli.errors import fail
from polistemics.cli.groups import add_group
from polistemics.llm.store import RunStore
from polistemics.runlog import STORE_FILE


def terminal_safe(text: str) -> str:
    """``text`` with every control or format character written as its escape (``\\x1b``), so
    what a provider put in an error message (a window title, a hyperlink) is shown, not run."""
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


def _store(run: Path) -> RunStore:
    path = run / STORE_FILE if run.is_dir() else run
    if not path.is_file():
        fail(f"{path}: no run store here (expected a run directory containing {STORE_FILE})")
    return RunStore(path)


def stats(
    run: Path = typer.Argument(..., help="Run directory (or its store.sqlite)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Calls, errors, tokens (cached input tokens among them), cost and latency per stage and
    model."""
    with _store(run) as store:
        rows = store.call_stats()
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(
        "stage",
        "endpoint",
        "model",
        "calls",
        "errors",
        "tokens in",
        "cached in",
        "tokens out",
        "reasoning",
        "cost $",
        "mean latency ms",
    )
    for r in rows:
        table.add_row(
            r["stage"],
            r["endpoint"],
            r["model"],
            str(r["calls"]),
            str(r["errors"]),
            str(r["input_tokens"]),
            str(r["cached_input_tokens"]),
            str(r["output_tokens"]),
            str(r["reasoning_tokens"]),
            f"{r['cost'] or 0:.4f}",
            f"{r['mean_latency_ms'] or 0:.0f}",
        )
    stdout_console().print(table)


def errors(run: Path = typer.Argument(..., help="Run directory.")) -> None:
    """List the calls recorded as failed, with their reasons."""
    with _store(run) as store:
        keys = store.error_keys()
        for key in keys:
            result = store.get_call(key)
            line = f"{key[:12]}  {result.endpoint}  attempts={result.attempts}  {result.error}"
            typer.echo(terminal_safe(line))
    typer.echo(
        f"{len(keys)} failed call(s); `polistemics run CONFIG --retry-errors` calls them again"
    )


def forget_errors(run: Path = typer.Argument(..., help="Run directory.")) -> None:
    """Delete recorded failures so the next run calls them again."""
    with _store(run) as store:
        typer.echo(f"forgot {store.forget_errors()} failed call(s)")


def register(app: typer.Typer) -> None:
    """Add the ``cache`` command group and its commands."""
    cache = add_group(app, "cache", help="Inspect a run's store of model calls.")
    cache.command("stats")(stats)
    cache.command("errors")(errors)
    cache.command("forget-errors")(forget_errors)
