"""The judges section's repeat-judging part: said plainly when off, figures when on, and
run.json's judge_repeats treated as untrusted input."""

from __future__ import annotations

import html
import json
from pathlib import Path

from polistemics.report.build import build_report
from polistemics.report.content import ReportOptions
from polistemics.report.repeats import NOT_CONFIGURED, repeats_view
from polistemics.runlog import RunManifest

HOSTILE = "<script>window.__pwned=1</script>judge"


def flip_row(**keys) -> dict:
    return {
        **keys,
        "n": 400,
        "flips": 30,
        "rate": 0.075,
        "ci_low": 0.05,
        "ci_high": 0.1,
        "n_items": 40,
        "ci_method": "cluster bootstrap by item (percentile)",
    }


def summary(judge: str = "judge-a") -> dict:
    return {
        "judges": "all",
        "items": 0.5,
        "repeats": 1,
        "items_sampled": 40,
        "answers_rejudged": 40,
        "repeat_judges": [judge],
        "overall": flip_row(),
        "by_judge": [flip_row(judge=judge)],
        "by_rubric": [flip_row(judge=judge, rubric="faithfulness")],
        "by_sub_question": [
            flip_row(judge=judge, rubric="faithfulness", sub_question="position_representation"),
            flip_row(judge=judge, rubric="impartiality", sub_question="sanitization"),
        ],
    }


def test_no_repeats_is_said_plainly():
    for manifest in (None, RunManifest(), RunManifest.model_validate({"judge_repeats": None})):
        view = repeats_view(manifest, "run")
        assert view.summary == NOT_CONFIGURED and view.by_rubric is None
    assert "release" in repeats_view(None, "release").summary


def test_figures_and_tables_when_configured():
    view = repeats_view(RunManifest.model_validate({"judge_repeats": summary()}), "run")
    assert "7.5% of 400 sub-question verdicts" in view.summary
    assert "95% CI 5.0%–10.0%" in view.summary and "cluster bootstrap" in view.summary
    assert "7.6%" in view.summary  # the paper's figure, for comparison
    assert [[cell.text for cell in row[:3]] for row in view.by_sub_question.rows] == [
        ["judge-a", "Faithfulness", "F1 Position Representation"],
        ["judge-a", "Impartiality", "I4 Sanitization"],
    ]


def test_a_malformed_or_hostile_summary_is_not_shown_half_read():
    bad = summary()
    bad["by_sub_question"][0]["sub_question"] = "../../etc/passwd"
    for broken in (bad, {"overall": "x"}, [1, 2], "text"):
        view = repeats_view(RunManifest.model_validate({"judge_repeats": broken}), "run")
        assert view.summary == "run.json's judge_repeats could not be read."
        assert view.by_rubric is None and view.by_sub_question is None


def test_the_page_shows_repeats_as_text(demo_run_copy: Path):
    manifest_path = demo_run_copy / "run.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    assert manifest["judge_repeats"] is None  # the demo run has no repeats configured
    page = build_report(demo_run_copy, options=ReportOptions(bootstrap_resamples=20))
    assert html.escape(NOT_CONFIGURED, quote=False) in page.read_text(encoding="utf-8")
    manifest["judge_repeats"] = summary(HOSTILE)
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    text = build_report(demo_run_copy, options=ReportOptions(bootstrap_resamples=20)).read_text(
        encoding="utf-8"
    )
    assert "Repeat calls (judge nondeterminism)" in text
    assert "7.5% of 400 sub-question verdicts" in text
    assert HOSTILE not in text and "&lt;script&gt;window.__pwned=1" in text
