"""The page of an authors' release says in plain words what the release lacks, and leaves out
the sections it cannot fill instead of listing them as "Not available" (``omissions.py``)."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest

from polistemics.report.build import build_release_report
from polistemics.report.content import ReportOptions
from polistemics.report.sections import SECTIONS

LEFT_OUT = (
    "judges",
    "judge-strictness",
    "human-validation",
    "mechanisms",
    "pushback",
    "self-consistency",
    "cross-election",
)


def text_of(markup: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", markup))).strip()


@pytest.fixture(scope="module")
def release_html(fixtures_dir: Path, tmp_path_factory) -> str:
    report = build_release_report(
        fixtures_dir / "scoring" / "release_small",
        tmp_path_factory.mktemp("release-small"),
        ReportOptions(bootstrap_resamples=20, figure_formats=("svg",)),
    )
    return report.read_text(encoding="utf-8")


def visible(html: str) -> str:
    """The page's text outside scripts, figures and collapsed technical notes."""
    html = re.sub(r"<script.*?</script>|<svg.*?</svg>", "", html, flags=re.S)
    return text_of(re.sub(r'<details class="notes">.*?</details>', "", html, flags=re.S))


def test_sections_a_release_cannot_fill_are_left_out(release_html) -> None:
    nav = re.search(r'<nav class="toc">(.*?)</nav>', release_html, re.S).group(1)
    linked = re.findall(r'href="#([^"]+)"', nav)
    shown = re.findall(r'<section class="report-section" id="([^"]+)"', release_html)
    assert linked == shown  # every link has its section, and the reverse
    for section_id in LEFT_OUT:
        assert section_id not in shown
    assert {"leaderboard", "robustness", "data-cost", "browser"} <= set(shown)
    assert set(shown) | set(LEFT_OUT) | {"expansion-i4"} == {s for s, _ in SECTIONS}
    assert "Not available" not in release_html
    assert 'data-unavailable="true"' not in release_html


def test_the_top_of_the_page_says_what_the_release_lacks(release_html) -> None:
    summary = re.search(r'<div class="release-summary"[^>]*>(.*?)</div>', release_html, re.S)
    assert summary
    said = text_of(summary.group(1))
    assert "each judge's own verdicts" in said and "run.json" in said
    titles = dict(SECTIONS)
    for section_id in LEFT_OUT:  # each left-out section is named, with what it would need
        assert titles[section_id] in said, section_id
    assert "Anonymised labels results (anon_v1/) come without their contexts file" in said
    assert "per-answer summary score (adherence_rate)" in said and "mystery_key" in said


def test_technical_notes_stay_collapsed_and_the_browser_says_why_answers_are_missing(
    release_html,
) -> None:
    page = visible(release_html)
    assert "score keys not scored" not in page and "x12" not in page
    notes = re.search(r'<details class="notes">(.*?)</details>', release_html, re.S)
    assert notes and "score keys not scored" in unescape(notes.group(1))
    missing = re.search(r'id="answers-missing">(.*?)</p>', release_html, re.S)
    assert missing
    said = text_of(missing.group(1))
    assert said.startswith("The item browser has 0 answers; the release scored 12.")
    assert "Anonymised labels" in said and "come without their contexts file" in said


def test_a_runs_page_keeps_every_section(finished_demo_run) -> None:
    _, paths = finished_demo_run
    html = paths["report"].read_text(encoding="utf-8")
    shown = re.findall(r'<section class="report-section" id="([^"]+)"', html)
    assert shown == [s for s, _ in SECTIONS]
    assert 'class="release-summary"' not in html
