"""Prices from OpenRouter's model list (served by the test server), its cache, and the fallbacks."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from polistemics.llm.pricing import (
    PriceListError,
    estimate_prices,
    fetch_price_list,
    openrouter_prices,
    packaged_snapshot,
    parse_price_list,
    parse_snapshot,
)
from polistemics.llm.registry import ModelEndpoint, builtin_registry
from polistemics.testing import FakeOpenAIServer

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
LISTING = {
    "data": [
        {
            "id": "openai/gpt-x",
            "name": "GPT X",
            "pricing": {"prompt": "0.000001", "completion": "0.000004", "request": "0"},
        },
        {"id": "google/cheap", "pricing": {"prompt": "0.0000001", "completion": "0.0000004"}},
        {"id": "router/auto", "pricing": {"prompt": "-1", "completion": "-1"}},
        {"id": "odd/nan", "pricing": {"prompt": "NaN", "completion": "0.1"}},
        {"id": "odd/inf", "pricing": {"prompt": "1e999", "completion": "0.1"}},
        {"id": "odd/text", "pricing": {"prompt": "free", "completion": "0.1"}},
        {"id": "odd/bool", "pricing": {"prompt": True, "completion": "0.1"}},
        {"id": "odd/missing", "pricing": {"prompt": "0.1"}},
        "not an object",
        {"pricing": {"prompt": "0.1", "completion": "0.1"}},
    ]
}
VALID_IDS = {"openai/gpt-x", "google/cheap"}


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(model_list=LISTING) as running:
        yield running


@pytest.fixture
def openrouter(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point the registry's OpenRouter base at the test server (OpenRouter's /api/v1 path)."""
    base = server.base_url.removesuffix("/v1") + "/api/v1"
    monkeypatch.setenv("POLISTEMICS_OPENROUTER_BASE_URL", base)
    return base


def endpoint(name: str, model: str, provider: str = "openrouter", **prices: float):
    base = {"base_url": "http://127.0.0.1:9/v1"} if provider == "openai-compatible" else {}
    return ModelEndpoint(name=name, model=model, provider=provider, **base, **prices)


REGISTRY_PRICED = {"price_input_per_mtok": 2.0, "price_output_per_mtok": 8.0}


def test_listed_prices_are_used_and_bad_entries_counted(openrouter, server, tmp_path):
    lookup = openrouter_prices(openrouter, tmp_path / "prices.json", now=NOW)
    assert lookup.fetched and lookup.price_list is not None
    assert set(lookup.price_list.prices) == VALID_IDS
    assert lookup.price_list.ignored == len(LISTING["data"]) - len(VALID_IDS)
    assert lookup.note == "8 entries of the OpenRouter price list ignored (unusable)"
    prices, _ = estimate_prices(
        [
            endpoint("listed", "openai/gpt-x", **REGISTRY_PRICED),  # the list wins
            endpoint("unlisted", "someone/else", **REGISTRY_PRICED),
            endpoint("unpriced", "someone/else"),
            endpoint("vllm", "openai/gpt-x", provider="openai-compatible", **REGISTRY_PRICED),
        ],
        cache_path=tmp_path / "prices.json",
        now=NOW,
    )
    assert prices["listed"].source == "openrouter list of 2026-11-30"
    assert prices["listed"].cost(1_000_000, 1_000_000) == pytest.approx(5.0)
    assert prices["unlisted"].source == "registry"
    assert prices["unlisted"].cost(1_000_000, 0) == pytest.approx(2.0)
    assert (prices["unpriced"].source, prices["unpriced"].cost(10, 10)) == ("none", None)
    assert prices["vllm"].source == "registry"  # not OpenRouter: the list does not apply


def test_cache_is_written_with_its_date_and_reused_without_a_request(openrouter, server, tmp_path):
    cache = tmp_path / "cache" / "prices.json"
    openrouter_prices(openrouter, cache, now=NOW)
    assert server.model_list_requests == 1
    stored = json.loads(cache.read_text())
    assert stored["fetched"].startswith("2026-11-30T12:00:00")
    assert openrouter not in cache.read_text()  # the base URL is kept as a hash only
    six_days_later = openrouter_prices(openrouter, cache, now=NOW + timedelta(days=6))
    assert not six_days_later.fetched and server.model_list_requests == 1
    assert six_days_later.price_list.source == "openrouter list of 2026-11-30"
    assert six_days_later.price_list.prices["openai/gpt-x"].completion == pytest.approx(4e-6)


