"""CLI command ``polistemics score PATH``: EMI, Adherence Indices and Rubric Scores per model.

PATH is an experiment folder in the authors' release format (``scores/<rubric>/...``).
Scoring a top folder scores its own (full) variant; ablation subfolders (``anon_v1``,
``en_v1``) are scored by pointing PATH at them or with ``--variant``. Any other source of
scored cells plugs in through ``load_cells``; everything after it works on the cells table.

``--json`` rows carry ``mechanisms`` (issue 16): fallback, first-chunk, prior-accuracy and
follows-evidence rates from a run's stance codes (``scoring.mechanisms.summary``); all null for
a release folder or a run that did not code stances. A run's scores and rates are read from its
``tables/`` (``analyses.run_tables``; computed and written there first when absent or stale).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from polistemics.cli.console import stdout_console
from polistemics.cli.errors import UserError, fail, user_errors
from polistemics.conditions import ENVIRONMENT_ORDER, Variant
from polistemics.rubrics import Rubric
from polistemics.tasks import COMPARISON, ISSUE_MAPPING, NAVIGATION, PARTY_POSITION

if TYPE_CHECKING:
    import pandas as pd

    from polistemics.scoring.summary import ModelScores

# The scoring and analysis modules (pandas, polars) are imported by the functions that use them:
# ``polistemics --help`` imports this module too (tests/cli/test_lazy_commands.py).


@dataclass
class LoadedCells:
    cells: pd.DataFrame
    source: Path
    variant: Variant
    notes: list[str] = field(default_factory=list)
    # a run's scores and mechanism rates, read from its tables/ (None: a release folder: scored
    # from ``cells``; rates None: not a run, or no stance codes)
    scores: list[ModelScores] | None = None
    mechanisms: pd.DataFrame | None = None


def load_cells(path: Path, variant: Variant | None = None) -> LoadedCells:
    """Scored cells from PATH (a run directory or a release experiment folder), for one variant."""
    from polistemics.runlog import RunDir
    from polistemics.scoring.release import is_release_folder, load_release, variant_folders

    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    if RunDir(path).is_finished():
        return _run_cells(path, variant or Variant.FULL)
    if variant is not None:
        folders = variant_folders(path)
        if variant not in folders:
            found = ", ".join(f"{v.value} ({p})" for v, p in folders.items()) or "none"
            raise UserError(
                f"{path}: no release folder for variant '{variant.value}' (found: {found})"
            )
        folder = folders[variant]
    elif is_release_folder(path):
        folder = path
    else:
        below = variant_folders(path)
        hint = f"; below it: {', '.join(str(p) for p in below.values())}" if below else ""
        raise UserError(
            f"{path}: not a release folder (no scores/<rubric>/aggregated_scores.jsonl or item_scores.jsonl){hint}"
        )
    release = load_release(folder, variant)
    return LoadedCells(release.cells, folder, release.variant, release.notes)


def _run_cells(run_dir: Path, variant: Variant) -> LoadedCells:
    """A finished run of ours: its scores with all elections pooled per variant, from its
    ``tables/`` (``analyses.run_tables``: computed and written there when absent or stale)."""
    from polistemics.analyses.model_scores import model_scores_of
    from polistemics.analyses.run_tables import run_score_tables
    from polistemics.paths import UnsafePathError
    from polistemics.runlog import RunDir, RunFileError

    run = RunDir(run_dir)
    try:
        tables = run_score_tables(run)
        cells = run.read_cells()
    except (RunFileError, UnsafePathError) as exc:
        raise UserError(str(exc)) from None
    chosen = cells[cells["variant"] == variant.value]
    notes = []
    elections = sorted(set(chosen["election_id"].dropna()))
    if len(elections) > 1:
        notes.append(f"{len(elections)} elections pooled: {', '.join(elections)}")
    scores = model_scores_of(tables.model_scores, variant.value)
    return LoadedCells(chosen, run_dir, variant, notes, scores, tables.mechanism_rates)


def json_rows(scores: list[ModelScores], mechanisms: pd.DataFrame | None) -> list[dict]:
    """``ModelScores.to_json`` per model, with its ``mechanisms`` rates (null: not measured;
    ``mechanisms``: the ``mechanism_rates`` table)."""
    from polistemics.analyses.model_scores import mechanism_rates_of

    rows = []
    for s in scores:
        rates = mechanism_rates_of(mechanisms, s.variant, s.model)
        rows.append(s.to_json() | {"mechanisms": rates.to_json(), "task": PARTY_POSITION})
    return rows


def navigation_rows(run_dir: Path) -> list[dict]:
    """A run's navigation scores (issue 29), one row per model with ``task`` "navigation", read
    from its ``tables/``; none for a run without the task or a release folder."""
    from polistemics.analyses.navigation import read_navigation_tables
    from polistemics.runlog import RunDir

    tables = read_navigation_tables(RunDir(run_dir).tables) if run_dir.is_dir() else None
    return task_rows(tables, NAVIGATION) if tables is not None else []


def comparison_rows(run_dir: Path) -> list[dict]:
    """A run's comparison scores (issue 29), one row per model with ``task`` "comparison"."""
    from polistemics.analyses.comparison import read_comparison_tables
    from polistemics.runlog import RunDir

    tables = read_comparison_tables(RunDir(run_dir).tables) if run_dir.is_dir() else None
    return task_rows(tables, COMPARISON) if tables is not None else []


