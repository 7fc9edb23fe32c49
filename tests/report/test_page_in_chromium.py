"""The report in a real browser: headless Chromium (Debian ``chromium``) driven by Playwright.

Skips when Playwright or Chromium is missing (install: ``apt-get install -y chromium
chromium-driver`` and ``pip install playwright``; never ``playwright install``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from polistemics.report import browser_files
from polistemics.report.build import build_release_report, build_report
from polistemics.report.content import ReportOptions
from polistemics.report.sections import SECTIONS

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
)

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    for candidate in (
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and Path(candidate).is_file():
            return candidate
    pytest.skip("Chromium is not installed (apt-get install -y chromium chromium-driver)")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    executable = chromium_path()
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


class Opened:
    """A page with the report loaded, every console error and every dialog (alert, confirm,
    prompt: dismissed) collected."""

    def __init__(self, browser, path: Path, ready: str = "#item-browser[data-ready=true]"):
        self.page = browser.new_page(viewport={"width": 1280, "height": 1000})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on(
            "request",
            lambda r: (
                None
                if r.url.startswith(("file:", "data:"))
                else self.errors.append(f"network: {r.url}")
            ),
        )
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_selector(ready, timeout=20_000)

    def count(self) -> int:
        return int(self.page.get_attribute("#b-count", "data-count"))

    def choose(self, control: str, label: str) -> None:
        self.page.select_option(control, label=label)


@pytest.fixture(scope="module")
def demo_report(finished_demo_run) -> Path:
    _, paths = finished_demo_run
    return paths["report"]


def page_has_no(selector: str, opened: Opened) -> bool:
    return opened.page.locator(selector).count() == 0


def answer_verdicts(run_dir: Path) -> pd.DataFrame:
    """Per answer: whether any cell failed and the F1 verdict, from scores/cells.csv."""
    from polistemics.runlog import RunDir

    cells = RunDir(run_dir).read_cells()
    keys = ["model", "environment", "variant", "observation_id", "sample_index"]
    per_answer = cells.groupby(keys).agg(failed=("passed", lambda s: not s.all())).reset_index()
    f1 = cells[cells["sub_question"] == "position_representation"].loc[:, [*keys, "passed"]]
    return per_answer.merge(f1.rename(columns={"passed": "f1"}), on=keys, how="left")


def test_every_section_and_figure_renders_without_errors(browser, demo_report, tmp_path) -> None:
    opened = Opened(browser, demo_report)
    page = opened.page
    for section_id, _ in SECTIONS:
        assert page.is_visible(f"section#{section_id}"), section_id
        assert page.is_visible(f'nav.toc a[href="#{section_id}"]')
    figures = page.locator("figure.figure")
    svg_files = list((demo_report.parent / "figures").glob("*.svg"))
    assert figures.count() == len(svg_files) >= 14
    for i in range(figures.count()):
        figure = figures.nth(i)
        assert figure.locator("svg").count() == 1
        box = figure.locator("svg").bounding_box()
        assert box and box["width"] > 100 and box["height"] > 60
        assert figure.locator("figcaption").inner_text().strip()
    assert page.locator("#agreement-rubric tbody tr").count() == 3
    # per-judge analyses from the run's raw verdicts: one ranked row per panel seat
    assert page.locator("#judge-strictness-ranking tbody tr").count() == 3
    assert page.locator("#judge-majority-agreement tbody tr").count() >= 3
    page.screenshot(path=str(tmp_path / "report-top.png"))
    page.locator("#browser").scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "report-browser.png"))
    assert (tmp_path / "report-top.png").stat().st_size > 10_000
    assert opened.errors == []


def test_item_browser_filters_match_the_cells(browser, demo_report, finished_demo_run) -> None:
    run_dir, _ = finished_demo_run
    verdicts = answer_verdicts(run_dir)
    opened = Opened(browser, demo_report)
    assert opened.count() == len(verdicts)

    opened.choose("#f-environment", "Contradictory")
    contradictory = verdicts[verdicts["environment"] == "ie_consistency_contradiction"]
    assert opened.count() == len(contradictory)
    opened.choose("#f-verdict", "Fail")
    assert opened.count() == int(contradictory["failed"].sum())
    opened.choose("#f-verdict", "Pass")
    assert opened.count() == int((~contradictory["failed"]).sum())
    shown = opened.page.locator("#b-list article.item")
    assert shown.count() == min(20, opened.count())
    assert all("pass" in (shown.nth(i).get_attribute("class") or "") for i in range(shown.count()))

    opened.choose("#f-environment", "All")
    opened.choose("#f-subq", "F1 Position Representation")
    assert opened.count() == int((verdicts["f1"] == True).sum())  # noqa: E712 (NaN: not judged)
    opened.choose("#f-model", "target-a")
    assert opened.count() == int((verdicts["f1"] == True).sum())  # noqa: E712 (one model)

    opened.choose("#f-subq", "All sub-questions")
    opened.choose("#f-verdict", "All")
    items = [json.loads(line) for line in (run_dir / "answers.jsonl").read_text().splitlines()]
    party_name = opened.page.locator("#f-party option").nth(1).inner_text()
    opened.choose("#f-party", party_name)
    matching = opened.count()
    assert 0 < matching < len(items)
    assert (
        opened.page.locator("#b-list article.item header .title")
        .first.inner_text()
        .endswith(party_name)
    )

    # pagination walks through all matches
    opened.choose("#f-party", "All")
    first_title = opened.page.locator("#b-list article.item").first.inner_text()
    opened.page.click("#b-next")
    assert "page 2" in opened.page.inner_text("#b-page")
    assert opened.page.locator("#b-list article.item").first.inner_text() != first_title

    # an answer shows its context, answer text, verdict table and every judge's raw output
    article = opened.page.locator("#b-list article.item").first
    assert article.locator("table.verdicts th").count() == 2 + 3  # sub-question, final, 3 judges
    article.locator("details.raw summary").click()
    assert article.locator(".raw-record pre.raw-output").count() >= 3
    assert opened.errors == []


def test_untrusted_answer_text_stays_text(browser, demo_run_copy: Path) -> None:
    answers = demo_run_copy / "answers.jsonl"
    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    payload = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">pwned'
    rows[0]["text"] = payload
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = build_report(demo_run_copy, options=ReportOptions(bootstrap_resamples=20))
    opened = Opened(browser, report)
    opened.page.fill("#f-search", "pwned")
    assert opened.count() == 1
    assert opened.page.inner_text("#b-list .answer-text") == payload
    assert opened.page.evaluate("typeof window.pwned") == "undefined"
    assert opened.page.locator("#b-list img").count() == 0
    assert opened.errors == []


def test_a_paged_browser_reads_its_answers_from_files_beside_the_page(
    browser, demo_run_copy: Path, monkeypatch
) -> None:
    """Issue 32: beyond the inline limit the page holds only what the filters read and loads
    each shown answer's file when the page is opened from disk; the text search loads them
    all; an answer's text stays text."""
    answers = demo_run_copy / "answers.jsonl"
    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    payload = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">pwned'
    rows[-1]["text"] = payload  # the last answer: in the last data file
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setattr(browser_files, "INLINE_ANSWERS", 5)
    monkeypatch.setattr(browser_files, "ANSWERS_PER_FILE", 7)
    report = build_report(demo_run_copy, options=ReportOptions(bootstrap_resamples=20))
    files = sorted((report.parent / "browser").glob("answers-*.js"))
    assert len(files) == -(-len(rows) // 7) >= 3
    html = report.read_text(encoding="utf-8")
    assert "pwned" not in html and rows[0]["text"][:40] not in html  # no answer text inline

    opened = Opened(browser, report)
    done = "#item-browser[data-loading=false]"
    assert opened.count() == len(rows)
    shown = opened.page.locator("#b-list article.item")
    assert shown.count() == min(20, len(rows))
    assert shown.first.locator("pre.answer-text").inner_text().strip()
    shown.first.locator("details.raw summary").click()
    assert shown.first.locator(".raw-record pre.raw-output").count() >= 3
    first_title = shown.first.inner_text()
    opened.page.click("#b-next")
    opened.page.wait_for_selector(done)
    assert opened.page.locator("#b-list article.item").first.inner_text() != first_title

    opened.page.fill("#f-search", "pwned")
    opened.page.wait_for_selector(done)
    assert opened.count() == 1
    assert opened.page.inner_text("#b-list .answer-text") == payload
    assert opened.page.evaluate("typeof window.pwned") == "undefined"
    assert opened.page.locator("#b-list img").count() == 0
    assert opened.errors == []
    assert opened.dialogs == []


def test_dutch_release_report_shows_the_papers_leaderboard(browser, release_dir, tmp_path) -> None:
    report = build_release_report(
        release_dir, tmp_path / "nl", ReportOptions(bootstrap_resamples=200)
    )
    opened = Opened(browser, report)
    rows = opened.page.locator("#leaderboard-nl_tk2025 tbody tr")
    table = {
        rows.nth(i).locator("td").nth(0).inner_text(): rows.nth(i).locator("td").nth(1).inner_text()
        for i in range(rows.count())
    }
    assert table == {"claude_sonnet_4_6": "95.1%", "gpt_5_4": "92.6%", "qwen3_6_flash": "91.4%"}
    # no judge's own verdicts in a release: the sections are left out, and the top says why
    assert page_has_no("section#judges", opened) and page_has_no("section#judge-strictness", opened)
    summary = opened.page.inner_text("#release-summary")
    assert "Judge reliability and Judge strictness (each judge's own verdicts" in summary
    page = opened.page
    assert page.locator("#mean-party-spread-nl_tk2025 tbody tr").count() == 3
    assert page.locator("#party-vs-rest-nl_tk2025 tbody tr").count() == 15
    assert page.locator("#failure-cooccurrence-nl_tk2025 tbody tr").count() == 5
    assert page.locator("#expansion-i4-nl_tk2025 tbody tr").count() == 3
    assert page.is_visible("figure#nl_tk2025-fig40") and page.is_visible("figure#nl_tk2025-fig22")
    assert page.locator("#party-findings figure.figure").count() == 5  # Fig. 40 + 4 LOO
    assert page.locator(".unavailable[data-unavailable]").count() == 0
    outputs = sum(
        len((folder / "outputs.jsonl").read_text(encoding="utf-8").splitlines())
        for folder in (release_dir, release_dir / "anon_v1", release_dir / "en_v1")
    )
    assert opened.count() == outputs  # every answer, failed calls included (shown as failed)
    opened.page.screenshot(path=str(tmp_path / "release.png"))
    assert opened.errors == []


def test_demo_banner_shared_seats_cut_answers_and_invocations_show(
    browser, demo_run_copy: Path
) -> None:
    """The demo's caveats a reader must see: the banner, the judges that are one endpoint, the
    answers cut at max_tokens, and the stage times of the invocation that made the calls."""
    answers = demo_run_copy / "answers.jsonl"
    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    rows[0]["finish_reason"] = "length"
    rows[0]["text"] = "A cut answer that stops in the middle of"
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    manifest_path = demo_run_copy / "run.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    first = manifest["invocations"][0]
    rerun = {**first, "calls_made": 0, "stage_seconds": dict.fromkeys(first["stage_seconds"], 0.0)}
    manifest["invocations"].append(rerun)
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")

    report = build_report(demo_run_copy, options=ReportOptions(bootstrap_resamples=20))
    opened = Opened(browser, report)
    page = opened.page
    banner = page.inner_text("#demo-banner")
    assert page.is_visible("#demo-banner") and "Not a measurement" in banner
    assert "fictional demo election" in banner
    note = page.inner_text("#shared-seats")
    assert page.is_visible("#shared-seats")
    assert "All seats 1, 2, 3" in note and "judge-a, judge-b, judge-c" in note
    assert "κ = AC1 = 1.000" in note

    assert "1 of " in page.inner_text("#answers-cut")
    page.fill("#f-search", "stops in the middle of")
    assert opened.count() == 1
    assert page.is_visible("#b-list .answer-cut")

    caption = page.inner_text("#stage-seconds caption")
    assert "invocation 1 of 2" in caption and f"{first['calls_made']:,} model calls" in caption
    assert page.locator("#invocations tbody tr").count() == 2
    titles = page.locator("figure.figure figcaption").all_inner_texts()
    assert titles and not any("XX" in t for t in titles)  # the demo's country code is no name
    assert opened.errors == []


@pytest.mark.parametrize("width", [1280, 560])
def test_a_table_of_contents_link_never_hides_its_heading(browser, demo_report, width) -> None:
    """The sticky bar wraps onto more lines in a narrow window; every jump still lands the
    section's heading below it."""
    opened = Opened(browser, demo_report)
    page = opened.page
    page.set_viewport_size({"width": width, "height": 900})
    links = page.locator("nav.toc a")
    assert links.count() >= 10
    for i in range(links.count()):
        target = links.nth(i).get_attribute("href")
        links.nth(i).click()
        page.wait_for_function(f"location.hash === {json.dumps(target)}")
        bar = page.locator("nav.toc").bounding_box()
        heading = page.locator(f"{target} > h2").bounding_box()
        assert bar and heading
        assert heading["y"] >= bar["y"] + bar["height"], (target, heading, bar)
        assert heading["y"] < 900  # the jump did bring the heading into view
    assert opened.errors == []
