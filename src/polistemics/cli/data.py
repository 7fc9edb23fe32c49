"""CLI commands: ``polistemics data list``, ``data inspect`` and ``data fetch``."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import typer
from rich.table import Table

from polistemics.cli.console import stdout_console
from polistemics.cli.errors import fail, user_errors
from polistemics.cli.groups import add_group
from polistemics.sources.catalog import list_elections
from polistemics.sources.datadir import ENV_VAR, data_dir
from polistemics.sources.errors import FetchError, SourceError
from polistemics.sources.fetch import DEFAULT_QOM_URL, QOM_URL_ENV, fetch_wahlomat
from polistemics.sources.load import SPEC_HELP, load_election
from polistemics.sources.scope import ScopedElection, apply_scope, load_scope, preset_names


def register(app: typer.Typer) -> None:
    """Add the ``data`` command group and its inspect and fetch commands."""
    data = add_group(
        app,
        "data",
        help="Voting-advice data: list the elections at hand, inspect a source (counts of "
        "positions and observations), fetch elections.",
    )
    data.command("list")(list_command)
    data.command("inspect")(inspect)
    data.command("fetch")(fetch)


def list_command(
    as_json: bool = typer.Option(False, "--json", help="Print the list as JSON."),
) -> None:
    """Every election the sources know: the bundled demo and the data directory's elections."""
    listed = list_elections()
    if as_json:
        payload = {
            "data_dir": str(data_dir()),
            "elections": [
                {
                    "source": entry.spec,
                    "election": entry.election_id,
                    "title": entry.title,
                    "language": entry.language_code,
                    **(asdict(entry.counts) if entry.counts else {}),
                    **({"error": entry.error} if entry.error else {}),
                }
                for entry in listed
            ],
        }
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    table = Table(title=f"elections (data directory {data_dir()}, ${ENV_VAR})")
    for header in ("Source", "Election", "Title", "Statements", "Parties", "Observations"):
        justify = "right" if header in ("Statements", "Parties", "Observations") else "left"
        table.add_column(header, justify=justify)
    for entry in listed:
        counts = entry.counts
        table.add_row(
            entry.spec,
            entry.election_id or "",
            entry.title if counts else f"does not load: {entry.error}",
            str(counts.statements) if counts else "",
            str(counts.parties) if counts else "",
            str(counts.observations) if counts else "",
        )
    console = stdout_console()
    console.print(table, markup=False)
    console.print(
        "Observations: positions with a rationale. Start a study with "
        "`polistemics new SOURCE --out study.toml`.",
        markup=False,
        highlight=False,
    )
    if len(listed) == 2:
        console.print(
            "No election in the data directory yet: `polistemics data fetch wahlomat "
            "<year>/<region>` downloads a Wahl-O-Mat election.",
            markup=False,
            highlight=False,
        )


def inspect(
    source: str = typer.Argument(..., help=f"The election: {SPEC_HELP}."),
    scope: str | None = typer.Option(
        None,
        "--scope",
        help=f"A scope preset ({', '.join(preset_names())}) or a scope TOML file. Default: every party.",
    ),
    election_id: str | None = typer.Option(
        None, "--election-id", help="Override the election id (e.g. nl_tk2025)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the counts as JSON."),
) -> None:
    """Count positions, in-scope positions, missing rationales and observations per party."""
    with user_errors(SourceError):
        election = load_election(source, election_id=election_id)
        scoped = apply_scope(election, load_scope(scope) if scope else None)
    summary = inspection_summary(scoped)
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        _print_table(scoped, summary)


def inspection_summary(scoped: ScopedElection) -> dict[str, Any]:
    """The counts ``data inspect --json`` prints (paper Table 5 for the paper's scopes)."""
    return {
        "election": scoped.election.id,
        "scope": scoped.scope_name,
        **scoped.counts,
        "per_party": scoped.observations_per_party(),
    }


def fetch(
    kind: str = typer.Argument(..., help="The source kind; only 'wahlomat' can be fetched."),
    election: str = typer.Argument(..., help="<year>/<region>, e.g. 2025/deutschland."),
    base_url: str | None = typer.Option(
        None,
        "--base-url",
        help=f"Base URL of the qual-o-mat-data files (default: ${QOM_URL_ENV} or {DEFAULT_QOM_URL}).",
    ),
) -> None:
    """Download an election into the data directory ($POLISTEMICS_DATA)."""
    if kind.strip().lower() != "wahlomat":
        fail(
            f"cannot fetch {kind!r}: only 'wahlomat' can be fetched; for StemWijzer save the JSON "
            "written by nl-voting-data-scraper under <data dir>/stemwijzer/<election>/"
        )
    with user_errors(FetchError, SourceError):
        result = fetch_wahlomat(election, base_url=base_url)
    action = "replaced" if result.replaced else "saved"
    typer.echo(f"{action} {result.election_id} ({result.positions} positions) in {result.path}")
    typer.echo(f"use it as: wahlomat:{result.election_id}")


def _print_table(scoped: ScopedElection, summary: dict[str, Any]) -> None:
    election = scoped.election
    table = Table(
        title=f"{election.id}: {election.title or election.source} "
        f"(scope: {scoped.scope_name or 'all parties'})"
    )
    for header in ("Label", "Party", "Positions", "Missing rationale", "Observations"):
        table.add_column(header, justify="left" if header in ("Label", "Party") else "right")
    for party in scoped.parties:
        own = [p for p in scoped.in_scope_positions if p.party.id == party.id]
        missing = sum(1 for p in own if not p.has_rationale)
        table.add_row(
            party.anonymized_label, party.name, str(len(own)), str(missing), str(len(own) - missing)
        )
    table.add_section()
    table.add_row(
        "",
        "in scope",
        str(summary["in_scope_positions"]),
        str(summary["excluded_missing_rationale"]),
        str(summary["observations"]),
    )
    console = stdout_console()
    console.print(table)
    console.print(
        f"{summary['positions']} positions in the source; {election.language} ({election.language_code})"
    )
