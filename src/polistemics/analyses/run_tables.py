"""A run's own ``tables/`` folder (``runlog.RunDir.tables``): its analysis tables and score
tables, written once (by the run's finish step) and read back by ``polistemics report RUN`` and
``polistemics score RUN`` while they are current.

Two groups, each with its own fingerprint in ``tables/manifest.json`` (``fingerprint``):
``analyses`` (``AnalysisTables``: the run's input files, the bootstrap's resamples and seed, the
leave-one-out gate and the panel size) and ``scores`` (``ScoreTables``: the input files only).
A group that is absent or stale (other inputs, other options, other schemas) is computed again
and rewritten by whichever reader needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from polistemics.analyses import fingerprint
from polistemics.analyses.model_scores import SCHEMAS as SCORE_SCHEMAS
from polistemics.analyses.model_scores import (
    ScoreTables,
    read_score_tables,
    score_tables,
    write_score_tables,
)
from polistemics.analyses.tables import (
    SCHEMAS,
    AnalysisTables,
    read_analysis_tables,
    write_analysis_tables,
)
from polistemics.paths import inside
from polistemics.runlog import RunDir
from polistemics.scoring.mechanisms import mechanism_tables

ANALYSES, SCORES = "analyses", "scores"
T = TypeVar("T")


@dataclass(frozen=True)
class AnalysisOptions:
    """What changes the analysis tables besides the run's files."""

    resamples: int
    seed: int
    loo_min_items: int | None
    panel_size: int  # the judge panel's size the votes were tallied with (0: no verdicts)


def input_files(run: RunDir) -> dict[str, Path]:
    """Every file of the run the tables are computed from, by its name in the run."""
    files = [run.cells, run.judges, run.stance_codes, run.prior_probe, *run.release_item_files()]
    return {path.relative_to(run.root).as_posix(): path for path in files}


def analyses_fingerprint(run: RunDir, options: AnalysisOptions) -> str:
    return fingerprint.fingerprint(SCHEMAS.values(), input_files(run), vars(options))


def scores_fingerprint(run: RunDir) -> str:
    return fingerprint.fingerprint(SCORE_SCHEMAS, input_files(run), {})


def _current(
    run: RunDir,
    group: str,
    print_: str,
    compute: Callable[[], T],
    write: Callable[[T, Path], object],
    read: Callable[[Path], T],
) -> T:
    """The group as read from ``folder`` when current; else computed, written, recorded and
    read back (what a reader gets is always what the files hold). A run folder one may not
    write to gets the computed tables, and its files are left as they were."""
    folder = inside(run.root, run.tables.name)  # a tables/ link leading out is refused
    if fingerprint.is_current(folder, group, print_):
        return read(folder)
    computed = compute()
    try:
        folder.mkdir(exist_ok=True)
        fingerprint.forget(folder, group)
        write(computed, folder)
        fingerprint.record(folder, group, print_)
    except PermissionError:  # a run one may read but not write: its tables stay as they were
        return computed
    return read(folder)


def run_analysis_tables(
    run: RunDir, options: AnalysisOptions, compute: Callable[[], AnalysisTables]
) -> AnalysisTables:
    """The run's analysis tables from ``tables/``; ``compute`` makes them when stale."""
    return _current(
        run,
        ANALYSES,
        analyses_fingerprint(run, options),
        compute,
        write_analysis_tables,
        read_analysis_tables,
    )


def score_tables_of_files(run: RunDir) -> ScoreTables:
    """The score tables from the run's files: its cells, and the mechanism analyses of its
    exported items, stance codes and probe answers (``RunFileError``: a file is unreadable)."""
    cells = run.read_cells()
    records = run.read_stance_codes()
    mechanisms = (
        None
        if records is None
        else mechanism_tables(run.read_items(), records, cells, probes=run.read_prior_probe() or [])
    )
    return score_tables(cells, mechanisms)


def run_score_tables(run: RunDir) -> ScoreTables:
    """The run's score tables from ``tables/``, computed from its files when stale."""
    return _current(
        run,
        SCORES,
        scores_fingerprint(run),
        lambda: score_tables_of_files(run),
        write_score_tables,
        read_score_tables,
    )
