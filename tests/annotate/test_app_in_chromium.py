"""The annotation app in headless Chromium, against the real server in its own process.

Two annotators label ten items each by keyboard only, side by side, and never see a verdict;
the server is then killed with SIGKILL and restarted: every label typed is in the store and in
the export, and each annotator continues at their eleventh item. With ``--reveal`` the verdicts
show only once the annotator's whole assignment is done. Hostile item text renders as text.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from polistemics.annotate.store import AnnotationStore
from report.test_page_in_chromium import browser  # noqa: F401 (the shared Chromium fixture)

from .app_helpers import build_demo_run, write_sample
from .small_run import HOSTILE, build_small_run

SRC = Path(__file__).resolve().parents[2] / "src"
ITEMS_EACH = 10


@contextmanager
def served(run_dir: Path, *options: str) -> Iterator[tuple[subprocess.Popen, str]]:
    """``polistemics annotate serve RUN --port 0 [options]`` in a child process, and its URL."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = ["annotate", "serve", str(run_dir), "--port", "0", *options]
    child = subprocess.Popen(
        [sys.executable, "-m", "polistemics", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = child.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, f"no URL in {line!r}; stderr: {child.stderr.read() if child.poll() else ''}"
        yield child, found.group(0)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=30)
        child.stdout.close()
        child.stderr.close()


class Annotator:
    """One annotator's page, every console error and page error collected."""

    def __init__(self, browser, url: str, name: str):  # noqa: F811 (the fixture's value)
        self.context = browser.new_context(viewport={"width": 1280, "height": 1000})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.open(url, name)

    def open(self, url: str, name: str) -> None:
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready=true]")
        if self.page.input_value("#annotator") != name:
            self.page.fill("#annotator", name)
            self.page.press("#annotator", "Enter")
        self.page.wait_for_selector("#item[data-sample-id]")

    @property
    def sample_id(self) -> str:
        return self.page.get_attribute("#item", "data-sample-id")

    def codes(self) -> list[str]:
        return self.page.locator("#item-questions li").evaluate_all(
            "rows => rows.map(r => r.dataset.code)"
        )

    def label_item(self, answers: list[bool], note: str | None) -> None:
        """Y/N for each sub-question in order, typed without waiting for the server, the first
        with a note; then → to the next item once all are saved."""
        keys = self.page.keyboard
        first = self.page.locator("#item-questions li").first
        assert "focused" in (first.get_attribute("class") or "")
        for i, says_yes in enumerate(answers):
            if i == 0 and note is not None:
                keys.press("t")
                keys.type(note)
                keys.press("Enter")
            keys.press("y" if says_yes else "n")
        self.page.wait_for_selector("#item[data-complete=true]")
        assert self.page.locator("#item-questions li.answered").count() == len(answers)
        before = self.sample_id
        keys.press("ArrowRight")
        self.page.wait_for_function(
            "before => document.querySelector('#item')?.dataset.sampleId !== before "
            "|| !document.querySelector('#done').hidden",
            arg=before,
        )

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo_run(tmp_path_factory.mktemp("annotate-chromium"))


def stored_labels(run_dir: Path) -> dict[tuple[str, str, str], tuple[bool, str | None]]:
    with AnnotationStore.open(run_dir) as store:
        return {
            (lab.annotator, lab.sample_id, lab.sub_question): (lab.says_yes, lab.note)
            for lab in store.labels()
        }


