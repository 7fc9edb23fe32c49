"""An API key reaches the provider but no file of the run directory, nor the console output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from study_helpers import write_study

from polistemics.testing import FakeOpenAIServer, Fault, Rule

SECRET = "sk-or-v1-planted-secret-7f3a9c2e1b0d4f6a8c5e"


def test_planted_key_appears_in_no_file_and_no_output(tmp_path: Path) -> None:
    # Some calls fail for good, so error messages are written too.
    rules = [Rule("Party A", always=Fault("status", status=500))]
    with FakeOpenAIServer(rules, expected_api_key=SECRET) as server:
        config = write_study(tmp_path, server.base_url, key_env="POLISTEMICS_PLANTED_KEY")
        run = subprocess.run(
            [sys.executable, "-c", "from polistemics.cli import main; main()", "run", str(config)],
            env={
                **os.environ,
                "POLISTEMICS_PLANTED_KEY": SECRET,
                "PYTHONPATH": os.pathsep.join(sys.path),
            },
            capture_output=True,
            text=True,
            timeout=300,
        )
        stats = server.stats()
    assert run.returncode == 0, run.stderr
    assert stats.authorized > 0 and stats.unauthorized == 0  # the key was sent with every call
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) > 10
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in run.stdout + run.stderr


def test_unset_key_fails_before_any_call_and_leaves_no_run(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "POLISTEMICS_UNSET_KEY"}
    _fails_before_any_call(tmp_path, "POLISTEMICS_UNSET_KEY", env)


def test_an_unusable_proxy_fails_before_any_call_and_leaves_no_run(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "no_proxy")}
    env |= {"HTTP_PROXY": "socks5://127.0.0.1:1080", "POLISTEMICS_UNSET_KEY": "sk-set"}
    _fails_before_any_call(tmp_path, "HTTP_PROXY is 'socks5://127.0.0.1:1080'", env)


def _fails_before_any_call(tmp_path: Path, named: str, env: dict[str, str]) -> None:
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, key_env="POLISTEMICS_UNSET_KEY")
        run = subprocess.run(
            [sys.executable, "-c", "from polistemics.cli import main; main()", "run", str(config)],
            env={**env, "PYTHONPATH": os.pathsep.join(sys.path)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert server.stats().requests == 0
    assert run.returncode == 2
    assert named in run.stderr and run.stderr.count("\n") == 1
    assert not (tmp_path / "run").exists()
