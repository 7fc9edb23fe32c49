"""CLI command: ``polistemics new SOURCE`` (a commented study TOML for any election)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import typer

from polistemics.cli.errors import fail, user_errors
from polistemics.run.config import ConfigError
from polistemics.run.study_file import (
    DEFAULT_MIN_RATIONALE_SHARE,
    MODEL_PRESETS,
    portable_spec,
    study_file,
)
from polistemics.sources.errors import SourceError
from polistemics.sources.load import SPEC_HELP, load_election


def new(
    source: str = typer.Argument(
        ..., help=f"The election: {SPEC_HELP}; e.g. wahlomat:2024/europa."
    ),
    output: Path | None = typer.Option(
        None, "--out", "-o", help="The study TOML to write (default: <election id>.toml here)."
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing file."),
    models: str = typer.Option(
        "paper",
        "--models",
        help="Models preset: 'paper' (the paper's models, via OpenRouter) or 'local' (the "
        "bundled local model, no key).",
    ),
    min_rationales: float = typer.Option(
        DEFAULT_MIN_RATIONALE_SHARE,
        "--min-rationales",
        min=0.0,
        max=1.0,
        help="Keep a party when it gave a rationale for at least this share of the statements.",
    ),
    name: str | None = typer.Option(
        None, "--name", help="The study's name (default: the election id)."
    ),
    election_id: str | None = typer.Option(
        None, "--election-id", help="Override the election id (e.g. nl_tk2025)."
    ),
) -> None:
    """Write a commented study TOML for an election, ready for run --dry-run.

    It lists the election's parties with their counts (those with enough rationales kept) and
    takes the models and design from a run preset."""
    if models not in MODEL_PRESETS:
        fail(f"--models: unknown preset {models!r} (known: {', '.join(MODEL_PRESETS)})")
    with user_errors(SourceError, ConfigError, ValueError):
        election = load_election(source, election_id=election_id)
        spec = portable_spec(source)
        written = study_file(
            election,
            spec,
            models=models,
            min_share=min_rationales,
            name=name,
            election_id=election_id,
        )
        # The default name is the election id, a checked folder name: it cannot leave ".".
        target = output if output is not None else Path(f"{written.config.name}.toml")
        _write_new(target, written.text, force=force)
    kept = [row for row in written.parties if row.kept]
    typer.echo(
        f"wrote {target}: {election.id}, {len(kept)} of {len(written.parties)} parties kept, "
        f"{written.observations} observations, {written.statements} statements"
    )
    typer.echo(f"next: polistemics run {target} --dry-run")


def _write_new(target: Path, text: str, *, force: bool) -> None:
    """Write ``text`` to ``target`` in one rename; an existing file only with ``force``, never
    through a symlink (the link itself is replaced) and never over a folder."""
    if target.is_dir():
        raise ValueError(f"{target} is a folder; name the TOML file to write")
    if (target.exists() or target.is_symlink()) and not force:
        raise ValueError(f"{target} exists; pass --force to replace it")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{parent} is not a folder")
    fd, temporary = tempfile.mkstemp(prefix=".new-", suffix=".toml", dir=parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def register(app: typer.Typer) -> None:
    """Add the ``new`` command to the root app."""
    app.command("new")(new)
