"""Build the report of a finished run or an authors' release folder.

Writes, into the output folder: ``report.html`` (self-contained), ``figures/*.{svg,pdf,png}``
(every figure in the formats of ``ReportOptions.figure_formats``, for papers) and
``tables/*.csv`` (every table, fractions not %). The analysis tables (``polistemics.analyses``)
are written to ``tables/`` first and the page is drawn from what those files hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from polistemics.analyses.run_tables import (
    AnalysisOptions,
    write_run_analysis_tables,
    write_run_score_tables,
)
from polistemics.analyses.tables import (
    AnalysisTables,
    analysis_tables,
    copy_analysis_tables,
    read_analysis_tables,
    write_analysis_tables,
)
from polistemics.csv_tables import write_csv_table
from polistemics.paths import UnsafePathError, output_folder, write_text_replacing
from polistemics.report.browser_files import BrowserData, page_browser, write_browser_files
from polistemics.report.combined_inputs import combine_inputs
from polistemics.report.content import (
    ReportContent,
    ReportOptions,
    ScoreContent,
    build_content,
    score_content,
)
from polistemics.report.cross_election import read_cross_elections, write_cross_tables
from polistemics.report.figures import parse_figure_formats
from polistemics.report.figures.export import saving_figures
from polistemics.report.human_validation import (
    human_validation_stats,
    read_human_validation,
    write_human_validation_tables,
)
from polistemics.report.inputs import ReportInputError, ReportInputs
from polistemics.report.options import REPORT_FILE as REPORT_FILE  # their home before
from polistemics.report.options import RUN_REPORT_FOLDER as RUN_REPORT_FOLDER
from polistemics.report.page import render_page
from polistemics.report.release_inputs import load_release_inputs
from polistemics.report.run_inputs import is_run_dir, load_run_inputs
from polistemics.report.verdict_source import analysis_inputs
from polistemics.runlog import RunDir, RunFileError
from polistemics.scoring.release import variant_folders


def build_report(
    run_dir: Path, out_dir: Path | None = None, options: ReportOptions | None = None
) -> Path:
    """Report of a finished run (default output: ``<run_dir>/report/``); returns the HTML path."""
    run_dir = Path(run_dir)
    return write_report(load_run_inputs(run_dir), out_dir or run_dir / RUN_REPORT_FOLDER, options)


def build_release_report(
    release_folder: Path, out_dir: Path, options: ReportOptions | None = None
) -> Path:
    """Report of an authors' release folder (ablations from ``anon_v1/``, ``en_v1/``)."""
    return write_report(load_release_inputs(Path(release_folder)), Path(out_dir), options)


def build_any(path: Path, out_dir: Path | None, options: ReportOptions | None = None) -> Path:
    """A run directory or a release folder, whichever ``path`` is."""
    path = Path(path)
    if not path.is_dir():
        raise ReportInputError(f"{path}: no such folder")
    if is_run_dir(path):
        return build_report(path, out_dir, options)
    if variant_folders(path):
        return build_release_report(path, out_dir or path / RUN_REPORT_FOLDER, options)
    raise ReportInputError(
        f"{path}: neither a finished run directory (scores/cells.csv) nor an authors' release "
        "folder (scores/<rubric>/aggregated_scores.jsonl)"
    )


def build_combined(paths: list[Path], out_dir: Path, options: ReportOptions | None = None) -> Path:
    """One report of several sources (runs or release folders), each with its own elections:
    every election's sections, then the cross-election deltas."""
    parts = []
    for path in map(Path, paths):
        if not path.is_dir():
            raise ReportInputError(f"{path}: no such folder")
        if is_run_dir(path):
            parts.append(load_run_inputs(path))
        elif variant_folders(path):
            parts.append(load_release_inputs(path))
        else:
            raise ReportInputError(
                f"{path}: neither a finished run directory (scores/cells.csv) nor an authors' "
                "release folder (scores/<rubric>/aggregated_scores.jsonl)"
            )
    return write_report(combine_inputs(parts), Path(out_dir), options)


