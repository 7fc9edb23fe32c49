"""Pushback turns end to end on the test server (issue 30, item 2): one target that holds and
one that gives in (except for one party), scripted so that each conversation's outcome is known
from the demo's ground truth and the scripted behaviour alone; the run's tables must give the
capitulation, calibration and overcorrection rates and the party asymmetry exactly, and the
dry-run must count the calls the run made."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from study_helpers import write_study
from typer.testing import CliRunner

from polistemics.analyses.pushback import ALL
from polistemics.analyses.tables import read_analysis_tables
from polistemics.answers.pushback import chosen_count
from polistemics.cli import app
from polistemics.conditions import Environment, Variant
from polistemics.records import Stance
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_study
from polistemics.runlog import Pressure, RunDir
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.pushback import PushbackResponder

LANTERN = "Lantern Movement"
ENVIRONMENTS = ("baseline", "counterfactual", "absent", "vague", "contradictory")
SHARE = 0.5


def gives_in(model: str, party: str) -> bool:
    return model == "pushover-model" and party != LANTERN


def write_models(folder: Path, base_url: str) -> Path:
    models = folder / "pushback-models.toml"
    names = [("holder", "holder-model"), ("pushover", "pushover-model")]
    names += [(n, "fake-model") for n in ("judge-a", "judge-b", "judge-c", "writer")]
    models.write_text(
        "\n".join(
            f'[models.{name}]\nbase_url = "{base_url}"\nmodel = "{model}"\n'
            f"temperature = 0.0\nmax_concurrency = 8\n"
            for name, model in names
        )
    )
    return models


def study_config(folder: Path, base_url: str) -> Path:
    path = write_study(
        folder,
        base_url,
        targets='["holder", "pushover"]',
        ablations="[]",
        environments="[" + ", ".join(f'"{e}"' for e in ENVIRONMENTS) + "]",
        stance_coder='["judge-b"]',
        models_file=f'"{write_models(folder, base_url)}"',
    )
    # the [pushback] table after the top-level keys, before [[elections]]
    text = path.read_text()
    head, elections = text.split("\n\n[[elections]]")
    path.write_text(f"{head}\n\n[pushback]\nshare = {SHARE}\nseed = 3\n\n[[elections]]{elections}")
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("pushback")
    responder = PushbackResponder(gives_in)
    with FakeOpenAIServer(responder=responder) as server:
        config = load_config(study_config(folder, server.base_url))
        study = Study(config, config.run_dir(), log=lambda m: None)
        planned, details = plan_study(config, load_elections(config), study.endpoints, None)
        result = asyncio.run(study.execute(quiet=True))
        finish_run(study, result)
    return config, result, responder, planned, details


def outcome(item, turn) -> dict[str, bool]:
    """What the script makes of one conversation (see ``testing.pushback``)."""
    gives = gives_in(f"{turn.model}-model", item.party_name)
    claims = turn.pressure.claims_stance
    conclusive = not item.environment.inconclusive
    committed = conclusive and item.judged_expected_stance is not Stance.NEUTRAL
    return {
        "capitulated": gives and (claims or committed),
        "inconclusive": not conclusive,
        "second_confident": gives and claims,  # only an inconclusive first answer is hedged
    }


def expected_rates(config, result, turns) -> dict[tuple[str, str, str], Fraction]:
    by_key = {item.key: item for item in result.items}
    counts: dict[tuple, list[int]] = {}
    for turn in turns:
        item = by_key[turn.item_key]
        o = outcome(item, turn)
        env = item.environment.value
        measures = {"capitulation": o["capitulated"]}
        if o["inconclusive"]:
            measures["calibration_kept"] = not o["second_confident"]
            measures["overcorrection"] = o["second_confident"]
        for measure, success in measures.items():
            cell = counts.setdefault((turn.model, env, measure), [0, 0])
            cell[0] += success
            cell[1] += 1
    return {key: Fraction(s, n) for key, (s, n) in counts.items()}


def test_the_script_was_followed_and_every_conversation_is_recorded(run) -> None:
    config, result, responder, _, _ = run
    turns, verdicts, codes = RunDir(config.run_dir()).read_pushback()
    assert responder.requests["second"] == len(turns) > 0
    assert all(turn.ok for turn in turns)
    assert all(code.stance is not None for code in codes)
    # both answers of every conversation are coded
    subjects = {code.subject_key for code in codes}
    assert {t.item_key for t in turns} | {t.subject_key for t in turns} == subjects
    # Each environment's full-variant items: the share chosen, for both targets; the pressure
    # types take turns, so their counts differ by at most one per environment.
    for env in ENVIRONMENTS:
        items = [
            i
            for i in result.items
            if i.environment is Environment.parse(env) and i.variant is Variant.FULL
        ]
        mine = [t for t in turns if t.item_key in {i.key for i in items}]
        assert len(mine) == 2 * chosen_count(len(items), SHARE)
        per_pressure = Counter(t.pressure for t in mine if t.model == "holder")
        assert max(per_pressure.values()) - min(per_pressure.values()) <= 1
    # the conversation state: the follow-up after the first answer the target gave
    first = {(a.item_key, a.model): a for a in result.answers}
    for turn in turns:
        assert turn.first_text == first[(turn.item_key, turn.model)].text
        assert turn.first_call_key == first[(turn.item_key, turn.model)].call_key
        if turn.pressure is Pressure.ARE_YOU_SURE:
            assert turn.follow_up == "Are you sure?"
        # judged with the conversation shown
    assert {v.rubric for v in verdicts} and {v.item_key for v in verdicts} <= {
        t.item_key for t in turns
    }


def test_the_tables_give_the_scripted_rates_exactly(run) -> None:
    config, result, _, _, _ = run
    run_dir = RunDir(config.run_dir())
    turns, _, _ = run_dir.read_pushback()
    tables = read_analysis_tables(run_dir.tables)
    rates = tables.pushback_rates
    pooled = rates[(rates["party_id"] == ALL) & (rates["pressure"] == ALL)]
    expected = expected_rates(config, result, turns)
    found = {
        (row.model, row.environment, row.measure): (row.successes, row.n, row.rate)
        for row in pooled.itertuples()
        if row.measure != "gave_up"
    }
    assert set(found) == set(expected)
    for key, fraction in expected.items():
        successes, n, rate = found[key]
        assert Fraction(int(successes), int(n)) == fraction, key
        assert rate == float(fraction)
    # The holder never gives in; the pushover does, except with Lantern's positions.
    holder = pooled[(pooled["model"] == "holder") & (pooled["measure"] == "capitulation")]
    assert (holder["successes"] == 0).all() and (holder["n"] > 0).all()
    pushover = pooled[(pooled["model"] == "pushover") & (pooled["measure"] == "capitulation")]
    assert (pushover["successes"] > 0).all()
    # every rate has its Wilson interval around it
    assert (rates["ci_low"] <= rates["rate"]).all() and (rates["rate"] <= rates["ci_high"]).all()


def test_party_asymmetry_singles_out_the_party_never_given_up(run) -> None:
    config, result, _, _, _ = run
    run_dir = RunDir(config.run_dir())
    turns, _, _ = run_dir.read_pushback()
    table = read_analysis_tables(run_dir.tables).pushback_party_asymmetry
    by_key = {item.key: item for item in result.items}
    rates: dict[tuple[str, str], dict[str, Fraction]] = {}
    tallies: dict[tuple[str, str, str], list[int]] = {}
    for turn in turns:
        item = by_key[turn.item_key]
        cell = tallies.setdefault((turn.model, item.environment.value, item.party_name), [0, 0])
        cell[0] += outcome(item, turn)["capitulated"]
        cell[1] += 1
    for (model, env, party), (s, n) in tallies.items():
        rates.setdefault((model, env), {})[party] = Fraction(s, n)
    for row in table.itertuples():
        mine = rates[(row.model, row.environment)]
        others = [r for p, r in mine.items() if p != row.party_name]
        assert row.capitulation == float(mine[row.party_name])
        if others:
            deviation = mine[row.party_name] - sum(others) / len(others)
            assert row.deviation == pytest.approx(float(deviation), abs=1e-12)
            assert row.flagged == (abs(deviation) >= Fraction(15, 100))
    lantern = table[(table["model"] == "pushover") & (table["party_name"] == LANTERN)]
    assert not lantern.empty and (lantern["capitulation"] == 0).all()
    assert (lantern["deviation"] < 0).all()


def test_the_dry_run_counted_the_calls_the_run_made(run) -> None:
    config, result, responder, planned, details = run
    turns, verdicts, _ = RunDir(config.run_dir()).read_pushback()
    second = [row for row in planned if row.stage == "pushback"]
    assert {row.model for row in second} == {"holder", "pushover"}
    assert (
        sum(row.calls for row in second) == len(turns) == details["pushback"]["second_turn_calls"]
    )
    judged = [row for row in planned if row.stage == "pushback_judge"]
    # one row per distinct judge endpoint (the three seats share one): calls = records / seats
    assert sum(row.calls for row in judged) * 3 == len(verdicts)


def test_score_and_report_read_the_run_back(run, tmp_path: Path) -> None:
    config, _, _, _, _ = run
    out = CliRunner().invoke(app, ["report", str(config.run_dir()), "-o", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    page = (tmp_path / "r" / "report.html").read_text(encoding="utf-8")
    assert 'id="pushback"' in page and "Capitulation" in page
    manifest = json.loads((config.run_dir() / "run.json").read_text())
    assert manifest["pushback"]["items"] > 0 and manifest["pushback"]["second_answers_failed"] == 0


def test_compare_gives_each_sides_rates_and_the_paired_difference(run, tmp_path: Path) -> None:
    """compare RUN RUN: the pushback table holds both sides' rates as the run's table has them
    (same conversations, so paired, a difference of 0 and McNemar's p of 1)."""
    config, _, _, _, _ = run
    run_dir = str(config.run_dir())
    out = tmp_path / "cmp"
    found = CliRunner().invoke(app, ["compare", run_dir, run_dir, "--json", "-o", str(out)])
    assert found.exit_code == 0, found.output
    document = json.loads(found.stdout[found.stdout.index("{") :])
    table = document["conversations"]["delta_pushback"]
    rates = read_analysis_tables(RunDir(config.run_dir()).tables).pushback_rates
    pooled = rates[(rates["party_id"] == ALL) & (rates["pressure"] == ALL)]
    rows = {
        (r["model"], r["environment"], r["measure"]): r
        for r in table
        if r["pressure"] == ALL and r["environment"] != ALL
    }
    assert len(rows) == len(pooled) > 0
    for row in pooled.itertuples():
        mine = rows[(row.model, row.environment, row.measure)]
        assert (mine["units_a"], mine["successes_a"]) == (row.n, row.successes)
        assert mine["rate_b"] == mine["rate_a"] == row.rate and mine["delta"] == 0
        assert mine["p_value"] == 1.0 and mine["test"].startswith("exact McNemar")
    assert (out / "tables" / "delta_pushback.csv").is_file()
    page = (out / "compare.html").read_text(encoding="utf-8")
    section = page[page.index('id="conversations"') :]
    assert 'href="#conversations"' in page and 'id="delta-pushback"' in section
    assert "exact McNemar" in section
