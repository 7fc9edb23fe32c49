"""CLI command: ``polistemics run [CONFIG]`` (the whole study; the demo preset by default)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from polistemics.cli.errors import user_errors
from polistemics.cli.report import FIGURE_FORMAT_HELP, figure_formats
from polistemics.environments.basis import EnvironmentInputError
from polistemics.llm.local_server import LocalModelError
from polistemics.llm.registry import RegistryError
from polistemics.llm.session import STORE_NAME
from polistemics.llm.store import RunStore
from polistemics.llm.types import BudgetExceeded
from polistemics.report.content import ReportOptions
from polistemics.report.figures import FIGURE_FORMATS
from polistemics.run.config import ConfigError, load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study, check_keys, load_elections
from polistemics.run.plan import plan_study
from polistemics.sources.errors import SourceError

USER_ERRORS = (ConfigError, RegistryError, SourceError, LocalModelError, EnvironmentInputError)


def run(
    config: str = typer.Argument(
        "demo", help="A preset (demo, paper-de, paper-nl) or a TOML file."
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the call plan and cost estimate; make no call."
    ),
    max_cost: float | None = typer.Option(
        None, "--max-cost", help="Stop cleanly once this many USD are spent."
    ),
    retry_errors: bool = typer.Option(
        False, "--retry-errors", help="Call again what failed in an earlier run."
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Run directory (default runs/<name>)."
    ),
    as_json: bool = typer.Option(False, "--json", help="With --dry-run: print the plan as JSON."),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress bars (also POLISTEMICS_QUIET=1)."
    ),
    figure_format: str = typer.Option(
        ",".join(FIGURE_FORMATS), "--figure-format", help=FIGURE_FORMAT_HELP
    ),
) -> None:
    """Run a study: data, standardisation, environments, answers, judges, scores, report."""
    quiet = quiet or bool(os.environ.get("POLISTEMICS_QUIET"))
    console = Console(stderr=True, quiet=False)
    with user_errors(*USER_ERRORS):
        report_options = ReportOptions(figure_formats=figure_formats(figure_format))
        cfg = load_config(config)
        run_dir = output or cfg.run_dir()
        study = Study(cfg, run_dir, log=(lambda m: None) if quiet else (lambda m: console.print(m)))
        if dry_run:
            _print_plan(study, run_dir, as_json)
            return
        check_keys(study.endpoints)
        try:
            result = asyncio.run(
                study.execute(max_cost=max_cost, retry_errors=retry_errors, quiet=quiet)
            )
        except BudgetExceeded as exc:
            print(f"stopped: {exc}", file=sys.stderr)
            raise typer.Exit(3) from None
        except KeyboardInterrupt:
            print(
                f"\nstopped by Ctrl-C; finished calls are in {run_dir / STORE_NAME}: "
                "run the same command again to resume",
                file=sys.stderr,
            )
            raise typer.Exit(130) from None
        paths = finish_run(study, result, report_options)
    _print_summary(result, paths)


def _print_plan(study: Study, run_dir: Path, as_json: bool) -> None:
    elections = load_elections(study.config)
    store_path = run_dir / STORE_NAME
    store = RunStore(store_path) if store_path.is_file() else None
    try:
        rows, details = plan_study(study.config, elections, study.endpoints, store)
    finally:
        if store is not None:
            store.close()
    missing_keys = sorted(
        {
            ep.api_key_env
            for ep in study.endpoints.values()
            if ep.api_key_env and not os.environ.get(ep.api_key_env)
        }
    )
    if as_json:
        payload = {
            "config": study.config.name,
            "run_dir": str(run_dir),
            "details": details,
            "missing_keys": missing_keys,
            "stages": [{**r.__dict__, "new": r.new} for r in rows],
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    table = Table(title=f"plan for '{study.config.name}' -> {run_dir}")
    for column in (
        "stage",
        "model",
        "calls",
        "cached",
        "new",
        "est. tokens in",
        "est. tokens out",
        "est. cost $",
    ):
        table.add_column(column, justify="left" if column in ("stage", "model") else "right")
    for r in rows:
        table.add_row(
            r.stage,
            r.model,
            str(r.calls),
            str(r.cached),
            str(r.new),
            f"{r.input_tokens:,}",
            f"{r.output_tokens:,}",
            "n/a" if r.cost is None else f"{r.cost:,.2f}",
        )
    console = Console()
    console.print(table)
    for election, info in details["elections"].items():
        console.print(
            f"{election}: {info['observations']} observations; items: "
            + ", ".join(f"{k}={v}" for k, v in info["items"].items())
        )
    console.print(
        f"total: {details['answers_total']:,} answers, {details['judge_calls_total']:,} judge calls "
        f"(identical judge seats share calls); retries not counted"
    )
    if any(r.cost is None for r in rows):
        console.print(
            "cost: n/a where the registry has no prices (price_input_per_mtok, price_output_per_mtok)"
        )
    if missing_keys:
        console.print(f"to run it, set: {', '.join(missing_keys)}")


def _print_summary(result, paths: dict[str, Path]) -> None:
    out = Console()
    out.print(
        "stage timings: " + ", ".join(f"{k} {v:.1f}s" for k, v in result.stage_seconds.items())
    )
    out.print(f"model calls made: {result.calls_made}")
    for label, path in paths.items():
        out.print(f"{label}: {path}")


def register(app: typer.Typer) -> None:
    app.command("run")(run)
