"""Build a small study config whose models all live on one test server, and run the CLI on it."""

from __future__ import annotations

import atexit
import hashlib
import multiprocessing
import multiprocessing.context
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
import weakref
from collections.abc import Callable
from functools import partial
from pathlib import Path

from polistemics.llm.client import RetryPolicy
from polistemics.run.warm_imports import FINISH_MODULES


def write_study(
    tmp_path: Path, base_url: str, key_env: str | None = None, **overrides: str
) -> Path:
    models = tmp_path / "models.toml"
    models.write_text(
        "\n".join(
            f'[models.{name}]\nbase_url = "{base_url}"\nmodel = "fake-model"\n'
            f"temperature = {temp}\nmax_concurrency = 8\n"
            + (f'api_key_env = "{key_env}"\n' if key_env else "")
            for name, temp in [
                ("target", 0.0),
                ("judge-a", 0.0),
                ("judge-b", 0.0),
                ("judge-c", 0.0),
                ("writer", 0.3),
            ]
        )
    )
    config = tmp_path / "study.toml"
    fields = {
        "name": '"pipeline-test"',
        "targets": '["target"]',
        "judges": '["judge-a", "judge-b", "judge-c"]',
        "standardiser": '"writer"',
        "vague_generator": '"writer"',
        "vague_auditor": '"judge-a"',
        "ablations": '["anon", "en"]',
        "embeddings": '"tfidf"',
        "models_file": f'"{models}"',
        "output_dir": f'"{tmp_path / "run"}"',
        **overrides,
    }
    body = "\n".join(f"{k} = {v}" for k, v in fields.items())
    config.write_text(body + '\n\n[[elections]]\nsource = "demo"\nscope = "demo"\n')
    return config


# A `polistemics run` child process imports about 2,200 modules first (2.5 s of CPU on a quiet
# machine, 4 s on a loaded one). The children of the tests whose subject is the process itself
# (a kill, a lock, piped output, a process's environment) are forked from a fork server that has
# imported the command once per test process: each is still a process of its own, with its own
# pid, environment, stdout and stderr, killed by a real signal, and exits as `polistemics` does.
# The server also imports what a run's finish imports (`run.warm_imports`, about 1,000 modules
# more), except Polars, which warns in a forked child.
PRELOADED = [
    "polistemics.cli",
    "polistemics.cli.run",
    *(module for module in FINISH_MODULES if module != "polars"),
]


RETRY_SPEED_UP = 100


def quicker_retry_policy() -> Callable[..., RetryPolicy]:
    """The default policy's attempts, with its delays cut a hundredfold: a call that fails for
    good waits up to 31 s of backoff by default, while the test's worker sits idle. Put in place
    of ``polistemics.llm.session.RetryPolicy`` (a test's monkeypatch, or ``run_command``'s
    ``quick_retries`` in the child)."""
    default = RetryPolicy()
    return partial(
        RetryPolicy,
        base_delay=default.base_delay / RETRY_SPEED_UP,
        max_delay=default.max_delay / RETRY_SPEED_UP,
    )


def _fork_server() -> multiprocessing.context.ForkServerContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOADED)
    return context


def _command(
    argv: list[str], env: dict[str, str], stdout: str, stderr: str, quick_retries: bool = False
) -> None:
    """In the forked child: ``polistemics ARGV`` with ``env`` as its whole environment, its
    stdout and stderr written to the files ``stdout`` and ``stderr`` (buffered as in a child
    process whose output is piped), exiting with the command's code. ``quick_retries``: the
    default retry policy with its delays cut short (``quicker_retry_policy``)."""
    if quick_retries:
        from polistemics.llm import session

        session.RetryPolicy = quicker_retry_policy()  # this child's own copy of the module
    os.environ.clear()
    os.environ.update(env)
    for fd, path in ((1, stdout), (2, stderr)):
        file = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(file, fd)
        os.close(file)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr.reconfigure(line_buffering=True)
    sys.argv = ["polistemics", *argv]
    try:
        from polistemics.cli import main

        main()
    finally:
        atexit._run_exitfuncs()  # a forked child skips them otherwise; a process runs them
        sys.stdout.flush()
        sys.stderr.flush()


