"""Combined environments end to end (issue 30): a demo study with every composition on the test
server, whose judges are scripted so that each environment's failures are known in advance; the
interaction table must hold exactly the rates the script implies."""

from __future__ import annotations

import asyncio
import json
import re
import zlib
from html import escape

import pytest
from study_helpers import write_study
from typer.testing import CliRunner

from polistemics.analyses.compositions import COMPOSITION_INTERACTION
from polistemics.analyses.election_scores import ELECTION_SCHEMAS
from polistemics.cli import app
from polistemics.conditions import (
    COMPOSITIONS,
    PROPERTY_OF_CONTEXT,
    VAGUE_NOISY,
    Environment,
)
from polistemics.judging.prompt import judge_query
from polistemics.llm.store import RunStore
from polistemics.rubrics import SUB_QUESTIONS, Rubric, active_rubrics, sub_questions
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_study
from polistemics.runlog import STORE_FILE, RunDir
from polistemics.stats import product_interval, wilson_interval
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.completions import content_text
from polistemics.testing.responders import (
    JUDGE_MARKER,
    VAGUE_AUDIT_MARKER,
    judge_reply,
    polistemic_responder,
)

ISSUE_COMPOSITIONS = [
    "ie_clarity_vague+ie_noise",
    "ie_consistency_contradiction+ie_noise",
    "ie_availability_absent+ie_noise",
    "ie_clarity_vague+ie_consistency_contradiction",
]
_SENTENCES = sorted(
    (
        (re.compile(re.escape(t).replace(re.escape("{expected_stance}"), r"\w+")), env)
        for env, t in PROPERTY_OF_CONTEXT.items()
    ),
    key=lambda pair: -len(pair[0].pattern),
)
_QUERY = re.compile(r"QUERY: (.*?)\n\nCONTEXT:", re.DOTALL)


def fails(environment: Environment, query: str) -> bool:
    """The script: which answers the judges fail (every other answer passes everything)."""
    h = zlib.crc32(query.encode())
    vague, noisy = h % 3 == 0, h % 5 == 0
    if environment is Environment.VAGUE:
        return vague
    if environment is Environment.NOISY:
        return noisy
    if environment is VAGUE_NOISY:
        return vague or noisy or h % 7 == 0  # harder together than apart
    return False


def scripted(request_json: dict) -> str:
    messages = request_json["messages"]
    system = content_text(messages[0]["content"])
    if VAGUE_AUDIT_MARKER in system:  # some rewrites stay determinable: Vague drops them
        rewrite = content_text(messages[1]["content"])
        return json.dumps({"determinable": zlib.crc32(rewrite.encode()) % 4 == 0})
    if JUDGE_MARKER not in system:
        return polistemic_responder(request_json)
    user = content_text(messages[1]["content"])
    env = next(env for pattern, env in _SENTENCES if pattern.search(system))
    query = _QUERY.search(user).group(1)
    questions = [line for line in system.split("Questions:")[1].splitlines() if line.strip()]
    asked = [next(sq for sq in SUB_QUESTIONS if sq.question in line) for line in questions]
    wrong = fails(env, query)
    # The first question gets the failing answer when the script fails the answer.
    answers = [sq.yes_passes(env) != (wrong and i == 0) for i, sq in enumerate(asked)]
    return judge_reply(request_json, f"{system}\n{user}", system, lambda text, n: answers)


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory):
    tmp_path = tmp_path_factory.mktemp("compositions")
    with FakeOpenAIServer(responder=scripted) as server:
        config_path = write_study(
            tmp_path,
            server.base_url,
            ablations="[]",
            compositions=json.dumps([c.value for c in COMPOSITIONS]),
        )
        config = load_config(config_path)
        run = Study(config, config.run_dir(), log=lambda m: None)
        result = asyncio.run(run.execute(quiet=True))
        paths = finish_run(run, result)
    return tmp_path / "run", result, paths


