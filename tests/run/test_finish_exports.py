"""A run directory reused with another election keeps no exports of the old one."""

from __future__ import annotations

from pathlib import Path

from study_helpers import run_cli, write_study

from polistemics.testing import FakeOpenAIServer


def _run(config: Path) -> None:
    done = run_cli("run", str(config), "-q")
    assert done.returncode == 0, done.stderr


def test_switching_the_election_removes_the_old_elections_exports(tmp_path: Path) -> None:
    exports = tmp_path / "run" / "exports"
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        _run(config)
        english = sorted(p.name for p in exports.iterdir())
        config.write_text(config.read_text().replace('source = "demo"', 'source = "demo:de"'))
        _run(config)
        german = sorted(p.name for p in exports.iterdir())
    assert len(english) == len(german) == 1 and english != german
