"""``polistemics annotate serve`` through the real CLI app: loopback by default, another host only
with ``--allow-remote`` and a warning, a run without a sample refused. The server's event loop is
replaced by a recorder, so nothing is served here (``tests/annotate`` serves for real)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from annotate.app_helpers import write_sample
from annotate.small_run import build_small_run
from polistemics.annotate import server
from polistemics.cli import app

runner = CliRunner()


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return build_small_run(tmp_path / "run")


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict]:
    calls: list[dict] = []

    def run_app(application, *, sock, **options) -> None:
        calls.append({"app": application, "address": sock.getsockname()})
        sock.close()

    monkeypatch.setattr(server.web, "run_app", run_app)
    return calls


def test_serves_on_loopback_and_prints_the_url(run_dir: Path, served: list[dict]) -> None:
    write_sample(run_dir, 3)
    result = runner.invoke(app, ["annotate", "serve", str(run_dir), "--port", "0"])
    assert result.exit_code == 0, result.output
    host, port = served[0]["address"][:2]
    assert host == "127.0.0.1" and port > 0
    assert f"serving 3 sample items at http://127.0.0.1:{port}/" in result.output
    assert "warning" not in result.output
    assert served[0]["app"][server.ALLOWED_HOSTS] == server.loopback_hosts(port)


def test_another_host_needs_allow_remote_and_warns(run_dir: Path, served: list[dict]) -> None:
    write_sample(run_dir, 3)
    refused = runner.invoke(app, ["annotate", "serve", str(run_dir), "--host", "0.0.0.0"])
    assert refused.exit_code == 2
    assert "--allow-remote" in refused.output and served == []

    allowed = runner.invoke(
        app, ["annotate", "serve", str(run_dir), "--host", "0.0.0.0", "--port", "0",
              "--allow-remote"],
    )  # fmt: skip
    assert allowed.exit_code == 0, allowed.output
    assert "warning: serving on 0.0.0.0" in allowed.output
    assert served[0]["address"][0] == "0.0.0.0"
    assert served[0]["app"][server.ALLOWED_HOSTS] is None  # any Host header: it is remote


def test_a_run_without_a_sample_is_refused(run_dir: Path, served: list[dict]) -> None:
    result = runner.invoke(app, ["annotate", "serve", str(run_dir), "--port", "0"])
    assert result.exit_code == 2
    assert "no annotation sample" in result.output and "annotate sample" in result.output
    assert served == []
