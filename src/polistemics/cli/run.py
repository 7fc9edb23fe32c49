"""CLI command: ``polistemics run [CONFIG]`` (the whole study; the demo preset by default)."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from polistemics.cli.console import stdout_console
from polistemics.cli.deprecated import renamed
from polistemics.cli.errors import user_errors
from polistemics.cli.report import FIGURE_FORMAT_HELP, figure_formats
from polistemics.llm.pricing import DEFAULT_MAX_AGE
from polistemics.report.figures.formats import RUN_FIGURE_FORMATS
from polistemics.runlog.layout import STORE_FILE

if TYPE_CHECKING:
    from polistemics.run.pipeline import Study

# The pipeline's modules are imported when the command runs, each as far as it goes (a dry run
# plans the calls; it loads no report): ``polistemics --help`` imports this module too.


def user_errors_of_a_run() -> tuple[type[Exception], ...]:
    """The errors ``run`` reports as a user's (a message and exit status 1, no traceback)."""
    from polistemics.environments.basis import EnvironmentInputError
    from polistemics.llm.local_server import LocalModelError
    from polistemics.llm.registry import RegistryError
    from polistemics.paths import UnsafePathError
    from polistemics.run.config import ConfigError
    from polistemics.run.disk_space import DiskSpaceError
    from polistemics.run.lock import RunLocked
    from polistemics.sources.errors import SourceError

    return (
        ConfigError,
        RegistryError,
        SourceError,
        LocalModelError,
        EnvironmentInputError,
        UnsafePathError,
        RunLocked,
        DiskSpaceError,
    )


def _stopping_errors() -> tuple[type[Exception], ...]:
    """The errors that stop a run with status 3 (a message, no traceback): the budget, and a
    batch API that stays unreachable. ``except`` evaluates this when an error arrives, so the
    batch collector (aiohttp) is looked up only if loaded: a run that made no batch call (a
    rerun with nothing to redo) never imports it, and cannot have raised its error."""
    from polistemics.llm.types import BudgetExceeded

    collector = sys.modules.get("polistemics.llm.batch.collector")
    return (BudgetExceeded,) if collector is None else (BudgetExceeded, collector.BatchUnavailable)


def run(
    config: str = typer.Argument(
        "demo",
        help="A preset (demo, demo-mechanisms, paper-de, paper-nl, extended-de) or a TOML file.",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the call plan and cost estimate; make no call."
    ),
    max_cost: float | None = typer.Option(
        None, "--max-cost", help="Stop cleanly once this many USD are spent."
    ),
    check_disk_space: bool | None = typer.Option(
        None,
        "--check-disk-space/--no-check-disk-space",
        help="Refuse, before the first call, a run whose files would not fit on the disk "
        "(default: on; the estimate is in --dry-run).",
    ),
    retry_errors: bool = typer.Option(
        False, "--retry-errors", help="Call again what failed in an earlier run."
    ),
    output: Path | None = typer.Option(
        None, "--out", "-o", help="Run directory (default: the config's output_dir or runs/<name>)."
    ),
    _output: Annotated[str | None, renamed("--output", "--out")] = None,
    as_json: bool = typer.Option(False, "--json", help="With --dry-run: print the plan as JSON."),
    refresh_prices: bool = typer.Option(
        False,
        "--refresh-prices",
        help="With --dry-run: fetch OpenRouter's price list even if a recent copy is cached.",
    ),
    prices_max_age: float = typer.Option(
        DEFAULT_MAX_AGE.days,
        "--prices-max-age",
        min=0,
        help="With --dry-run: days a cached OpenRouter price list is used without a request.",
    ),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress bars (also POLISTEMICS_QUIET=1)."
    ),
    figure_format: str = typer.Option(
        ",".join(RUN_FIGURE_FORMATS),
        "--figure-format",
        help=FIGURE_FORMAT_HELP + " `polistemics report RUN` adds PDF and PNG later.",
    ),
) -> None:
    """Run a study: data, standardisation, environments, answers, judges, scores, report."""
    quiet = quiet or bool(os.environ.get("POLISTEMICS_QUIET"))
    # Log lines are text (election ids, model names), never markup, and are not wrapped.
    console = Console(stderr=True, soft_wrap=True, markup=False, highlight=False)
    with user_errors(*user_errors_of_a_run()):
        from polistemics.run.config import load_config
        from polistemics.run.pipeline import Study, check_keys

        formats = figure_formats(figure_format)
        cfg = load_config(config)
        if check_disk_space is not None:
            cfg = cfg.model_copy(update={"check_disk_space": check_disk_space})
        run_dir = output or cfg.run_dir()
        study = Study(cfg, run_dir, log=(lambda m: None) if quiet else (lambda m: console.print(m)))
        if dry_run:
            prices_age = timedelta(days=prices_max_age)
            _print_plan(study, run_dir, as_json, refresh_prices, prices_age)
            return
        from polistemics.llm import event_loop
        from polistemics.report.options import ReportOptions
        from polistemics.run.finish import finish_run

        report_options = ReportOptions(figure_formats=formats, loo_min_items=cfg.loo_min_items)
        check_keys(study.endpoints)
        # One process per run directory: execute takes the lock once the data have loaded, and
        # it is held until the last file is written.
        try:
            try:
                result = event_loop.run(
                    study.execute(
                        max_cost=max_cost,
                        retry_errors=retry_errors,
                        quiet=quiet,
                        keep_lock=True,
                        skip_unchanged=True,
                    )
                )
            except _stopping_errors() as exc:
                print(f"stopped: {exc}", file=sys.stderr)
                raise typer.Exit(3) from None
            except KeyboardInterrupt:
                print(
                    f"\nstopped by Ctrl-C; finished calls are in {run_dir / STORE_FILE}: "
                    "run the same command again to resume",
                    file=sys.stderr,
                )
                raise typer.Exit(130) from None
            paths = finish_run(study, result, report_options)
        finally:
            study.lock.release()
    _print_summary(result, paths)


