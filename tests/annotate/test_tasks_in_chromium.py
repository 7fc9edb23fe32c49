"""The annotation app's task filter in headless Chromium (issue 29): with a sample of the
paper's task and the navigation task, an annotator picks "Navigation", gets only navigation
items (the header names the task, the context is labelled by party), labels one by keyboard,
and the page logs no error."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from polistemics.annotate.sample import SampleOptions, draw_task_samples
from polistemics.annotate.store import AnnotationStore
from report.test_page_in_chromium import browser  # noqa: F401 (the shared Chromium fixture)
from task_runs import navigation_run

from .test_app_in_chromium import Annotator, served

N = 4


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tasks-chromium")

    def build() -> Path:  # in a worker thread: Playwright's event loop is not in the way
        run = navigation_run(folder, statements="[1, 2]")
        items, _ = draw_task_samples(
            run, SampleOptions(n=N, overlap_share=0.0), ["party_position", "navigation"]
        )
        with AnnotationStore.open(run) as store:
            store.write_sample(items)
        return run

    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(build).result()


def test_an_annotator_filters_to_the_navigation_task(browser, run_dir: Path) -> None:  # noqa: F811
    with served(run_dir) as (_, url):
        annotator = Annotator(browser, url, "ann")
        page = annotator.page
        assert page.locator("#item-task").text_content() == "Party position"
        page.select_option("#task-filter", "navigation")
        page.wait_for_function(
            "() => document.querySelector('#item-task').textContent === 'Navigation'"
        )
        first = annotator.sample_id
        assert int(first[1:]) > N  # the navigation items follow the paper task's in the sample
        labels = page.locator("#item-context .chunk-label").all_text_contents()
        assert labels and all(label.startswith(("[TARGET: ", "[DISTRACTOR]")) for label in labels)
        codes = annotator.codes()
        assert codes and all(code.startswith(("NF", "NEC")) for code in codes)
        annotator.label_item([False] * len(codes), note=None)
        page.wait_for_function(
            "before => document.querySelector('#item').dataset.sampleId !== before",
            arg=first,
        )
        assert page.locator("#item-task").text_content() == "Navigation"
        assert annotator.errors == []
        annotator.close()
    with AnnotationStore.open(run_dir) as store:
        assert {label.sample_id for label in store.labels()} == {first}
