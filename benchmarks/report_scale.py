"""Report build time at the paper's scale (~13k answers, ~107k judge records), per figure format;
or, with ``--open REPORT_FOLDER``, the time a built report takes to open in Chromium.

Builds the synthetic paper-scale run directory of the test suite (from the authors' Dutch
release, in ../shared), then times ``build_report`` once with each ``--figure-format`` (svg, pdf,
png) and once with all three, and prints each wall time and the page size.

``--open`` opens a report folder's ``report.html`` (read only) in headless Chromium
(``/usr/bin/chromium``, driven by Playwright) ``--repeat`` times, each in a new page, and prints
the page's size, the folder's size, and per open the time from navigation to the item browser
ready (``#item-browser[data-ready=true]``: the first page of answers drawn from its data files),
measured in the page (``performance.now()`` when the attribute turns, from the navigation's
start) and as the harness saw it (``goto`` to the selector found); it fails on any console error, page error or network request.

    python benchmarks/report_scale.py [RELEASE_FOLDER]
    python benchmarks/report_scale.py --open RUN_DIR/report [--repeat 5]
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


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
READY = "#item-browser[data-ready=true]"
# Notes, in the page, the moment the item browser turns ready (ms since the navigation began).
READY_CLOCK = """
new MutationObserver(function (_, observer) {
  var root = document.getElementById("item-browser");
  if (root && root.getAttribute("data-ready") === "true" && window.__readyAt === undefined) {
    window.__readyAt = performance.now();
    observer.disconnect();
  }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-ready"]});
"""


def open_times(folder: Path, repeat: int) -> None:
    """Print the report's sizes and each open's time to the item browser ready."""
    from playwright.sync_api import sync_playwright

    page_path = folder / "report.html"
    if not page_path.is_file():
        raise SystemExit(f"no report.html in {folder}")
    files = [p for p in folder.rglob("*") if p.is_file()]
    print(f"page                  {page_path.stat().st_size / 1e6:.1f} MB")
    print(
        f"report folder         {sum(p.stat().st_size for p in files) / 1e6:.1f} MB "
        f"({len(files)} files)"
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for i in range(repeat):
                in_page, seen, shown, errors = open_once(browser, page_path)
                if errors:
                    raise SystemExit(f"open {i + 1}: errors in the page: {errors[:5]}")
                print(
                    f"open {i + 1}                {in_page:.2f} s to the item browser ready "
                    f"(in the page; {seen:.2f} s as the harness saw it; {shown} answers listed; "
                    "no console error)"
                )
        finally:
            browser.close()


def open_once(browser, page_path: Path) -> tuple[float, float, str | None, list[str]]:
    """One open in a new page: seconds to ready in the page and as seen, the answers listed,
    and every console error, page error and network request."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.add_init_script(READY_CLOCK)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "request",
        lambda r: (
            None if r.url.startswith(("file:", "data:")) else errors.append(f"network: {r.url}")
        ),
    )
    started = time.perf_counter()
    page.goto(page_path.resolve().as_uri())
    page.wait_for_selector(READY, timeout=120_000)
    seen = time.perf_counter() - started
    in_page = page.evaluate("window.__readyAt") / 1000
    shown = page.get_attribute("#b-count", "data-count")
    page.close()
    return in_page, seen, shown, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path, nargs="?", default=RELEASE)
    parser.add_argument("--open", type=Path, help="a report folder: time its opening in Chromium")
    parser.add_argument("--repeat", type=int, default=3, help="with --open: opens (default 3)")
    args = parser.parse_args()
    if args.open is not None:
        open_times(args.open, args.repeat)
        return
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