def write_report(
    inputs: ReportInputs,
    out_dir: Path,
    options: ReportOptions | None = None,
    *,
    scores: ScoreContent | None = None,
    browser: BrowserData | None = None,
) -> Path:
    """Write the report; ``scores``: ``score_content`` of the same inputs, when already made,
    and ``browser``: ``page_browser`` of its browser payload, when made too (the finish makes
    both while its side process writes the tables). Models and elections are named as run.json
    records them unless ``options`` name them."""
    if browser is not None and scores is None:
        raise ValueError("write_report: a page's browser without the scores it was made from")
    options = (options or ReportOptions()).with_recorded_names(inputs.manifest)
    try:
        output_folder(out_dir, ("tables", "figures"))  # no write follows a link out of it
    except UnsafePathError as exc:
        raise ReportInputError(str(exc)) from None
    tables_dir = out_dir / "tables"
    if inputs.run_dir is None:
        write_analysis_tables(_compute(inputs, options)(), tables_dir)
    else:  # one run's: its own tables/ (written first when stale), copied
        run = RunDir(inputs.run_dir)
        compute = _compute(inputs, options)
        try:
            unwritten = write_run_analysis_tables(run, _analysis_options(inputs, options), compute)
            if unwritten is None:
                copy_analysis_tables(run.tables, tables_dir)
            else:
                write_analysis_tables(unwritten, tables_dir)
        except UnsafePathError as exc:  # the run's tables/ or a file in it leads out of it
            raise ReportInputError(str(exc)) from None
    analyses = read_analysis_tables(tables_dir)  # the page shows what the files hold
    scores = scores or score_content(inputs, options)
    written = write_cross_tables(scores.cross_elections, tables_dir)
    cross = read_cross_elections(scores.cross_elections, written, tables_dir, scores.labels)
    human = human_validation_stats(inputs)
    if human is not None:
        human = read_human_validation(
            human, write_human_validation_tables(human, tables_dir), tables_dir
        )
    content = build_content(
        inputs,
        options,
        analyses=analyses,
        scores=scores,
        cross_elections=cross,
        human_validation=human,
    )
    path = out_dir / REPORT_FILE
    # The figure files other than SVG are drawn by worker processes meanwhile.
    with writing_figures(content, out_dir / "figures"):
        for name, table in table_exports(content).items():
            write_csv_table(table, tables_dir / f"{name}.csv")
        if browser is None:
            browser = page_browser(content.browser)
        try:
            write_browser_files(browser, out_dir)  # before the page that loads them
        except UnsafePathError as exc:
            raise ReportInputError(str(exc)) from None
        write_text_replacing(path, render_page(content, browser))
    return path


def _compute(inputs: ReportInputs, options: ReportOptions) -> Callable[[], AnalysisTables]:
    def compute() -> AnalysisTables:
        tally, records = analysis_inputs(inputs)
        return analysis_tables(
            inputs.cells,
            tally=tally,
            judge_records=records,
            items=inputs.items,
            resamples=options.bootstrap_resamples,
            seed=options.seed,
            loo_min_items=options.loo_min_items,
            stance_codes=inputs.stance_codes,
            probes=inputs.probes,
            evidence=inputs.evidence,
            pushback=inputs.pushback,
        )

    return compute


def _analysis_options(inputs: ReportInputs, options: ReportOptions) -> AnalysisOptions:
    return AnalysisOptions(
        resamples=options.bootstrap_resamples,
        seed=options.seed,
        loo_min_items=options.loo_min_items,
        panel_size=inputs.panel_size,
    )


def write_run_tables(inputs: ReportInputs, options: ReportOptions | None = None) -> None:
    """A run's own ``tables/`` folder (``RunDir.tables``): its analysis tables and the score
    tables ``polistemics score`` reads, each written unless already current."""
    write_run_analyses(inputs, options)
    if inputs.run_dir is not None:
        write_score_tables(inputs.run_dir)


def write_run_analyses(inputs: ReportInputs, options: ReportOptions | None = None) -> None:
    """The analysis tables of a run's ``tables/`` folder, written unless already current."""
    if inputs.run_dir is None:
        raise ValueError("write_run_analyses: the inputs are not one run's")
    run, options = RunDir(inputs.run_dir), options or ReportOptions()
    write_run_analysis_tables(run, _analysis_options(inputs, options), _compute(inputs, options))


def write_score_tables(run_dir: Path, cells: pd.DataFrame | None = None) -> None:
    """The score tables of a run's ``tables/`` folder (``polistemics score`` reads them), from
    its files (``scores/cells.csv`` and the exports), written unless already current;
    ``cells``: what ``scores/cells.csv`` holds, when in memory (not read back)."""
    try:
        write_run_score_tables(RunDir(run_dir), cells)
    except RunFileError as exc:
        raise ReportInputError(str(exc)) from None


def write_figures(content: ReportContent, folder: Path) -> list[Path]:
    """Every figure of the report in every format of ``content.options.figure_formats``."""
    with writing_figures(content, folder) as paths:
        return paths


@contextmanager
def writing_figures(content: ReportContent, folder: Path) -> Iterator[list[Path]]:
    """``write_figures`` whose files other than SVG are drawn while the block runs (written
    when it ends: ``figures.export.saving_figures``)."""
    formats = parse_figure_formats(",".join(content.options.figure_formats))
    folder.mkdir(parents=True, exist_ok=True)
    cross = [fig for part in content.cross_elections for fig in part.figures]
    cross += content.mechanisms.figures if content.mechanisms is not None else []
    figures = [
        *(f for _, figures in (*content.elections, *content.findings) for f in figures.all()),
        *cross,
    ]
    with saving_figures(figures, folder, formats) as paths:
        yield paths


def table_exports(content: ReportContent) -> dict[str, pd.DataFrame]:
    """Every table of the report by file name (without ``.csv``)."""
    data = content.data
    tables: dict[str, pd.DataFrame | None] = {
        "standardisation": data.standardisation,
        "environment_counts": data.environments,
        "observation_counts": data.observations,
        "calls": data.calls,
        "stage_seconds": None if data.stage_seconds is None else data.stage_seconds.table,
        "invocations": data.invocations,
        "judging_summary": data.judging,
        "vague_generation": data.vague,
    }
    return {name: table for name, table in tables.items() if table is not None}