class _Output:
    """What a child wrote to one stream (read once it has exited, or so far)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:  # the child ended before it opened its streams
            return ""


class CommandProcess:
    """``polistemics ARGS`` in a child process forked from the fork server; the parts of
    ``subprocess.Popen`` the tests use (``pid``, ``poll``, ``wait``, ``send_signal``, ``kill``,
    ``communicate``, ``returncode``, ``stdout.read()``, ``stderr.read()``)."""

    def __init__(self, args: list[str], env: dict[str, str], quick_retries: bool = False) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="polistemics-command-"))
        weakref.finalize(self, shutil.rmtree, self._folder, ignore_errors=True)
        self.stdout = _Output(self._folder / "stdout")
        self.stderr = _Output(self._folder / "stderr")
        self._process = _fork_server().Process(
            target=_command,
            args=(
                list(args),
                dict(env),
                str(self.stdout.path),
                str(self.stderr.path),
                quick_retries,
            ),
        )
        self._process.start()
        self.pid = self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.exitcode

    def poll(self) -> int | None:
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired(["polistemics"], timeout or 0)
        return self._process.exitcode

    def send_signal(self, signum: int) -> None:
        if self._process.exitcode is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        self.wait(timeout)
        return self.stdout.read(), self.stderr.read()


def start_command(
    *args: str, env: dict[str, str] | None = None, quick_retries: bool = False
) -> CommandProcess:
    """``polistemics ARGS`` in a child process (see ``CommandProcess``); ``env`` is its whole
    environment (this process's by default); ``quick_retries``: see ``_command``."""
    return CommandProcess(list(args), dict(os.environ) if env is None else env, quick_retries)


def run_command(
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
    quick_retries: bool = False,
) -> subprocess.CompletedProcess:
    """``polistemics ARGS`` in a child process, waited for: its exit code, stdout and stderr
    (as ``subprocess.run(..., capture_output=True, text=True)``)."""
    child = start_command(*args, env=env, quick_retries=quick_retries)
    try:
        stdout, stderr = child.communicate(timeout)
    finally:
        child.kill()
    return subprocess.CompletedProcess(["polistemics", *args], child.wait(), stdout, stderr)


def start_run(config: Path) -> CommandProcess:
    """``polistemics run CONFIG -q`` in a child process (see ``CommandProcess``)."""
    return start_command("run", str(config), "-q")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """``polistemics ARGS`` in this process, as ``polistemics.cli.main`` runs it (only the named
    command registered), finished as a child process would be: its exit code, stdout and stderr
    (an uncaught exception's traceback included). For tests of what a command does; a child
    process (``start_run``, ``run_command``) is kept for tests of the process itself (a kill, a
    lock, piped output)."""
    from typer.testing import CliRunner

    from polistemics.cli import build_app, requested_command

    command = requested_command(args)
    app = build_app([command]) if command else build_app()
    result = CliRunner().invoke(app, list(args))
    stderr = result.stderr
    if result.exc_info is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(*result.exc_info))
    return subprocess.CompletedProcess(
        ["polistemics", *args], result.exit_code, result.stdout, stderr
    )


def output_hashes(run_dir: Path) -> dict[str, str]:
    """The sha256 of every file of the run's scores, tables and exports, by its path."""
    return {
        path.relative_to(run_dir).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for folder in ("scores", "tables", "exports")
        for path in sorted((run_dir / folder).rglob("*"))
        if path.is_file()
    }


def whole_finish(run_dir: Path, config: Path) -> None:
    """The study run again with its tables, scores and exports removed: no call, a whole
    finish."""
    for folder in ("tables", "scores", "exports"):
        shutil.rmtree(run_dir / folder, ignore_errors=True)
    done = run_cli("run", str(config), "-q")
    assert done.returncode == 0, done.stderr


def finish_hashes_by_switch(
    folder: Path, base_url: str, switch: str, setenv
) -> dict[str, dict[str, str]]:
    """``output_hashes`` of a small study's whole finish with the environment ``switch`` off,
    then on (``setenv``: monkeypatch's); the second finish makes no call, so both read the same
    records."""
    config = write_study(folder, base_url, ablations="[]")
    hashes = {}
    for mode in ("off", "on"):
        setenv(switch, mode)
        whole_finish(folder / "run", config)
        hashes[mode] = output_hashes(folder / "run")
    return hashes
