"""Time to write every figure of a release's report, per file format (svg, pdf, png).

Builds the report content once (tables and matplotlib figures), then times writing all
figures in each format into a temporary folder. Also prints the time to draw the figures.

    PYTHONPATH=src python benchmarks/figure_formats.py \
        /work/shared/reference/polistemics-v1.0/data/experiments/nl_tk2025_full_v1
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from polistemics.analyses import analysis_tables
from polistemics.report.content import ReportOptions, build_content
from polistemics.report.figures import FIGURE_FORMATS, election_figures
from polistemics.report.release_inputs import load_release_inputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("release", type=Path, help="authors' release experiment folder")
    parser.add_argument("--resamples", type=int, default=200)
    args = parser.parse_args()
    inputs = load_release_inputs(args.release)
    analyses = analysis_tables(inputs.cells, items=inputs.items, resamples=args.resamples)
    options = ReportOptions(bootstrap_resamples=args.resamples)
    content = build_content(inputs, options, analyses=analyses)
    started = time.perf_counter()
    for tables, _ in content.elections:
        election_figures(tables, content.labels)
    print(f"draw all figures (matplotlib Figure objects): {time.perf_counter() - started:.2f} s")
    figures = [fig for _, found in content.elections for fig in found.all()]
    with tempfile.TemporaryDirectory() as folder:
        for fmt in FIGURE_FORMATS:
            started = time.perf_counter()
            for fig in figures:
                fig.save(Path(folder), fmt)
            elapsed = time.perf_counter() - started
            print(f"write {len(figures)} figures as {fmt}: {elapsed:.2f} s")


if __name__ == "__main__":
    main()
