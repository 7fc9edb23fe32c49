"""CLI commands: ``polistemics data fidelity`` (App. D.4 intensifier density of raw rationales)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from polistemics.cli.errors import user_errors
from polistemics.cli.groups import group

if TYPE_CHECKING:
    from polistemics.evidence.fidelity import FidelityReport


def register(app: typer.Typer) -> None:
    """Add ``fidelity`` to the ``data`` group (``cli/data.py``)."""
    group(app, "data").command("fidelity")(fidelity)


def fidelity(
    source: str = typer.Argument(
        ..., help="The election, e.g. wahlomat:PATH, stemwijzer:PATH or demo:de."
    ),
    scope: str | None = typer.Option(
        None,
        "--scope",
        help="A scope preset (e.g. de-btw2025) or scope TOML file. Default: every party.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Intensifier density of the raw rationales (Table 6 word lists; paper: 0.46 DE, 0.47 NL)."""
    from polistemics.evidence.fidelity import raw_fidelity
    from polistemics.sources.load import load_election
    from polistemics.sources.scope import apply_scope, load_scope

    with user_errors(ValueError):
        election = load_election(source)
        scoped = apply_scope(election, load_scope(scope) if scope else None)
        report = raw_fidelity(scoped.in_scope_positions)  # counts those without a rationale
    if as_json:
        typer.echo(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        typer.echo(format_report(report, title=f"{election.id} (scope: {scope or 'all parties'})"))


def format_report(report: FidelityReport, *, title: str) -> str:
    rows: list[tuple[str, str]] = [
        ("rationales", str(report.rationales)),
        ("tokens", str(report.tokens)),
        ("intensifier_matches", str(report.matches)),
        ("intensifier_density_raw", _figure(report.intensifier_density_raw)),
        ("intensifier_density_raw_pooled", _figure(report.intensifier_density_raw_pooled)),
        ("median_tokens_raw", _figure(report.median_tokens_raw, digits=1)),
        ("without_rationale", str(report.without_rationale)),
    ]
    if len(report.by_language) > 1:
        for code, summary in report.by_language.items():
            rows.append((f"{code}.intensifier_density_raw", _figure(summary.mean_density)))
            rows.append((f"{code}.intensifier_density_raw_pooled", _figure(summary.pooled_density)))
    width = max(len(name) for name, _ in rows)
    lines = [title, *(f"{name.ljust(width)}  {value}" for name, value in rows)]
    lines.append("density: intensifier matches per 100 tokens (mean over rationales; pooled = all")
    lines.append("matches / all tokens); tokens are lower-cased runs of word characters")
    return "\n".join(lines)


def _figure(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"
