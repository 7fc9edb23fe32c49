"""``polistemics annotate serve`` on a paper-scale run: time to the first item, time per next
item and the server's peak memory (issue 17; targets < 2 s, < 100 ms, < 500 MB).

Builds the test suite's synthetic paper-scale run from the authors' Dutch release (in ../shared;
~13k answers, ~107k judge records), draws a 2,000-item sample with ``polistemics annotate
sample``, then starts the server in its own process twice:

1. API: from starting the process to the first item's JSON (``GET /api/next``), split at the
   moment the server listens; then, over 50 items, the time of each ``GET /api/next`` and of
   each label ``POST /api/label``. Once through the CLI (``polistemics annotate serve``, which
   imports the annotate command's modules), once started directly (``annotate.server.serve`` alone), so
   the CLI's import cost shows apart from the app's;
2. Chromium (when Playwright and Chromium are installed): from starting the process to the first
   item shown in the page, then over 50 items labelled by keyboard the time from pressing → to
   the next item shown.

The server's peak resident memory is its ``VmHWM`` (/proc) just before it is stopped. Times on a
shared, loaded machine are noisy; counts are printed beside them.

    python benchmarks/annotate_app.py [RELEASE_FOLDER] [--n 2000] [--items 50] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from report.synthetic_run import build_synthetic_run  # noqa: E402

RELEASE = REPO.parent / "shared/reference/polistemics-v1.0/data/experiments/nl_tk2025_full_v1"
ENV = {**os.environ, "PYTHONPATH": str(REPO / "src")}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


def lines(path: Path) -> int:
    with path.open(encoding="utf-8") as handle:
        return sum(1 for _ in handle)


def cpu_seconds(pid: int) -> float:
    """User + system CPU the process has used so far (less load-dependent than wall time)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


CLI = [sys.executable, "-m", "polistemics", "annotate", "serve"]
DIRECT = [
    sys.executable,
    "-c",
    "import sys, pathlib; from polistemics.annotate.server import serve; "
    "serve(pathlib.Path(sys.argv[1]), port=int(sys.argv[3]), announce=lambda m: print(m, flush=True))",
]


@contextmanager
def server(
    run_dir: Path, command: list[str] = CLI
) -> Iterator[tuple[subprocess.Popen, str, float]]:
    """The server process, its URL and the perf_counter at which it was started."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [*command, str(run_dir), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        line = child.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        if not found:
            sys.exit(f"server did not start: {line!r}")
        yield child, found.group(0), started
    finally:
        child.kill()
        child.wait()
        child.stdout.close()


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=60) as response:
        return json.load(response)


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {1000 * statistics.median(ordered):.1f} ms, p95 {1000 * p95:.1f} ms"


def api_run(run_dir: Path, items: int, command: list[str], how: str, annotator: str) -> None:
    with server(run_dir, command) as (child, url, started):
        listening = time.perf_counter() - started
        query = urllib.parse.urlencode({"annotator": annotator})
        payload = get(f"{url}api/next?{query}")
        first = time.perf_counter() - started
        print(
            f"API ({how}): process start -> first item's JSON: {first:.2f} s wall, "
            f"{cpu_seconds(child.pid):.2f} s server CPU (listening after {listening:.2f} s, "
            f"first JSON {first - listening:.3f} s later)"
        )
        nexts, labels = [], []
        for _ in range(items):
            item = payload["item"]
            for sq in item["sub_questions"]:
                body = {
                    "annotator": annotator,
                    "sample_id": item["sample_id"],
                    "sub_question": sq["code"],
                    "says_yes": True,
                }
                t = time.perf_counter()
                post(f"{url}api/label", body)
                labels.append(time.perf_counter() - t)
            query = urllib.parse.urlencode({"annotator": annotator, "after": item["sample_id"]})
            t = time.perf_counter()
            payload = get(f"{url}api/next?{query}")
            nexts.append(time.perf_counter() - t)
        print(f"API ({how}): next item over {len(nexts)} items: {ms(nexts)}")
        print(f"API ({how}): label POST over {len(labels)} labels: {ms(labels)}")
        print(f"API ({how}): server peak RSS {peak_rss_mb(child.pid):.0f} MB")


def chromium_run(run_dir: Path, items: int) -> None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("Chromium: skipped (playwright is not installed)")
        return
    if not Path("/usr/bin/chromium").is_file():
        print("Chromium: skipped (/usr/bin/chromium is missing)")
        return
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page = browser.new_page()
        with server(run_dir) as (child, url, started):
            opened = time.perf_counter()
            page.goto(url)
            page.fill("#annotator", "bench-chromium")
            page.press("#annotator", "Enter")
            page.wait_for_selector("#item[data-sample-id]")
            first = time.perf_counter() - started
            print(
                f"Chromium (CLI): process start -> first item shown: {first:.2f} s "
                f"(page opened -> item shown {time.perf_counter() - opened:.3f} s)"
            )
            shown = []
            for _ in range(items):
                before = page.get_attribute("#item", "data-sample-id")
                for _ in range(page.locator("#item-questions li").count()):
                    page.keyboard.press("y")
                page.wait_for_selector("#item[data-complete=true]")
                t = time.perf_counter()
                page.keyboard.press("ArrowRight")
                page.wait_for_function(
                    "before => document.querySelector('#item').dataset.sampleId !== before",
                    arg=before,
                )
                shown.append(time.perf_counter() - t)
            print(f"Chromium: → to next item shown over {len(shown)} items: {ms(shown)}")
            print(f"Chromium: server peak RSS {peak_rss_mb(child.pid):.0f} MB")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path, nargs="?", default=RELEASE)
    parser.add_argument("--n", type=int, default=2000, help="sample size")
    parser.add_argument("--items", type=int, default=50, help="items timed per run")
    parser.add_argument("--keep", type=Path, help="build the run here and keep it")
    args = parser.parse_args()
    if not args.release.is_dir():
        sys.exit(f"{args.release}: the authors' release is not here")
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = build_synthetic_run(args.release, args.keep or Path(tmp) / "run")
        print(
            f"run: {lines(run_dir / 'answers.jsonl'):,} answers, "
            f"{lines(run_dir / 'judges.jsonl'):,} judge records"
        )
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "polistemics", "annotate", "sample", str(run_dir)]
            + ["--n", str(args.n), "--seed", "1", "--json"],
            check=True,
            env=ENV,
            stdout=subprocess.DEVNULL,
        )
        print(f"sample: {args.n} items drawn in {time.perf_counter() - t:.1f} s")
        api_run(run_dir, args.items, CLI, "CLI", "bench-cli")
        api_run(run_dir, args.items, DIRECT, "direct", "bench-direct")
        chromium_run(run_dir, args.items)


if __name__ == "__main__":
    main()