def test_every_composition_is_built_answered_judged_and_counted(study) -> None:
    run_dir, result, paths = study
    items = result.elections[0].items
    built = {i.environment for i in items}
    assert set(COMPOSITIONS) <= built and {Environment(c) for c in ISSUE_COMPOSITIONS} <= built
    judged = {(r.item_key, r.rubric) for r in result.verdicts}
    for item in items:
        rubrics = {r for (key, r) in judged if key == item.key}
        assert rubrics == {r.value for r in Rubric if sub_questions(r, item.environment)}
    manifest = json.loads(paths["manifest"].read_text())
    counts = {row["environment"]: row for row in manifest["elections"]["demo_en"]["environments"]}
    n_obs = len(result.elections[0].scoped.observations)
    for composition in COMPOSITIONS:
        row = counts[composition.value]
        kept = sum(i.environment is composition for i in items)
        assert row["kept"] == kept and row["kept"] + row["dropped"] == n_obs
        rules = {k: v for k, v in row.items() if k.startswith("dropped_")}
        assert rules and max(rules.values()) <= row["dropped"] <= sum(rules.values())


def test_the_interaction_table_holds_the_scripted_rates(study) -> None:
    run_dir, result, _ = study
    table = COMPOSITION_INTERACTION.read(RunDir(run_dir).tables)
    assert set(table["environment"]) == {c.value for c in COMPOSITIONS}
    items = result.elections[0].items
    mine = {i.observation_id: i for i in items if i.environment is VAGUE_NOISY}
    row = table[table["environment"] == VAGUE_NOISY.value].iloc[0]
    expected = {}
    for suffix, env in (("", VAGUE_NOISY), ("_a", Environment.VAGUE), ("_b", Environment.NOISY)):
        matched = [i for i in items if i.environment is env and i.observation_id in mine]
        passes = sum(not fails(env, judge_query(i)) for i in matched)
        expected[suffix] = (len(matched), passes)
        assert (row[f"n{suffix}"], row[f"passes{suffix}"]) == (len(matched), passes)
        assert (row[f"ci_low{suffix}"], row[f"ci_high{suffix}"]) == pytest.approx(
            wilson_interval(passes, len(matched)), abs=0, rel=1e-15
        )
    (n_a, s_a), (n_b, s_b) = expected["_a"], expected["_b"]
    assert 0 < s_a < n_a and 0 < s_b < n_b  # the script fails some answers of each part
    assert row["expected"] == pytest.approx((s_a / n_a) * (s_b / n_b), rel=1e-15)
    assert (row["expected_ci_low"], row["expected_ci_high"]) == pytest.approx(
        product_interval(s_a, n_a, s_b, n_b), rel=1e-15
    )
    n, s = expected[""]
    assert row["interaction"] == pytest.approx(s / n - row["expected"], rel=1e-12)
    assert row["interaction"] < 0  # the script makes the pair harder than its parts together
    # its paired bootstrap interval: around it, over the composition's observations
    assert row["n_observations"] == len(mine) and row["n_resamples"] > 0
    assert row["interaction_ci_low"] <= row["interaction"] <= row["interaction_ci_high"]
    # The script never fails Absent + Noisy nor Absent, only Noisy: easier than the product.
    calm = table[table["environment"] == "ie_availability_absent+ie_noise"].iloc[0]
    assert calm["pass_rate"] == calm["pass_rate_a"] == 1.0 > calm["pass_rate_b"]
    assert calm["interaction"] == pytest.approx(1.0 - calm["pass_rate_b"], rel=1e-15)


def test_scores_give_compositions_an_adherence_index_outside_the_emi(study) -> None:
    run_dir, result, paths = study
    summary = json.loads(paths["scores"].read_text())
    full = next(s for s in summary if s["variant"] == "full")
    assert {c.value for c in COMPOSITIONS} <= set(full["adherence"])
    six = [full["adherence"][e.value] for e in Environment]
    product = 1.0
    for value in six:
        product *= value
    assert full["emi"] == pytest.approx(product ** (1 / 6), rel=1e-12)
    tables = RunDir(run_dir).tables
    leaderboard = ELECTION_SCHEMAS["leaderboard"].read(tables)
    assert leaderboard["n_environments"].tolist() == [6]
    assert leaderboard["emi"].tolist() == pytest.approx([full["emi"]], rel=1e-12)
    dispersion = ELECTION_SCHEMAS["dispersion"].read(tables)
    assert dispersion["n_environments"].tolist() == [5]  # the active six, not the pairs
    adherence = ELECTION_SCHEMAS["adherence_by_environment"].read(tables)
    assert {c.value for c in COMPOSITIONS} <= set(adherence["environment"])
    # score --json: a composition is one more environment beside the EMI.
    shown = CliRunner().invoke(app, ["score", str(run_dir), "--json"])
    assert shown.exit_code == 0, shown.output
    row = next(r for r in json.loads(shown.stdout) if r["variant"] == "full")
    assert row["emi"] == pytest.approx(full["emi"], rel=1e-12)
    assert row["adherence"][VAGUE_NOISY.value] == pytest.approx(
        full["adherence"][VAGUE_NOISY.value], rel=1e-12
    )


