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
from typing import TYPE_CHECKING, TypeVar

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
    write_analysis_tables,
)
from polistemics.paths import inside
from polistemics.runlog import RunDir
from polistemics.scoring.mechanisms import mechanism_tables

if TYPE_CHECKING:
    import pandas as pd

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
    files = [
        run.cells,
        run.judges,
        run.stance_codes,
        run.prior_probe,
        run.evidence,
        *run.release_item_files(),
    ]
    if run.pushback.is_file():  # only then: a run without pushback keeps its fingerprint
        files += [run.pushback, run.pushback_judges, run.pushback_codes]
    return {path.relative_to(run.root).as_posix(): path for path in files}


def analyses_fingerprint(run: RunDir, options: AnalysisOptions) -> str:
    return fingerprint.fingerprint(SCHEMAS.values(), input_files(run), vars(options))


def scores_fingerprint(run: RunDir) -> str:
    return fingerprint.fingerprint(SCORE_SCHEMAS, input_files(run), {})


def _refreshed(
    run: RunDir,
    group: str,
    print_: str,
    compute: Callable[[], T],
    write: Callable[[T, Path], object],
) -> tuple[Path, T | None]:
    """The run's ``tables/`` folder, with ``group`` computed, written and recorded there when it
    was not current; and the computed tables when the folder could not be written to (a run one
    may read but not write: its files are left as they were), else None."""
    folder = inside(run.root, run.tables.name)  # a tables/ link leading out is refused
    if fingerprint.is_current(folder, group, print_):
        return folder, None
    computed = compute()
    try:
        folder.mkdir(exist_ok=True)
        fingerprint.forget(folder, group)
        write(computed, folder)
        fingerprint.record(folder, group, print_)
    except PermissionError:
        return folder, computed
    return folder, None


def write_run_analysis_tables(
    run: RunDir, options: AnalysisOptions, compute: Callable[[], AnalysisTables]
) -> AnalysisTables | None:
    """The run's analysis tables in ``tables/``, made by ``compute`` unless current. None when
    the files hold them; the computed tables when ``tables/`` could not be written to."""
    print_ = analyses_fingerprint(run, options)
    return _refreshed(run, ANALYSES, print_, compute, write_analysis_tables)[1]


def score_tables_of_files(run: RunDir, cells: pd.DataFrame | None = None) -> ScoreTables:
    """The score tables from the run's files: its cells, and the mechanism analyses of its
    exported items, stance codes and probe answers (``RunFileError``: a file is unreadable).
    ``cells``: what ``scores/cells.csv`` holds, when the caller has them in memory (the finish,
    which has just written them): not read back, no second frame of every cell (issue 32)."""
    if cells is None:
        cells = run.read_cells(compact=True)  # coded as read: no plain frame of every cell
    records = run.read_stance_codes()
    mechanisms = (
        None
        if records is None
        else mechanism_tables(run.read_items(), records, cells, probes=run.read_prior_probe() or [])
    )
    return score_tables(cells, mechanisms)


def _scores(run: RunDir, cells: pd.DataFrame | None = None) -> tuple[Path, ScoreTables | None]:
    print_ = scores_fingerprint(run)
    return _refreshed(
        run, SCORES, print_, lambda: score_tables_of_files(run, cells), write_score_tables
    )


def write_run_score_tables(run: RunDir, cells: pd.DataFrame | None = None) -> None:
    """The run's score tables in ``tables/``, computed from its files unless current;
    ``cells``: those of ``scores/cells.csv`` when in memory (``score_tables_of_files``)."""
    _scores(run, cells)


def run_score_tables(run: RunDir) -> ScoreTables:
    """The run's score tables as read from ``tables/`` (written first when stale)."""
    folder, unwritten = _scores(run)
    return unwritten if unwritten is not None else read_score_tables(folder)
