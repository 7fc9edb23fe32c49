"""Report build time at the paper's scale (~13k answers, ~107k judge records), per figure format.

Builds the synthetic paper-scale run directory of the test suite (from the authors' Dutch
release, in ../shared), then times ``build_report`` once with each ``--figure-format`` (svg, pdf,
png) and once with all three, and prints each wall time and the page size.

    python benchmarks/report_scale.py [RELEASE_FOLDER]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The test suite's helpers, imported as top-level modules: ppi-python (a dev dependency)
# installs a package named "tests" that would shadow ours.
sys.path.insert(0, str(REPO / "tests"))

from polistemics.report.build import build_report  # noqa: E402
from polistemics.report.content import ReportOptions  # noqa: E402
from report.synthetic_run import build_synthetic_run  # noqa: E402

RELEASE = REPO.parent / "shared/reference/polistemics-v1.0/data/experiments/nl_tk2025_full_v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path, nargs="?", default=RELEASE)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = build_synthetic_run(args.release, Path(tmp) / "run")
        with (run_dir / "answers.jsonl").open(encoding="utf-8") as handle:
            answers = sum(1 for _ in handle)
        print(f"answers               {answers}")
        for formats in (("svg",), ("pdf",), ("png",), ("svg", "pdf", "png")):
            out = Path(tmp) / f"report-{'-'.join(formats)}"
            started = time.perf_counter()
            page = build_report(run_dir, out, ReportOptions(figure_formats=formats))
            elapsed = time.perf_counter() - started
            figures = sum(1 for _ in (out / "figures").iterdir())
            print(
                f"{','.join(formats):<21} {elapsed:5.1f} s  ({figures} figure files, page "
                f"{page.stat().st_size / 1e6:.1f} MB)"
            )


if __name__ == "__main__":
    main()