def _print_plan(
    study: Study, run_dir: Path, as_json: bool, refresh_prices: bool, prices_max_age: timedelta
) -> None:
    from polistemics.llm.pricing import estimate_prices
    from polistemics.llm.store import RunStore
    from polistemics.run.disk_space import estimate_for
    from polistemics.run.pipeline import load_elections
    from polistemics.run.plan import plan_notes, plan_study

    elections = load_elections(study.config)
    prices, prices_note = estimate_prices(
        study.endpoints.values(), max_age=prices_max_age, refresh=refresh_prices
    )
    store_path = run_dir / STORE_FILE
    store = RunStore(store_path) if store_path.is_file() else None
    try:
        rows, details = plan_study(study.config, elections, study.endpoints, store, prices)
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
    disk = estimate_for(rows, run_dir)
    if as_json:
        payload = {
            "config": study.config.name,
            "run_dir": str(run_dir),
            "details": details,
            "missing_keys": missing_keys,
            "prices_note": prices_note,
            "stages": [{**r.__dict__, "new": r.new} for r in rows],
            "disk": {**disk.__dict__, "folder": str(disk.folder), "fits": disk.fits},
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
        "est. cached in",
        "online $",
        "batch $",
        "cached prefix $",
        "price source",
    ):
        table.add_column(
            column, justify="left" if column in ("stage", "model", "price source") else "right"
        )
    for r in rows:
        table.add_row(
            r.stage,
            r.model,
            str(r.calls),
            str(r.cached),
            str(r.new),
            f"{r.input_tokens:,}",
            f"{r.output_tokens:,}",
            f"{r.cached_input_tokens:,}",
            _usd(r.cost),
            _usd(r.batch_cost),
            _usd(r.cached_prefix_cost),
            r.price_source,
        )
    console = stdout_console()
    console.print(table)
    for line in plan_notes(details):
        console.print(line)
    if prices_note:
        console.print(prices_note, markup=False, highlight=False)
    for line in cost_totals(rows):
        console.print(line, markup=False, highlight=False)
    console.print(disk.line(), markup=False, highlight=False)
    if any(r.cost is None for r in rows):
        console.print(
            "cost: n/a where neither OpenRouter's list, the registry (price_input_per_mtok, "
            "price_output_per_mtok) nor the packaged price snapshot has a price"
        )
    if missing_keys:
        console.print(f"to run it, set: {', '.join(missing_keys)}")


def _usd(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.2f}"


def cost_totals(rows: list) -> list[str]:
    """The three estimates summed, and what each means (docs/guides/prompt-caching.md)."""

    def total(values: list[float | None]) -> str:
        known = [v for v in values if v is not None]
        left_out = len(values) - len(known)
        if not known:
            return "n/a"
        return f"${sum(known):,.2f}" + (f" ({left_out} rows n/a, left out)" if left_out else "")

    # A study in batch where it can be: rows without a batch mode stay at their online cost.
    in_batch = [r.cost if r.batch_cost is None else r.batch_cost for r in rows]
    online_rows = sum(r.batch_cost is None and r.cost is not None for r in rows)
    return [
        f"cost estimates: online {total([r.cost for r in rows])}, "
        f"batch {total(in_batch)}"
        + (f" ({online_rows} rows without a known batch discount at online)" if online_rows else "")
        + f", cached prefix {total([r.cached_prefix_cost for r in rows])}",
        "batch: online x the share the model's vendor bills through its batch API (OpenAI, "
        "Anthropic: 50%; an OpenRouter model counts by the vendor its id names), n/a where none "
        "is known; cached prefix: online, with prompt prefixes of at least 1,024 tokens that "
        "calls share read at the cached-input rate (n/a where that rate is unknown)",
    ]


def _print_summary(result, paths: dict[str, Path]) -> None:
    out = stdout_console()
    out.print(
        "stage timings: " + ", ".join(f"{k} {v:.1f}s" for k, v in result.stage_seconds.items())
    )
    out.print(f"model calls made: {result.calls_made}")
    for label, path in paths.items():
        out.print(f"{label}: {path}")
    for warning in unscored_warnings(result):
        print(f"warning: {warning}", file=sys.stderr)


def unscored_warnings(result) -> list[str]:
    """A target model whose answers came back but none of which was scored (every verdict
    missing) is named, so a run does not end with an empty ``cells.csv`` without a word."""
    from polistemics.runlog.spool import SpooledAnswers

    answers = result.answers
    if isinstance(answers, SpooledAnswers):
        answered = answers.ok_models()  # counted by the stage's spool, not read back
    else:
        answered = {a.model for a in answers or () if a.ok}
    scored = result.scored
    cells = scored.cells if scored is not None else None
    with_cells = set(cells["model"]) if cells is not None and len(cells) else set()
    return [
        f"{model}: answers were given but no verdict could be scored (scores/cells.csv has no "
        "row for it); run.json's judge_parsing says why"
        for model in sorted(answered - with_cells)
    ]


def register(app: typer.Typer) -> None:
    """Add the ``run`` command to the root app."""
    app.command("run")(run)