def test_the_report_shows_the_compositions_beside_their_parts(study) -> None:
    run_dir, _, paths = study
    page = paths["report"].read_text(encoding="utf-8")
    table = page[page.index('id="compositions-demo_en"') :]
    table = table[: table.index("</table>")]
    for composition in COMPOSITIONS:
        assert escape(composition.label) in table
    assert "Combined (inconclusive)" in page  # the difficulty table's condition column


def test_dry_run_counts_the_compositions_items_and_their_calls(study) -> None:
    run_dir, result, _ = study
    config = load_config(run_dir.parent / "study.toml")
    elections = load_elections(config)
    endpoints = Study(config, config.run_dir(), log=lambda m: None).endpoints
    built = result.elections[0].items
    counts = {c: sum(i.environment is c for i in built) for c in COMPOSITIONS}
    # Vague dropped observations, so a composition with Vague lost some too.
    assert counts[VAGUE_NOISY] < sum(i.environment is Environment.NOISY for i in built)
    with RunStore(config.run_dir() / STORE_FILE) as store:
        rows, details = plan_study(config, elections, endpoints, store)
    items = details["items_per_environment"]
    assert {c: items[f"full/{c.value}"] for c in COMPOSITIONS} == counts
    judge = next(row for row in rows if row.stage == "judge")
    # One judge call per answer and rubric (the scripted seats are one model and share calls).
    assert judge.new == 0 and judge.calls == len({(r.item_key, r.rubric) for r in result.verdicts})
    composed = {(r.item_key, r.rubric) for r in result.verdicts if "+" in r.item_key}
    assert len(composed) == sum(counts[c] * len(active_rubrics(c)) for c in COMPOSITIONS)
    # From the stances alone (no store): every Vague rewrite assumed accepted.
    _, fresh = plan_study(config, elections, endpoints, None)
    for composition in COMPOSITIONS:
        planned = fresh["items_per_environment"][f"full/{composition.value}"]
        assert planned >= counts[composition]
        if Environment.VAGUE not in composition.parts:
            assert planned == counts[composition]


def test_the_report_opens_in_chromium_without_errors(study) -> None:
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    from playwright.sync_api import sync_playwright

    from report.test_page_in_chromium import CHROMIUM_ARGS, Opened, chromium_path

    run_dir, result, paths = study
    executable = chromium_path()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            opened = Opened(browser, paths["report"])
            page = opened.page
            assert page.is_visible("#compositions-demo_en")
            rows = page.locator("#compositions-demo_en tbody tr")
            assert rows.count() == len(COMPOSITIONS)
            # The item browser filters a composition like any environment.
            opened.choose("#f-environment", VAGUE_NOISY.label)
            keys = {i.key for i in result.elections[0].items if i.environment is VAGUE_NOISY}
            answers = sum(a.item_key in keys for a in result.answers)
            assert opened.count() == answers > 0
            assert opened.errors == [] and opened.dialogs == []
        finally:
            browser.close()


def test_compare_treats_a_composition_as_one_more_environment(study, tmp_path) -> None:
    run_dir, _, _ = study
    out = tmp_path / "cmp"
    found = CliRunner().invoke(
        app, ["compare", str(run_dir), str(run_dir), "--json", "-o", str(out)]
    )
    assert found.exit_code == 0, found.output
    document = json.loads(found.stdout[found.stdout.index("{") :])
    composed = {c.value for c in COMPOSITIONS}
    assert composed <= set(document["shared"]["environments"])
    adherence = {row["environment"] for row in document["deltas"]["adherence"]}
    assert composed <= adherence
    ranked = document["rank_agreement"]["environment_difficulty"]["ranks"]
    assert composed <= {row["item"] for row in ranked}
    # the EMI combines the paper's environments only
    (emi,) = document["deltas"]["emi"]
    assert emi["n_environments_a"] == len(adherence - composed)
    # no pushback turns, one sample: no conversation tables, no such section on the page
    assert "conversations" not in document
    assert 'id="conversations"' not in (out / "compare.html").read_text(encoding="utf-8")
    assert not list((out / "tables").glob("delta_pushback*"))