def issue_mapping_rows(run_dir: Path) -> list[dict]:
    """A run's issue-mapping scores (issue 29), as ``navigation_rows``."""
    from polistemics.analyses.issue_mapping import read_issue_mapping_tables
    from polistemics.runlog import RunDir

    tables = read_issue_mapping_tables(RunDir(run_dir).tables) if run_dir.is_dir() else None
    return [] if tables is None else task_rows(tables, ISSUE_MAPPING)


def task_rows(tables: dict[str, pd.DataFrame], task: str) -> list[dict]:
    """One row per model from a task's ``<task>_emi``, ``_adherence`` and ``_scores`` tables."""
    rows = []
    for model, emi in tables[f"{task}_emi"].groupby("model", sort=True)["emi"]:
        adherence = tables[f"{task}_adherence"].query("model == @model")
        rubrics = tables[f"{task}_scores"].query("model == @model")
        rows.append(
            {
                "model": model,
                "variant": Variant.FULL.value,
                "emi": float(emi.iloc[0]),
                "adherence": dict(
                    zip(adherence.environment, adherence.adherence.astype(float), strict=True)
                ),
                "rubrics": {
                    env: dict(zip(group.rubric, group.score.astype(float), strict=True))
                    for env, group in rubrics.groupby("environment", sort=False)
                },
                "task": task,
            }
        )
    return rows


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def render_table(scores: list[ModelScores], title: str, console: Console) -> None:
    environments = [e for e in ENVIRONMENT_ORDER if any(e.value in s.adherence for s in scores)]
    table = Table(title=f"{title}: EMI and Adherence Index (%)")
    table.add_column("Model", no_wrap=True)
    table.add_column("EMI", justify="right")
    for env in environments:
        table.add_column(env.label, justify="right")
    for s in scores:
        table.add_row(
            s.model, _percent(s.emi), *(_percent(s.adherence.get(e.value)) for e in environments)
        )
    console.print(table)

    rubrics = Table(title=f"{title}: Rubric Scores (%)")
    rubrics.add_column("Model", no_wrap=True)
    rubrics.add_column("Rubric")
    for env in environments:
        rubrics.add_column(env.label, justify="right")
    for s in scores:
        for rubric in Rubric:
            values = [s.rubrics.get(e.value, {}).get(rubric.value) for e in environments]
            if any(v is not None for v in values):
                rubrics.add_row(s.model, rubric.abbreviation, *(_percent(v) for v in values))
    console.print(rubrics)


def score(
    path: Annotated[
        Path,
        typer.Argument(
            help="A run directory, or a release experiment folder (scores/<rubric>/...)."
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print a JSON list per model (fractions, not %).")
    ] = False,
    variant: Annotated[
        Variant | None,
        typer.Option(
            help="Score this variant's folder at or directly below PATH (full, anon, en)."
        ),
    ] = None,
) -> None:
    """Score judged answers: EMI, Adherence Index per environment and Rubric Scores per model."""
    from polistemics.scoring.errors import ScoringError
    from polistemics.scoring.summary import score_cells

    with user_errors(ScoringError):
        loaded = load_cells(path, variant)
        scores = loaded.scores if loaded.scores is not None else score_cells(loaded.cells)
    for note in loaded.notes:
        print(f"note: {note}", file=sys.stderr)
    if not scores:
        fail(f"{loaded.source}: no scored cells")
    if as_json:
        rows = json_rows(scores, loaded.mechanisms)
        if loaded.variant is Variant.FULL:
            rows += navigation_rows(loaded.source)
            rows += comparison_rows(loaded.source)
            rows += issue_mapping_rows(loaded.source)
        typer.echo(json.dumps(rows, indent=2))
        return
    render_table(scores, f"{loaded.source.name} ({loaded.variant.value})", stdout_console())


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
    app.command("score")(score)