def exported_labels(run_dir: Path) -> dict[tuple[str, str, str], tuple[bool, str | None]]:
    out = subprocess.run(
        [sys.executable, "-m", "polistemics", "annotate", "export", str(run_dir)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    ).stdout
    labels = {}
    for line in out.splitlines():
        row = json.loads(line)
        if row["type"] == "label":
            says_yes = {"Yes": True, "No": False}[row["says_yes"]]
            labels[(row["annotator"], row["sample_id"], row["sub_question"])] = (
                says_yes,
                row["note"],
            )
    return labels


def test_two_annotators_label_by_keyboard_and_survive_sigkill(
    browser,  # noqa: F811
    demo_run: Path,
    tmp_path: Path,
) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(demo_run, run_dir, ignore=shutil.ignore_patterns("report", "store.sqlite*"))
    write_sample(run_dir, 2 * ITEMS_EACH + 4, wanted=2)  # both label the same items
    typed: dict[tuple[str, str, str], tuple[bool, str | None]] = {}
    names = ("Ada <b>Lovelace</b>", "Bob")

    with served(run_dir) as (child, url):
        pages = [Annotator(browser, url, name) for name in names]
        for number in range(ITEMS_EACH):
            for who, (name, page) in enumerate(zip(names, pages, strict=True)):
                sample_id, codes = page.sample_id, page.codes()
                assert sample_id == f"a{number + 1:04d}"
                answers = [(number + i + who) % 3 != 0 for i in range(len(codes))]
                note = f"note {number} by {name}" if number % 3 == 0 else None
                progress = page.page.inner_text("#progress")
                assert progress == f"{number} of {2 * ITEMS_EACH + 4} done"
                page.label_item(answers, note)
                for i, (code, says_yes) in enumerate(zip(codes, answers, strict=True)):
                    typed[(name, sample_id, code)] = (says_yes, note if i == 0 else None)
        assert pages[0].page.inner_text("#progress") == f"{ITEMS_EACH} of 24 done"
        # without --reveal the judges are never shown, not even on an answered item
        pages[1].page.keyboard.press("ArrowLeft")
        pages[1].page.wait_for_selector(f"#item[data-sample-id=a{ITEMS_EACH:04d}]")
        assert pages[1].page.is_hidden("#reveal")
        assert "target-a" not in pages[1].page.content()
        pages[1].page.keyboard.press("ArrowRight")
        pages[1].page.wait_for_selector(f"#item[data-sample-id=a{ITEMS_EACH + 1:04d}]")
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)

    assert len({(name, sample_id) for name, sample_id, _ in typed}) == 2 * ITEMS_EACH
    assert stored_labels(run_dir) == typed

    with served(run_dir) as (_, url):
        for name, page in zip(names, pages, strict=True):
            page.open(url, name)  # a new origin (port): the name is entered again
            assert page.sample_id == f"a{ITEMS_EACH + 1:04d}"
            assert page.page.inner_text("#progress") == f"{ITEMS_EACH} of 24 done"
            assert page.page.is_hidden("#reveal")
            assert page.errors == [], page.errors
            page.close()
    assert exported_labels(run_dir) == typed


def test_with_reveal_the_verdicts_show_only_after_the_whole_assignment(
    browser,  # noqa: F811
    demo_run: Path,
    tmp_path: Path,
) -> None:
    """``--reveal`` (issue 27): an annotator who went back to answered items saw no verdict
    until every item of theirs was done; then the page lists the panel's verdicts."""
    run_dir = tmp_path / "run"
    shutil.copytree(demo_run, run_dir, ignore=shutil.ignore_patterns("report", "store.sqlite*"))
    size = 3
    write_sample(run_dir, size)
    with served(run_dir, "--reveal") as (_, url):
        page = Annotator(browser, url, "Ada")
        assert "only\n  after you have finished every item" in page.page.content() or (
            "after you have finished every item" in page.page.inner_text("#reveal-policy")
        )
        for number in range(1, size):
            page.label_item([True] * len(page.codes()), None)
            page.page.keyboard.press("ArrowLeft")
            page.page.wait_for_selector(f"#item[data-sample-id=a{number:04d}]")
            assert page.page.is_hidden("#reveal")
            assert "target-a" not in page.page.content()
            page.page.keyboard.press("ArrowRight")
            page.page.wait_for_selector(f"#item[data-sample-id=a{number + 1:04d}]")
        page.label_item([False] * len(page.codes()), None)
        page.page.wait_for_selector("#reveals:not([hidden])")
        assert page.page.locator("#reveals-list article").count() == size
        assert "target-a" in page.page.inner_text("#reveals")
        page.page.keyboard.press("ArrowLeft")
        page.page.wait_for_selector("#reveal:not([hidden])")
        assert "target-a" in page.page.inner_text("#reveal")
        assert page.errors == [], page.errors
        page.close()


def test_hostile_item_text_renders_as_text(browser, tmp_path: Path) -> None:  # noqa: F811
    run_dir = build_small_run(tmp_path / "hostile", hostile=True)
    write_sample(run_dir, 3)
    with served(run_dir) as (_, url):
        page = Annotator(browser, url, "<script>window.pwned=3</script>")
        shown = page.page.inner_text("#item")
        assert HOSTILE in page.page.inner_text("#item-answer")
        assert HOSTILE in shown
        assert page.page.locator("#item img, #item script").count() == 0
        assert page.page.evaluate("typeof window.pwned") == "undefined"
        assert page.page.evaluate("typeof window.alerted") == "undefined"
        assert page.page.inner_text("#whoami") == "Labelling as <script>window.pwned=3</script>"
        page.page.keyboard.press("y")
        page.page.wait_for_selector("#item-questions li.answered")
        assert page.errors == []
        page.close()