def test_refresh_and_a_stale_cache_fetch_again(openrouter, server, tmp_path):
    cache = tmp_path / "prices.json"
    openrouter_prices(openrouter, cache, now=NOW)
    later = NOW + timedelta(days=1)
    refreshed = openrouter_prices(openrouter, cache, now=later, refresh=True)
    assert refreshed.fetched and server.model_list_requests == 2
    assert refreshed.price_list.source == "openrouter list of 2026-12-01"
    stale = openrouter_prices(
        openrouter, cache, now=later + timedelta(days=3), max_age=timedelta(2)
    )
    assert stale.fetched and server.model_list_requests == 3
    future = openrouter_prices(openrouter, cache, now=NOW)  # the cache is dated after "now"
    assert future.fetched and server.model_list_requests == 4


def test_a_cache_from_another_base_or_corrupt_is_not_used(openrouter, server, tmp_path):
    cache = tmp_path / "prices.json"
    openrouter_prices(openrouter, cache, now=NOW)
    openrouter_prices(openrouter + "/", cache.with_name("other.json"), now=NOW)
    assert server.model_list_requests == 2
    cache.write_text('{"fetched": "2026-11-30T12:00:00Z", "prices": [', encoding="utf-8")
    assert openrouter_prices(openrouter, cache, now=NOW).fetched
    assert server.model_list_requests == 3


def test_offline_falls_back_to_the_registry_and_says_why(tmp_path, monkeypatch):
    with FakeOpenAIServer() as gone:
        base = gone.base_url
    monkeypatch.setenv("POLISTEMICS_OPENROUTER_BASE_URL", base)  # nothing listens there now
    prices, note = estimate_prices(
        [endpoint("a", "openai/gpt-x", **REGISTRY_PRICED), endpoint("b", "openai/gpt-x")],
        cache_path=tmp_path / "prices.json",
        now=NOW,
    )
    assert (prices["a"].source, prices["b"].source) == ("registry", "none")
    assert note.startswith("OpenRouter price list not used (ConnectError")
    assert note.endswith("using registry prices") and "\n" not in note
    assert not (tmp_path / "prices.json").exists()


def test_bad_status_and_a_stale_cache_offline_fall_back(openrouter, server, tmp_path):
    cache = tmp_path / "prices.json"
    openrouter_prices(openrouter, cache, now=NOW)
    missing = openrouter.removesuffix("/api/v1") + "/nowhere"
    wrong_base = openrouter_prices(missing, tmp_path / "other.json", now=NOW)
    assert wrong_base.price_list is None and "(HTTP 404)" in wrong_base.note
    server.model_list = b"<html>gateway error</html>"
    stale = openrouter_prices(openrouter, cache, now=NOW + timedelta(days=8))
    assert stale.price_list is None and "not JSON" in stale.note


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"data": [{"id": "a", "pricing"', "not JSON"),
        (b'{"models": []}', "not JSON"),
        (b'{"data": {"id": "a"}}', "not JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "not JSON"),
        (json.dumps({"data": LISTING["data"][2:]}).encode(), "no usable prices (8 entries"),
    ],
    ids=["truncated", "no-data", "data-not-a-list", "deeply-nested", "nothing-usable"],
)
def test_malformed_lists_fall_back(openrouter, server, tmp_path, body, reason):
    server.model_list = body
    prices, note = estimate_prices(
        [endpoint("a", "openai/gpt-x", **REGISTRY_PRICED)], cache_path=tmp_path / "p.json", now=NOW
    )
    assert prices["a"].source == "registry"
    assert reason in note
    assert not (tmp_path / "p.json").exists()


def test_the_body_is_bounded_whether_its_length_is_declared_or_not(openrouter, server):
    with pytest.raises(PriceListError, match="larger than 200 bytes"):
        fetch_price_list(openrouter, max_bytes=200)  # the server declares Content-Length

    def endless(request: httpx.Request) -> httpx.Response:
        chunks = (b'{"data": [' + b" " * 4096 for _ in range(10_000))
        return httpx.Response(200, content=chunks)  # chunked: no length announced

    with pytest.raises(PriceListError, match="larger than 100,000 bytes"):
        fetch_price_list(
            "https://x.test/api/v1", max_bytes=100_000, transport=httpx.MockTransport(endless)
        )


def test_no_key_is_sent_even_when_one_is_set(monkeypatch):
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-secret")
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=LISTING)

    fetch_price_list("https://openrouter.test/api/v1", transport=httpx.MockTransport(record))
    assert str(seen[0].url) == "https://openrouter.test/api/v1/models"
    assert "authorization" not in seen[0].headers
    assert "sk-or-secret" not in str(seen[0].headers)


