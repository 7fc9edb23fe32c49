"""The page's rendering: templates, escaping, the script's CSP hash and the view data."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html import unescape
from pathlib import Path

import jinja2
import pandas as pd
import pytest

from polistemics.report.browser import embed_json
from polistemics.report.build import build_report
from polistemics.report.content import ReportOptions
from polistemics.report.page import content_security_policy, environment
from polistemics.report.sections import SECTIONS
from polistemics.report.view import Column, FigureView, Labelled, shorten, table_view


@pytest.fixture(scope="module")
def demo_html(finished_demo_run) -> str:
    _, paths = finished_demo_run
    return paths["report"].read_text(encoding="utf-8")


def test_embedded_json_escapes_every_character_that_could_end_the_script() -> None:
    text = embed_json({"s": "</script> & <!-- \u2028\u2029"})
    assert text == '{"s":"\\u003c/script\\u003e \\u0026 \\u003c!-- \\u2028\\u2029"}'
    assert json.loads(text) == {"s": "</script> & <!-- \u2028\u2029"}


def test_the_policy_allows_only_the_pages_own_script(demo_html) -> None:
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', demo_html)
    assert policy
    text = unescape(policy.group(1))
    directives = dict(d.strip().split(" ", 1) for d in text.split(";"))
    assert directives["default-src"] == "'none'"
    assert "unsafe-inline" not in directives["script-src"]
    scripts = re.findall(r"<script>(.*?)</script>", demo_html, re.S)
    assert len(scripts) == 1  # the JSON data is not a script: type="application/json"
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert directives["script-src"] == f"'sha256-{digest}'"
    assert content_security_policy(scripts[0]) == text
    assert content_security_policy(scripts[0] + " ") != text  # any change: new hash


def test_the_header_names_the_figure_formats_written(demo_html) -> None:
    # A run writes SVG (the page's own); the header says how to get the paper formats.
    assert "figures are also saved as SVG in" in demo_html
    assert "For PDF and PNG figures" in demo_html
    assert "--figure-format svg,pdf,png" in demo_html


def test_every_section_has_its_template(demo_html) -> None:
    names = set(environment().list_templates())
    assert {"page.html", "macros.html"} <= names
    for section_id, title in SECTIONS:
        assert f"sections/{section_id}.html" in names
        assert f'<section class="report-section" id="{section_id}"' in demo_html
        assert f'<a href="#{section_id}">{title}</a>' in demo_html


def test_templates_escape_and_refuse_undefined_names() -> None:
    macros = environment().get_template("macros.html").module
    frame = pd.DataFrame({"party": ['<b x="1">&amp;</b>'], "score": [0.5]})
    table = table_view(
        frame,
        [
            Column("Party", lambda r: Labelled(r["party"], f" ({r['score']:.0%})")),
            Column("<Score>", "score", numeric=True),
        ],
        caption="{{ 7*7 }}",
    )
    html = str(macros.table(table))
    assert "<bdi>&lt;b x=&#34;1&#34;&gt;&amp;amp;&lt;/b&gt;</bdi> (50%)" in html
    assert "<th><bdi>&lt;Score&gt;</bdi></th>" in html and "<caption>{{ 7*7 }}</caption>" in html
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><text>a &amp; b</text></svg>'
    figure = str(macros.figure(FigureView("f1", "Fig. 1", "<note>", "f1.svg", svg)))
    assert svg in figure and "&lt;note&gt;" in figure  # only the SVG is inserted as markup
    with pytest.raises(jinja2.UndefinedError):
        environment().get_template("sections/leaderboard.html").render()


def test_long_names_are_shortened_with_the_whole_text_kept() -> None:
    assert shorten("short") == ("short", None)
    text, full = shorten("x" * 10_000)
    assert len(text) == 80 and text.endswith("…") and full == "x" * 10_000
    frame = pd.DataFrame({"name": ["y" * 200], "question": ["z" * 200]})
    row = table_view(frame, [Column("Name", "name"), Column("Q", "question", limit=None)]).rows[0]
    assert row[0].text == "y" * 79 + "…" and row[0].full == "y" * 200
    assert row[1].text == "z" * 200 and row[1].full is None


def test_no_banner_or_shared_seat_note_when_seats_differ(demo_run_copy: Path) -> None:
    manifest_path = demo_run_copy / "run.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for seat, name in enumerate(manifest["config"]["judges"]):
        manifest["models"][name]["params"]["temperature"] = 0.1 * seat
    for election in manifest["config"]["elections"]:
        election["source"] = "generic:somewhere.csv"
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    report = build_report(demo_run_copy, options=ReportOptions(bootstrap_resamples=20))
    html = report.read_text(encoding="utf-8")
    assert 'id="demo-banner"' not in html and 'id="shared-seats"' not in html
