"""CLI commands ``polistemics batch export`` and ``batch import``: a stage's calls run by an
offline engine (vLLM's ``vllm run-batch``) and its results taken into the run store
(``polistemics.run.offline``; the recipe: docs/guides/vllm.md).

``add_commands(group)`` adds both to the ``batch`` command group.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from polistemics.cli.console import stdout_console
from polistemics.cli.errors import user_errors
from polistemics.cli.groups import group

_CONFIG_HELP = (
    "The study's config (a preset or TOML file); default: the one RUN's run.json records."
)


def _errors():
    from polistemics.environments.basis import EnvironmentInputError
    from polistemics.llm.registry import RegistryError
    from polistemics.paths import UnsafePathError
    from polistemics.run.config import ConfigError
    from polistemics.run.lock import RunLocked
    from polistemics.run.offline import OfflineBatchError
    from polistemics.sources.errors import SourceError

    return user_errors(
        OfflineBatchError,
        ConfigError,
        RegistryError,
        SourceError,
        EnvironmentInputError,
        UnsafePathError,
        RunLocked,
    )


def _log(line: str) -> None:
    print(line, file=sys.stderr)


def export(
    run: Annotated[Path, typer.Argument(help="Run directory.")],
    stage: Annotated[
        str,
        typer.Option(
            "--stage", help="The call stage to export: answers, judge, standardise, vague, ..."
        ),
    ],
    endpoint: Annotated[
        str, typer.Option("--endpoint", help="The registry entry (model) whose calls to export.")
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="The JSONL to write (default RUN/offline/<stage>-<endpoint>.jsonl)."
        ),
    ] = None,
    config: Annotated[str | None, typer.Option("--config", help=_CONFIG_HELP)] = None,
) -> None:
    """Write the calls a run would make now for one stage and model as vLLM batch input JSONL."""
    from polistemics.run.offline import default_export_path, export_calls, study_config

    with _errors():
        cfg = study_config(run, config)
        path = out or default_export_path(run, stage, endpoint)
        exported = export_calls(cfg, run, stage, endpoint, path, _log)
    console = stdout_console()
    console.print(f"{exported.lines:,} requests written to {exported.path}", markup=False)
    for what, n in exported.other_pending.items():
        console.print(f"also pending (not in this file): {n:,} {what}", markup=False)


def import_(
    run: Annotated[Path, typer.Argument(help="Run directory.")],
    file: Annotated[Path, typer.Argument(help="A batch output JSONL (vLLM's run-batch -o).")],
    config: Annotated[str | None, typer.Option("--config", help=_CONFIG_HELP)] = None,
) -> None:
    """Store the results of a batch output file, so a later run finds those calls done."""
    from polistemics.run.offline import import_results, refusal_lines, study_config

    with _errors():
        cfg = study_config(run, config)
        imported = import_results(cfg, run, file, _log)
    console = stdout_console()
    console.print(
        f"{imported.lines:,} lines read: {imported.stored_ok:,} results stored, "
        f"{imported.stored_failed:,} stored as failed calls (empty, filtered or cut-off replies), "
        f"{sum(imported.refused.values()):,} refused",
        markup=False,
    )
    for line in refusal_lines(imported):
        console.print(line, markup=False)


def add_commands(batch: typer.Typer) -> None:
    """Add ``export`` and ``import`` to the ``batch`` command group."""
    batch.command("export")(export)
    batch.command("import")(import_)


def register(app: typer.Typer) -> None:
    """Add ``batch export`` and ``batch import`` to the ``batch`` group (``cli/batch.py``)."""
    add_commands(group(app, "batch"))
