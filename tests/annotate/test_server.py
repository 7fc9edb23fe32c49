"""The annotation app's HTTP API (aiohttp test client): blind items, refusals with reasons,
the reveal after answering, skipping, the Host and content-type guards, and parallel annotators
losing and duplicating nothing."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer, unused_port

from polistemics.annotate.server import HostRefused, build_app, check_host, loopback_hosts
from polistemics.annotate.store import AnnotationStore

from .app_helpers import JUDGES, MODEL, build_demo_run, write_sample

SAMPLE_SIZE = 12


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo_run(tmp_path_factory.mktemp("annotate-app"))


@pytest.fixture
def run_dir(demo_run: Path, tmp_path: Path) -> Path:
    """A private copy of the demo run with a fresh sample of 12 items (the first wants 2)."""
    target = tmp_path / "run"
    shutil.copytree(demo_run, target, ignore=shutil.ignore_patterns("report", "store.sqlite*"))
    write_sample(target, SAMPLE_SIZE)
    with AnnotationStore.open(target) as store, store._lock:
        store._db.execute("UPDATE annotation_sample SET annotators_wanted = 2 WHERE rowid = 1")
    return target


def with_client(
    run_dir: Path, test: Callable[[TestClient], Awaitable[None]], **options: object
) -> None:
    async def main() -> None:
        app = build_app(run_dir, **options)
        async with TestClient(TestServer(app)) as client:
            await test(client)

    asyncio.run(main())


async def label(client: TestClient, **body: object):
    response = await client.post("/api/label", json=body)
    return response.status, await response.json()


async def answer_all(client: TestClient, annotator: str, item: dict, says_yes: bool = True):
    for sq in item["sub_questions"]:
        status, data = await label(
            client,
            annotator=annotator,
            sample_id=item["sample_id"],
            sub_question=sq["code"],
            says_yes=says_yes,
        )
        assert status == 200, data
    return data


def test_items_are_blind_until_every_sub_question_is_answered(run_dir: Path) -> None:
    async def test(client: TestClient) -> None:
        response = await client.get("/api/next", params={"annotator": "Ada"})
        assert response.status == 200
        raw = await response.text()
        payload = json.loads(raw)
        item = payload["item"]
        assert item["sample_id"] == "a0001"
        assert payload["progress"] == {"done": 0, "available": SAMPLE_SIZE}
        assert item["answer"] and item["query"] and item["sub_questions"]
        assert {chunk["label"] for chunk in item["context"]} <= {"[TARGET]", "[DISTRACTOR]"}
        # neither the model nor a judge nor a verdict is in anything the page fetched
        for secret in (MODEL, *JUDGES, "reveal", "majority", "judges_agreed", "stratum"):
            assert secret not in raw, secret

        first, *rest = item["sub_questions"]
        status, data = await label(
            client, annotator="Ada", sample_id="a0001", sub_question=first["code"], says_yes=True
        )
        assert status == 200 and data["complete"] is (not rest)
        partly = await (await client.get("/api/item/a0001", params={"annotator": "Ada"})).text()
        assert MODEL not in partly and "judge-a" not in partly
        assert json.loads(partly)["item"]["labels"] == {
            first["code"]: {"says_yes": True, "note": None}
        }

        for sq in rest:
            status, data = await label(
                client, annotator="Ada", sample_id="a0001", sub_question=sq["code"], says_yes=False
            )
            assert status == 200
        assert data["complete"] is True
        assert data["progress"] == {"done": 1, "available": SAMPLE_SIZE}
        assert data["reveal"]["model"] == MODEL
        assert [seat.split(":", 1)[1] for seat in data["reveal"]["judges"]] == list(JUDGES)
        assert [row["you"] for row in data["reveal"]["rows"]] == ["Yes"] + ["No"] * len(rest)
        revealed = await (await client.get("/api/item/a0001", params={"annotator": "Ada"})).json()
        assert revealed["reveal"] == data["reveal"]
        # another annotator still sees the item blind
        other = await (await client.get("/api/item/a0001", params={"annotator": "Bob"})).text()
        assert MODEL not in other and "reveal" not in other

    with_client(run_dir, test)


@pytest.mark.parametrize(
    ("body", "status", "reason"),
    [
        ({"sample_id": "a9999"}, 400, "not in the run's annotation sample"),
        ({"sub_question": "Z9"}, 400, "unknown sub-question"),
        ({"sub_question": "F4"}, 400, "is not asked for"),  # a0001: not the Noisy environment
        ({"annotator": "   "}, 400, "annotator name is empty"),
        ({"annotator": "x" * 65}, 400, "longer than 64"),
        ({"says_yes": "yes"}, 400, "says_yes"),
        ({"admin": True}, 400, "admin"),
        ({"note": "n" * 4001}, 400, "note is longer"),
    ],
)
def test_bad_labels_are_refused_with_the_reason(
    run_dir: Path, body: dict, status: int, reason: str
) -> None:
    async def test(client: TestClient) -> None:
        item = (await (await client.get("/api/item/a0001", params={"annotator": "Ada"})).json())[
            "item"
        ]
        base = {
            "annotator": "Ada",
            "sample_id": "a0001",
            "sub_question": item["sub_questions"][0]["code"],
            "says_yes": True,
        }
        got_status, data = await label(client, **{**base, **body})
        assert got_status == status
        assert reason in data["error"]

    with_client(run_dir, test)
    with AnnotationStore.open(run_dir) as store:
        assert store.labels() == []


def test_duplicates_and_non_json_posts_are_refused(run_dir: Path) -> None:
    async def test(client: TestClient) -> None:
        body = {"annotator": "Ada", "sample_id": "a0001", "sub_question": "F1", "says_yes": True}
        item = (await (await client.get("/api/item/a0001", params={"annotator": "Ada"})).json())[
            "item"
        ]
        body["sub_question"] = item["sub_questions"][0]["code"]
        assert (await label(client, **body))[0] == 200
        status, data = await label(client, **{**body, "says_yes": False})
        assert status == 409 and "already labelled" in data["error"]
        form = await client.post("/api/label", data=body)  # what a cross-site form could send
        assert form.status == 415
        missing = await client.get("/api/item/a9999", params={"annotator": "Ada"})
        assert missing.status == 404
        nameless = await client.get("/api/next", params={"annotator": ""})
        assert nameless.status == 400 and "empty" in (await nameless.json())["error"]

    with_client(run_dir, test)
    with AnnotationStore.open(run_dir) as store:
        assert [(lab.says_yes, lab.source) for lab in store.labels()] == [(True, "app")]


def test_skipping_moves_on_and_wraps_round(run_dir: Path) -> None:
    async def test(client: TestClient) -> None:
        async def next_id(**params: str) -> str | None:
            payload = await (await client.get("/api/next", params=params)).json()
            return payload["item"] and payload["item"]["sample_id"]

        assert await next_id(annotator="Ada", after="a0001") == "a0002"
        assert await next_id(annotator="Ada", after="a0012") == "a0001"  # wraps round
        first = (await (await client.get("/api/item/a0001", params={"annotator": "Ada"})).json())[
            "item"
        ]
        await answer_all(client, "Ada", first)
        assert await next_id(annotator="Ada", after="a0012") == "a0002"
        # a0002 wants one annotator and Ada started it: after a0001 Bob is given a0003
        second = (await (await client.get("/api/item/a0002", params={"annotator": "Ada"})).json())[
            "item"
        ]
        await label(
            client,
            annotator="Ada",
            sample_id="a0002",
            sub_question=second["sub_questions"][0]["code"],
            says_yes=True,
        )
        assert await next_id(annotator="Bob") == "a0001"  # wants two annotators
        assert await next_id(annotator="Bob", after="a0001") == "a0003"

    with_client(run_dir, test)


def test_two_annotators_posting_in_parallel_lose_and_duplicate_nothing(run_dir: Path) -> None:
    async def test(client: TestClient) -> None:
        with AnnotationStore.open(run_dir) as store:
            sample = store.sample()
        bodies = [
            {"annotator": who, "sample_id": item.sample_id, "sub_question": sq.code,
             "says_yes": (i + len(who)) % 2 == 0, "note": f"{who} on {sq.code}"}
            for who in ("Ada", "Bob")
            for item in sample
            for i, sq in enumerate(item.sub_questions)
        ]  # fmt: skip
        # every label sent twice at once: one of each pair is stored, the other refused
        results = await asyncio.gather(*(label(client, **body) for body in bodies + bodies))
        statuses = [status for status, _ in results]
        assert statuses.count(200) == len(bodies)
        assert statuses.count(409) == len(bodies)
        with AnnotationStore.open(run_dir) as store:
            stored = {
                (lab.annotator, lab.sample_id, lab.sub_question): (lab.says_yes, lab.note)
                for lab in store.labels()
            }
            assert len(store.labels()) == len(bodies)
        assert stored == {
            (b["annotator"], b["sample_id"], b["sub_question"]): (b["says_yes"], b["note"])
            for b in bodies
        }

    with_client(run_dir, test)


def test_page_has_a_strict_policy_no_inline_script_and_says_names_are_not_auth(
    run_dir: Path,
) -> None:
    async def test(client: TestClient) -> None:
        response = await client.get("/")
        html = await response.text()
        policy = response.headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        assert "default-src 'none'" in policy
        assert '<script src="/static/app.js"' in html and "<script>" not in html
        assert "not\n  authentication" in html or "not authentication" in html
        script = await client.get("/static/app.js")
        assert script.status == 200 and "textContent" in await script.text()
        assert "innerHTML" not in await script.text()
        assert (await client.get("/static/../server.py")).status in (403, 404)

    with_client(run_dir, test)


def test_on_loopback_a_foreign_host_header_is_refused(run_dir: Path) -> None:
    async def test(client: TestClient) -> None:
        good = await client.get("/api/next", params={"annotator": "Ada"})
        assert good.status == 200
        rebound = await client.get(
            "/api/next", params={"annotator": "Ada"}, headers={"Host": "evil.example:8080"}
        )
        assert rebound.status == 421

    async def main() -> None:
        port = unused_port()
        app = build_app(run_dir, allowed_hosts=loopback_hosts(port))
        async with TestClient(TestServer(app, host="127.0.0.1", port=port)) as client:
            await test(client)

    asyncio.run(main())


def test_only_loopback_is_served_without_allow_remote() -> None:
    assert check_host("127.0.0.1", allow_remote=False) is None
    assert check_host("::1", allow_remote=False) is None
    assert check_host("localhost", allow_remote=False) is None
    with pytest.raises(HostRefused, match="--allow-remote"):
        check_host("0.0.0.0", allow_remote=False)
    with pytest.raises(HostRefused):
        check_host("192.168.1.20", allow_remote=False)
    assert "warning" in check_host("0.0.0.0", allow_remote=True)


def test_on_another_loopback_address_the_printed_url_is_served(run_dir: Path) -> None:
    async def main() -> tuple[int, int]:
        port = unused_port()
        app = build_app(run_dir, allowed_hosts=loopback_hosts(port, "127.0.0.2"))
        async with TestClient(TestServer(app, host="127.0.0.2", port=port)) as client:
            own = await client.get("/api/next", params={"annotator": "Ada"})
            foreign = await client.get(
                "/api/next", params={"annotator": "Ada"}, headers={"Host": "evil.example"}
            )
            return own.status, foreign.status

    assert asyncio.run(main()) == (200, 421)
    assert "[::1]:80" in loopback_hosts(80, "::1") and "127.0.0.2:80" in loopback_hosts(
        80, "127.0.0.2"
    )
