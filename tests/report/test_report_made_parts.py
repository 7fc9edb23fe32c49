"""``write_report`` with parts the finish made before it (the scores and the page's browser)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mechanism_records import write_mechanism_run
from polistemics.report.browser_files import page_browser
from polistemics.report.build import write_report
from polistemics.report.content import score_content
from polistemics.report.run_inputs import load_run_inputs


def _page(path: Path) -> str:
    html = path.read_text(encoding="utf-8")
    return re.sub(r"\d{4}-\d\d-\d\dT[\d:+]+", "", html).replace(str(path.parent), "")


def test_a_browser_made_before_gives_the_page_the_report_draws_itself(tmp_path: Path) -> None:
    inputs = load_run_inputs(write_mechanism_run(tmp_path / "run"))
    scores = score_content(inputs)
    made = write_report(inputs, tmp_path / "a", scores=scores, browser=page_browser(scores.browser))
    drawn = write_report(inputs, tmp_path / "b")
    assert _page(made) == _page(drawn)
    with pytest.raises(ValueError, match="without the scores"):
        write_report(inputs, tmp_path / "c", browser=page_browser(scores.browser))
