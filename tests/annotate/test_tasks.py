"""The annotation app per task (issue 29): a sample may hold the navigation task's judged
answers beside the paper's; an annotator filters by task and sees a navigation item as its
judges saw it (the query listing the parties, the party-labelled context, the task's own
sub-questions), blind; labels are checked against the task's table; the statistics keep to the
paper's task and say what they leave out; an item of the paper's task is exported as before."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from polistemics.annotate.item_view import run_views
from polistemics.annotate.jsonl_io import export_lines
from polistemics.annotate.sample import SampleOptions, draw_task_samples
from polistemics.annotate.server import build_app
from polistemics.annotate.stats import annotation_stats
from polistemics.annotate.store import AnnotationStore, LabelRefused
from polistemics.runlog.navigation import read_navigation_files
from polistemics.tasks import TASKS
from task_runs import navigation_run

PAPER, NAVIGATION = "party_position", "navigation"
N = 5


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = navigation_run(tmp_path_factory.mktemp("annotate-tasks"), statements="[1, 2]")
    options = SampleOptions(n=N, seed=3, overlap_share=0.0)
    items, designs = draw_task_samples(run, options, [PAPER, NAVIGATION])
    with AnnotationStore.open(run) as store:
        store.write_sample(items)
    run_views(run, reload=True)
    return run


def _sample(run_dir: Path):
    with AnnotationStore.open(run_dir) as store:
        return store.sample()


def test_the_sample_draws_each_task_in_its_own_strata_and_ids_run_on(run_dir: Path) -> None:
    sample = _sample(run_dir)
    tasks = [item.task for item in sample]
    assert tasks == [PAPER] * N + [NAVIGATION] * N
    assert [item.sample_id for item in sample] == [f"a{i:04d}" for i in range(1, 2 * N + 1)]
    keys = {item.key for item in read_navigation_files(run_dir).items}
    for item in sample[N:]:
        assert item.item_key in keys and item.stratum.endswith(f"|{NAVIGATION}")
        codes = {sq.code for sq in item.sub_questions}
        assert codes <= {sq.code for sq in TASKS[NAVIGATION].sub_questions} and codes
    one, _ = draw_task_samples(run_dir, SampleOptions(n=N, seed=3, overlap_share=0.0), [PAPER])
    assert [i.model_dump() for i in one] == [i.model_dump() for i in sample[:N]]


def _with_client(run_dir: Path, test) -> None:
    async def main() -> None:
        async with TestClient(TestServer(build_app(run_dir))) as client:
            await test(client)

    asyncio.run(main())


def test_an_annotator_filters_by_task_and_sees_the_navigation_item_blind(run_dir: Path) -> None:
    async def test(client: TestClient) -> None:
        page = await (await client.get("/")).text()
        assert '<select id="task-filter">' in page and "Navigation (5 items)" in page
        response = await client.get("/api/next", params={"annotator": "ann", "task": NAVIGATION})
        raw = await response.text()
        item = json.loads(raw)["item"]
        assert item["task"] == NAVIGATION and item["task_label"] == "Navigation"
        assert item["query"].startswith("Which of the following parties agree")
        assert all(c["label"].startswith(("[TARGET: ", "[DISTRACTOR]")) for c in item["context"])
        assert {sq["code"] for sq in item["sub_questions"]} <= {"NF1", "NF2", "NF3", "NF4"} | {
            "NEC1",
            "NEC2",
            "NEC3",
            "NEC4",
        }
        # the target model is named "target", as the chunks' role is: its key must not show
        for secret in ('"model"', "judge-a", "majority", "stratum", "judges_agreed"):
            assert secret not in raw, secret
        paper = await client.get("/api/next", params={"annotator": "ann", "task": PAPER})
        assert (await paper.json())["item"]["task"] == PAPER
        bad = await client.get("/api/next", params={"annotator": "ann", "task": "nope"})
        assert bad.status == 400
        code = item["sub_questions"][0]["code"]
        body = {"annotator": "ann", "sample_id": item["sample_id"], "says_yes": False}
        ok = await client.post("/api/label", json={**body, "sub_question": code})
        assert ok.status == 200
        refused = await client.post("/api/label", json={**body, "sub_question": "F1"})
        assert refused.status == 400
        assert "of the Navigation task" in (await refused.json())["error"]

    _with_client(run_dir, test)


def test_labels_follow_the_tasks_table_and_the_statistics_keep_to_the_paper(
    run_dir: Path,
) -> None:
    sample = _sample(run_dir)
    navigation = sample[-1]
    with AnnotationStore.open(run_dir) as store:
        with pytest.raises(LabelRefused, match="not asked for"):
            inactive = next(
                sq.code
                for sq in TASKS[NAVIGATION].sub_questions
                if sq not in navigation.sub_questions
            )
            store.add_label("bea", navigation.sample_id, inactive, True)
        store.add_label("bea", navigation.sample_id, navigation.sub_questions[0].key, True)
    stats = annotation_stats(run_dir)
    assert stats.n_sample == N
    assert any("tasks beyond the paper's" in note for note in stats.notes)


def test_an_item_of_the_paper_task_is_exported_as_before(run_dir: Path) -> None:
    lines = [json.loads(line) for line in export_lines(run_dir)]
    items = [line for line in lines if line["type"] == "item"]
    assert all("task" not in line for line in items[:N])
    assert all(line["task"] == NAVIGATION for line in items[N:])
