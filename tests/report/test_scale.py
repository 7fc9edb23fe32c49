"""The report of a paper-scale run (~13k answers, ~107k judge records, ~120k cells) builds and
embeds every answer. Its build time is a benchmark: ``benchmarks/report_scale.py``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from polistemics.report.build import build_report
from polistemics.report.content import ReportOptions

from .synthetic_run import build_synthetic_run

pytestmark = [pytest.mark.slow, pytest.mark.shared]


def test_paper_scale_report_embeds_every_answer(release_dir: Path, tmp_path: Path) -> None:
    run_dir = build_synthetic_run(release_dir, tmp_path / "run")
    answers = len((run_dir / "answers.jsonl").read_text(encoding="utf-8").splitlines())
    assert answers > 12_000
    report = build_report(run_dir, options=ReportOptions(figure_formats=("svg",)))
    html = report.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="browser-data">(.*?)</script>', html, re.S).group(1))
    assert data["embedded"] == data["total"] == answers  # all fit under the default cap
