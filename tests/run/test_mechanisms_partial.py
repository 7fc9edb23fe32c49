"""A run with only part of the mechanism stages still ends with a report (issue 27: both crashed
with ``ValueError: No objects to concatenate`` in the report, after every call was made)."""

from __future__ import annotations

from pathlib import Path

import pytest
from study_helpers import run_cli, write_study

from polistemics.runlog import RunDir
from polistemics.testing import FakeOpenAIServer

CASES = {
    # the stance coder without the closed-book probe: no prior accuracy to show
    "coder-without-probe": {"stance_coder": '"judge-a"'},
    # the probe with no coded environment built: no answer codes to show
    "probe-without-coded-environments": {
        "stance_coder": '"judge-a"',
        "prior_probe": "true",
        "environments": '["baseline", "ie_noise"]',
    },
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_partial_mechanism_study_finishes_with_a_report(tmp_path: Path, case: str) -> None:
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]", **CASES[case])
        done = run_cli("run", str(config), "-q", "--figure-format", "svg")
    assert done.returncode == 0, done.stderr[-2000:]
    run = RunDir(tmp_path / "run")
    page = (run.root / "report" / "report.html").read_text(encoding="utf-8")
    assert "Mechanisms" in page
    assert run.read_stance_codes()  # the coder ran and its codes were written
