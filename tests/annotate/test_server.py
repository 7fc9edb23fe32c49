"""The annotation app's HTTP API (aiohttp test client): blind items, refusals with reasons,
the panel's verdicts never shown by default and, with ``reveal``, only after an annotator's
whole assignment (labels after a reveal refused and not counted), skipping, the Host and content-type guards, and parallel annotators
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


SECRETS = (MODEL, *JUDGES, "reveal", "majority", "judges_agreed", "stratum")


def assert_blind(raw: str) -> None:
    """Neither the model nor a judge nor a verdict is in what the page fetched."""
    for secret in SECRETS:
        assert secret not in raw, secret


async def fetch(client: TestClient, path: str, annotator: str) -> tuple[str, dict]:
    response = await client.get(path, params={"annotator": annotator})
    assert response.status == 200
    raw = await response.text()
    return raw, json.loads(raw)


async def label_item(client: TestClient, annotator: str, sample_id: str) -> list[str]:
    """Answer every sub-question of the item; the raw answers, each checked to be 200."""
    _, payload = await fetch(client, f"/api/item/{sample_id}", annotator)
    raws = []
    for i, sq in enumerate(payload["item"]["sub_questions"]):
        response = await client.post(
            "/api/label",
            json={
                "annotator": annotator,
                "sample_id": sample_id,
                "sub_question": sq["code"],
                "says_yes": i % 2 == 0,
            },
        )
        raws.append(await response.text())
        assert response.status == 200, raws[-1]
    return raws


def test_by_default_no_verdict_is_ever_shown(run_dir: Path) -> None:
    """Issue 27: the reveal came after each answered item, so an annotator learnt the panel's
    verdicts while still labelling. Without --reveal nothing shows them, even once every item
    is done."""

    async def test(client: TestClient) -> None:
        raw, payload = await fetch(client, "/api/next", "Ada")
        assert_blind(raw)
        item = payload["item"]
        assert item["sample_id"] == "a0001"
        assert payload["progress"] == {"done": 0, "available": SAMPLE_SIZE}
        assert item["answer"] and item["query"] and item["sub_questions"]
        assert {chunk["label"] for chunk in item["context"]} <= {"[TARGET]", "[DISTRACTOR]"}

        first, *rest = item["sub_questions"]
        status, data = await label(
            client, annotator="Ada", sample_id="a0001", sub_question=first["code"], says_yes=True
        )
        assert status == 200 and data["complete"] is (not rest)
        partly, partly_payload = await fetch(client, "/api/item/a0001", "Ada")
        assert_blind(partly)
        assert partly_payload["item"]["labels"] == {first["code"]: {"says_yes": True, "note": None}}
        for sq in rest:
            response = await client.post(
                "/api/label",
                json={
                    "annotator": "Ada",
                    "sample_id": "a0001",
                    "sub_question": sq["code"],
                    "says_yes": False,
                },
            )
            assert response.status == 200
            assert_blind(await response.text())
        done, payload = await fetch(client, "/api/item/a0001", "Ada")
        assert_blind(done)
        assert payload["progress"] == {"done": 1, "available": SAMPLE_SIZE}
        for number in range(2, SAMPLE_SIZE + 1):
            for raw in await label_item(client, "Ada", f"a{number:04d}"):
                assert_blind(raw)
        for path in ("/api/next", "/api/item/a0002", "/api/reveals"):
            raw, payload = await fetch(client, path, "Ada")
            assert_blind(raw)
            assert payload["assignment_done"] is True
        # another annotator sees the item blind too
        assert_blind((await fetch(client, "/api/item/a0001", "Bob"))[0])
        assert payload["shows_verdicts"] is False

    with_client(run_dir, test)
    with AnnotationStore.open(run_dir) as store:
        assert store.revealed() == []


def test_with_reveal_verdicts_wait_for_the_whole_assignment(run_dir: Path) -> None:
    """--reveal: nothing until every item open to the annotator is done; then their items,
    each once every annotator it wants has finished it (a0001 wants two)."""

    async def test(client: TestClient) -> None:
        for number in range(1, SAMPLE_SIZE + 1):
            raws = await label_item(client, "Ada", f"a{number:04d}")
            last = json.loads(raws[-1])
            assert last["assignment_done"] is (number == SAMPLE_SIZE)
            if number < SAMPLE_SIZE:
                for raw in raws:
                    assert_blind(raw)
                for path in ("/api/next", f"/api/item/a{number:04d}", "/api/reveals"):
                    raw, payload = await fetch(client, path, "Ada")
                    assert_blind(raw)
                    assert payload["shows_verdicts"] is True
        _, shown = await fetch(client, "/api/reveals", "Ada")
        assert [entry["sample_id"] for entry in shown["items"]] == [
            f"a{n:04d}" for n in range(2, SAMPLE_SIZE + 1)
        ]
        assert shown["waiting"] == 1  # a0001 still wants a second annotator
        first = shown["items"][0]["reveal"]
        assert first["model"] == MODEL
        assert [seat.split(":", 1)[1] for seat in first["judges"]] == list(JUDGES)
        _, again = await fetch(client, "/api/item/a0002", "Ada")
        assert again["reveal"] == first
        assert_blind((await fetch(client, "/api/item/a0001", "Ada"))[0])
        assert_blind((await fetch(client, "/api/item/a0002", "Bob"))[0])

        # Bob's assignment is a0001, the one item still open: once done, both see it.
        _, bobs = await fetch(client, "/api/next", "Bob")
        assert bobs["item"]["sample_id"] == "a0001" and bobs["progress"]["available"] == 1
        await label_item(client, "Bob", "a0001")
        _, bob_shown = await fetch(client, "/api/reveals", "Bob")
        assert [entry["sample_id"] for entry in bob_shown["items"]] == ["a0001"]
        assert (await fetch(client, "/api/item/a0001", "Ada"))[1]["reveal"]["model"] == MODEL

    with_client(run_dir, test, reveal=True)
    with AnnotationStore.open(run_dir) as store:
        assert len(store.revealed("Ada")) == SAMPLE_SIZE
        assert store.revealed("Bob") == [("Bob", "a0001")]
        assert store.labels_after_a_reveal() == 0


def test_a_throwaway_name_cannot_peek_and_labels_after_a_reveal_are_refused(
    run_dir: Path,
) -> None:
    """Issue 27: a throwaway name labelled 5 items, saw the panel's verdicts, and its labels
    counted. Now it sees nothing before its whole assignment is done; once a name has seen
    verdicts, no label of that name, nor any label on those items under another name, is
    taken, and the statistics count none given after a reveal."""

    async def test(client: TestClient) -> None:
        for number in range(2, 7):
            for raw in await label_item(client, "Tess", f"a{number:04d}"):
                assert_blind(raw)
        for path in ("/api/next", "/api/item/a0002", "/api/item/a0006", "/api/reveals"):
            raw, payload = await fetch(client, path, "Tess")
            assert_blind(raw)
            assert payload["assignment_done"] is False
        # Ada takes every other item and sees her verdicts when done.
        for number in (1, *range(7, SAMPLE_SIZE + 1)):
            await label_item(client, "Ada", f"a{number:04d}")
        _, ada = await fetch(client, "/api/reveals", "Ada")
        assert [e["sample_id"] for e in ada["items"]] == [
            f"a{n:04d}" for n in range(7, SAMPLE_SIZE + 1)
        ]
        # A new name cannot label what Ada has seen; Ada cannot label anything any more.
        item = (await fetch(client, "/api/item/a0007", "Mallory"))[1]["item"]
        status, data = await label(
            client,
            annotator="Mallory",
            sample_id="a0007",
            sub_question=item["sub_questions"][0]["code"],
            says_yes=True,
        )
        assert status == 409 and "no longer blind" in data["error"]
        item = (await fetch(client, "/api/item/a0002", "Ada"))[1]["item"]
        status, data = await label(
            client,
            annotator="Ada",
            sample_id="a0002",
            sub_question=item["sub_questions"][0]["code"],
            says_yes=True,
        )
        assert status == 409 and "Ada has seen the panel's verdicts" in data["error"]

    with_client(run_dir, test, reveal=True)
    with AnnotationStore.open(run_dir) as store:
        assert {who for who, _ in store.revealed()} == {"Ada"}
        counted = {(lab.annotator, lab.sample_id) for lab in store.counted_labels()}
        assert counted == {("Tess", f"a{n:04d}") for n in range(2, 7)} | {
            ("Ada", f"a{n:04d}") for n in (1, *range(7, SAMPLE_SIZE + 1))
        }
        # A label written after the reveal by a writer that does not check (an older
        # polistemics, a hand edit) is stored but not counted.
        code = store.sample_item("a0008").sub_questions[0].code
        with store._lock:
            store._db.execute(
                "INSERT INTO annotation_labels VALUES (?, 'a0008', ?, 1, NULL, ?, 'import')",
                ("Tess", code, "2026-01-01T00:00:00+00:00"),
            )
        assert store.labels_after_a_reveal() == 1
        assert len(store.counted_labels()) == len(store.labels()) - 1


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