def test_a_timeout_falls_back_in_one_line(tmp_path):
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out\nafter 15 s", request=request)

    with pytest.raises(PriceListError) as err:
        fetch_price_list("https://x.test/v1", transport=httpx.MockTransport(slow))
    assert str(err.value) == "ReadTimeout: timed out after 15 s"


def test_parse_keeps_the_first_of_duplicate_ids():
    body = {
        "data": [
            LISTING["data"][0],
            {**LISTING["data"][0], "pricing": {"prompt": 1, "completion": 1}},
        ]
    }
    parsed = parse_price_list(json.dumps(body).encode(), NOW)
    assert parsed.prices["openai/gpt-x"].prompt == pytest.approx(1e-6)


def test_no_request_when_no_endpoint_is_on_openrouter(openrouter, server, tmp_path):
    prices, note = estimate_prices(
        [endpoint("v", "m", provider="openai-compatible")], cache_path=tmp_path / "p.json"
    )
    assert (prices["v"].source, note, server.model_list_requests) == ("none", None, 0)


def test_an_unwritable_cache_is_noted_and_the_list_still_used(openrouter, server, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    lookup = openrouter_prices(openrouter, blocker / "prices.json", now=NOW)
    assert lookup.price_list is not None and "price list not cached" in lookup.note


def test_cache_path_defaults_to_the_user_cache_folder(monkeypatch, tmp_path: Path):
    from polistemics.llm.pricing import default_cache_path

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_path() == tmp_path / "polistemics" / "openrouter-models.json"


def test_a_list_that_trickles_in_stops_at_the_overall_deadline() -> None:
    def trickle(request: httpx.Request) -> httpx.Response:
        def one_byte_at_a_time() -> Iterator[bytes]:
            yield b'{"data": ['
            while True:  # each read is quick, so no per-read timeout ever trips
                time.sleep(0.05)
                yield b" "

        return httpx.Response(200, content=one_byte_at_a_time())

    started = time.monotonic()
    with pytest.raises(PriceListError, match="took longer than 0.5s"):
        fetch_price_list("https://x.test/v1", timeout=0.5, transport=httpx.MockTransport(trickle))
    assert time.monotonic() - started < 5


# ---- the price snapshot shipped with the package -----------------------------------------------

SNAPSHOT = parse_snapshot(
    json.dumps(
        {
            "captured": "2026-11-01",
            "unit": "USD per token",
            "source": "a test",
            "aliases": {"openai/gpt-x-pinned": "openai/gpt-x"},
            "prices": {
                "openai/gpt-x": {"prompt": "0.000003", "completion": "0.000006"},
                "google/cheap": {"prompt": "0.0000002", "completion": "0.0000008"},
            },
        }
    )
)


def _offline(monkeypatch) -> None:
    with FakeOpenAIServer() as gone:
        base = gone.base_url
    monkeypatch.setenv("POLISTEMICS_OPENROUTER_BASE_URL", base)  # nothing listens there now


def test_offline_the_snapshot_prices_what_the_registry_does_not_and_says_how_old(
    tmp_path, monkeypatch
):
    _offline(monkeypatch)
    prices, note = estimate_prices(
        [
            endpoint("snap", "openai/gpt-x"),
            endpoint("pinned", "openai/gpt-x-pinned"),
            endpoint("registry", "google/cheap", **REGISTRY_PRICED),  # the registry wins
            endpoint("neither", "someone/else"),
            endpoint("vllm", "openai/gpt-x", provider="openai-compatible"),
        ],
        cache_path=tmp_path / "prices.json",
        now=NOW,
        snapshot=SNAPSHOT,
    )
    assert prices["snap"].source == prices["pinned"].source == "price snapshot of 2026-11-01"
    assert prices["snap"].cost(1_000_000, 1_000_000) == pytest.approx(9.0)
    assert prices["pinned"].cost(1_000_000, 0) == pytest.approx(3.0)
    assert prices["registry"].source == "registry"
    assert prices["neither"].source == prices["vllm"].source == "none"
    assert note.startswith("OpenRouter price list not used (ConnectError")
    assert note.endswith(
        "using registry prices; else the price snapshot of 2026-11-01 shipped with polistemics "
        "(29 days old; 2 of 5 models)"
    )


def test_a_live_list_wins_over_the_snapshot(openrouter, server, tmp_path):
    prices, note = estimate_prices(
        [endpoint("a", "openai/gpt-x"), endpoint("b", "only/in-snapshot")],
        cache_path=tmp_path / "prices.json",
        now=NOW,
        snapshot=parse_snapshot(
            json.dumps(
                {
                    "captured": "2026-11-01",
                    "unit": "USD per token",
                    "source": "a test",
                    "prices": {"only/in-snapshot": {"prompt": "1", "completion": "1"}},
                }
            )
        ),
    )
    assert prices["a"].source == "openrouter list of 2026-11-30"
    # the list is live: a model it does not list is not priced from an old snapshot
    assert prices["b"].source == "none"
    assert note is None or "snapshot" not in note


def test_the_packaged_snapshot_is_dated_and_prices_every_paper_model(tmp_path, monkeypatch):
    snapshot = packaged_snapshot()
    assert snapshot is not None
    assert snapshot.captured <= datetime.now(UTC).date()
    raw = json.loads(
        resources.files("polistemics.llm").joinpath("prices_snapshot.json").read_text("utf-8")
    )
    assert raw["source"] and raw["captured"] == snapshot.captured.isoformat()
    paper = [e for e in builtin_registry("paper").models.values() if e.provider == "openrouter"]
    assert paper
    _offline(monkeypatch)
    prices, note = estimate_prices(paper, cache_path=tmp_path / "prices.json", now=NOW)
    assert {price.source for price in prices.values()} == {snapshot.source}
    assert all(price.cost(1000, 1000) > 0 for price in prices.values())
    assert f"({snapshot.age_days(NOW)} days old; {len(paper)} of {len(paper)} models)" in note


def test_the_paper_claude_string_is_priced_under_openrouters_id(openrouter, server, tmp_path):
    server.model_list = json.dumps(
        {"data": [{"id": "anthropic/claude-sonnet-4.6", "pricing": LISTING["data"][0]["pricing"]}]}
    ).encode()
    prices, _ = estimate_prices(
        [endpoint("claude", "anthropic/claude-sonnet-4-6")],
        cache_path=tmp_path / "prices.json",
        now=NOW,
    )
    assert prices["claude"].source == "openrouter list of 2026-11-30"


def test_a_malformed_snapshot_is_refused():
    for bad in (
        '{"captured": "2026-13-01", "unit": "u", "source": "s", "prices": {}}',
        '{"captured": "2026-11-01", "unit": "u", "source": "s", "prices": {"a": {"prompt": -1, '
        '"completion": 1}}}',
        '{"captured": "2026-11-01", "unit": "u", "source": "s", "prices": {}, "extra": 1}',
    ):
        with pytest.raises(ValidationError):
            parse_snapshot(bad)


CACHE_LISTING = {
    "data": [
        {
            "id": "anthropic/claude-x",
            "pricing": {"prompt": "0.000003", "completion": "0.000015", "input_cache_read": "3e-7"},
        },
        {
            "id": "odd/cache-text",
            "pricing": {"prompt": "0.000001", "completion": "0.000002", "input_cache_read": "x"},
        },
    ]
}


def test_the_listed_cached_input_rate_prices_cached_tokens(tmp_path, monkeypatch):
    with FakeOpenAIServer(model_list=CACHE_LISTING) as listing:
        base = listing.base_url.removesuffix("/v1") + "/api/v1"
        monkeypatch.setenv("POLISTEMICS_OPENROUTER_BASE_URL", base)
        prices, _ = estimate_prices(
            [endpoint("claude", "anthropic/claude-x"), endpoint("odd", "odd/cache-text")],
            cache_path=tmp_path / "prices.json",
            now=NOW,
        )
    claude = prices["claude"]
    assert claude.cached_input_per_token == pytest.approx(3e-7)
    # 1M input tokens of which 600k cached, 0 output: 400k at 3e-6, 600k at 3e-7.
    assert claude.cost(1_000_000, 0, 600_000) == pytest.approx(0.4e6 * 3e-6 + 0.6e6 * 3e-7)
    # An unusable cached rate is dropped, the entry kept: cached tokens then have no price.
    odd = prices["odd"]
    assert odd.cost(100, 10) == pytest.approx(100e-6 + 20e-6)
    assert odd.cached_input_per_token is None and odd.cost(100, 10, 50) is None
    # The cached rate survives the on-disk cache.
    cached = json.loads((tmp_path / "prices.json").read_text())
    assert cached["prices"]["anthropic/claude-x"]["input_cache_read"] == pytest.approx(3e-7)


def test_the_registry_cached_input_rate() -> None:
    from polistemics.llm.pricing import registry_price

    ep = endpoint(
        "own", "m", provider="openai-compatible", price_cached_input_per_mtok=0.5, **REGISTRY_PRICED
    )
    price = registry_price(ep)
    assert price.cost(1_000_000, 0, 250_000) == pytest.approx(0.75 * 2.0 + 0.25 * 0.5)
    assert ep.estimate_cost(1_000_000, 0, 250_000) == pytest.approx(0.75 * 2.0 + 0.25 * 0.5)
