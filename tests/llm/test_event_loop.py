"""The event loop a run's calls go through: uvloop where installed, asyncio's loop otherwise."""

from __future__ import annotations

import asyncio
import importlib.util
import sys

import pytest

from polistemics.llm.event_loop import ENV_VAR, loop_factory, loop_name, run
from polistemics.testing.server import FakeOpenAIServer

HAS_UVLOOP = importlib.util.find_spec("uvloop") is not None


@pytest.fixture
def without_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on Windows, or an install without uvloop: importing it fails."""
    monkeypatch.setitem(sys.modules, "uvloop", None)  # None in sys.modules: ImportError


async def _loop_type() -> type:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop())


def test_without_uvloop_runs_on_asyncio_loop(without_uvloop, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert loop_factory() is None
    assert loop_name() == "asyncio"
    assert issubclass(run(_loop_type()), asyncio.BaseEventLoop)


def test_without_uvloop_asking_for_it_fails_clearly(without_uvloop, monkeypatch):
    monkeypatch.setenv(ENV_VAR, "uvloop")
    with pytest.raises(ImportError, match="uvloop is not installed"):
        loop_factory()


def test_asyncio_can_be_chosen(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "asyncio")
    assert loop_factory() is None
    assert issubclass(run(_loop_type()), asyncio.BaseEventLoop)


def test_unknown_choice_is_refused(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "trio")
    with pytest.raises(ValueError, match=ENV_VAR):
        loop_factory()


@pytest.mark.skipif(not HAS_UVLOOP, reason="uvloop is not installed")
def test_uvloop_is_the_default_where_installed(monkeypatch):
    import uvloop

    monkeypatch.delenv(ENV_VAR, raising=False)
    assert loop_factory() is uvloop.new_event_loop
    assert loop_name() == "uvloop"
    assert issubclass(run(_loop_type()), uvloop.Loop)


def test_run_returns_the_result_and_raises_what_the_coroutine_raises(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    async def fails() -> None:
        raise KeyError("inside")

    assert run(answer()) == 42
    with pytest.raises(KeyError, match="inside"):
        run(fails())


def test_run_closes_its_loop_and_leaves_no_task_behind(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    seen: dict[str, object] = {}

    async def main() -> None:
        seen["loop"] = asyncio.get_running_loop()
        seen["sleeper"] = asyncio.ensure_future(asyncio.sleep(3600))

    run(main())
    assert seen["loop"].is_closed()  # type: ignore[attr-defined]
    assert seen["sleeper"].cancelled()  # type: ignore[attr-defined]


@pytest.mark.parametrize("choice", ["asyncio", "auto"])
def test_server_answers_on_either_loop(monkeypatch, without_uvloop, choice):
    """The test server's thread runs its loop through ``event_loop.run``: without uvloop it
    serves on asyncio's loop."""
    monkeypatch.setenv(ENV_VAR, choice)
    import urllib.request

    with FakeOpenAIServer() as server:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/health", timeout=10) as r:
            assert r.status == 200
        assert issubclass(type(server._running.loop), asyncio.BaseEventLoop)  # type: ignore[union-attr]
