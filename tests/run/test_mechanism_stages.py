"""The mechanism stages (issue 16) on the demo against the test server: swapped-order items are
answered and coded but never judged or scored (scores are identical with and without them), the
closed-book probe asks each observation once per target, the coder reads what it should, the dry
run counts exactly the calls the run makes, and a rerun makes none."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mechanism_responder import MechanismResponder
from study_helpers import write_study

from polistemics.conditions import Environment
from polistemics.llm.store import RunStore
from polistemics.report.datasets import observation_counts
from polistemics.report.run_inputs import load_run_inputs
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study, load_elections
from polistemics.run.plan import plan_study
from polistemics.runlog import CodedStance
from polistemics.testing import FakeOpenAIServer

MECHANISMS = {
    "stance_coder": '["judge-b", "judge-b"]',  # two identical seats: they share their calls
    "prior_probe": "true",
    "contradictory_swapped": '"all"',
    "ablations": '["anon"]',
}


def run_study(config_path: Path):
    config = load_config(config_path)
    study = Study(config, config.run_dir(), log=lambda m: None)
    result = asyncio.run(study.execute(quiet=True))
    finish_run(study, result)
    return study, result


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def stage_calls(run_dir: Path) -> dict[str, int]:
    with RunStore(run_dir / "store.sqlite") as store:
        counts: dict[str, int] = {}
        for row in store.call_stats():
            counts[row["stage"]] = counts.get(row["stage"], 0) + row["calls"]
        return counts


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    plain_dir = tmp_path_factory.mktemp("plain")
    mech_dir = tmp_path_factory.mktemp("mechanisms")
    responder = MechanismResponder(
        probe_stance=lambda party: {"Lantern Movement": None}.get(party, "supports")
    )
    with FakeOpenAIServer(responder=responder) as server:
        plain = run_study(write_study(plain_dir, server.base_url, ablations='["anon"]'))
        config = write_study(mech_dir, server.base_url, **MECHANISMS)
        study = Study(load_config(config), mech_dir / "run", log=lambda m: None)
        planned, details = plan_study(
            study.config, load_elections(study.config), study.endpoints, None
        )
        mech = run_study(config)
        server.reset_stats()
        rerun = run_study(config)
        rerun_requests = server.stats().requests
    return plain_dir / "run", plain, mech_dir / "run", mech, planned, details, rerun, rerun_requests


def test_scores_and_judging_are_identical_with_and_without_the_mechanisms(runs) -> None:
    plain_dir, _, mech_dir, *_ = runs
    for name in ("scores/cells.csv", "scores/summary.json"):
        assert (plain_dir / name).read_text() == (mech_dir / name).read_text(), name
    plain_judges = lines(plain_dir / "judges.jsonl")
    mech_judges = lines(mech_dir / "judges.jsonl")
    assert len(plain_judges) == len(mech_judges)
    assert all("|swapped" not in r["item_key"] for r in mech_judges)
    for folder in sorted((plain_dir / "exports").rglob("*.jsonl")):
        relative = folder.relative_to(plain_dir)
        if relative.name in ("ground_truth.jsonl",) or "scores" in relative.parts:
            assert folder.read_text() == (mech_dir / relative).read_text(), relative
    manifest = json.loads((mech_dir / "run.json").read_text())
    plain_manifest = json.loads((plain_dir / "run.json").read_text())
    assert manifest["judging"] == plain_manifest["judging"]
    assert plain_manifest["stance_coding"] is None
    # The report finish_run writes from memory has the codes (the plain run's says it has none).
    page = (mech_dir / "report" / "report.html").read_text(encoding="utf-8")
    plain_page = (plain_dir / "report" / "report.html").read_text(encoding="utf-8")
    assert "this run did not code stances" in plain_page
    assert "this run did not code stances" not in page


def test_swapped_items_are_answered_and_written_apart(runs) -> None:
    _, _, mech_dir, (study, result), *_ = runs
    run = result.elections[0]
    contradictory = [i for i in run.items if i.environment is Environment.CONTRADICTORY]
    assert len(run.swapped_items) == len(contradictory) > 0
    assert {i.key for i in run.swapped_items} == {i.key + "|swapped" for i in contradictory}
    answers = lines(mech_dir / "answers.jsonl")
    swapped_answers = [a for a in answers if a["item_key"].endswith("|swapped")]
    assert len(swapped_answers) == len(run.swapped_items)
    assert len(answers) == len(run.items) + len(run.swapped_items)
    written = lines(mech_dir / "swapped_items.jsonl")
    assert [w["chunk_order"] for w in written] == ["swapped"] * len(contradictory)
    assert all(w["evidence_index"] == 1 for w in written)
    exported = "".join(p.read_text() for p in (mech_dir / "exports").rglob("ground_truth.jsonl"))
    outputs = "".join(p.read_text() for p in (mech_dir / "exports").rglob("outputs.jsonl"))
    assert "swapped" not in exported and len(outputs.splitlines()) == len(run.items)
    # The report read back from the files finds every answer's item (swapped ones derived from
    # their originals) without a complaint; its answer counts leave the swapped ones out.
    inputs = load_run_inputs(mech_dir)
    assert len(inputs.answers) == len(run.items) + len(run.swapped_items)
    assert not [note for note in inputs.notes if "name no item" in note]
    counts = observation_counts(inputs.answers, inputs.cells)
    assert counts["answers"].sum() == len(run.items)


def test_the_probe_and_the_coder_read_what_they_should(runs) -> None:
    _, _, mech_dir, (study, result), *_ = runs
    run = result.elections[0]
    probes = lines(mech_dir / "prior_probe.jsonl")
    assert len(probes) == len(run.scoped.observations) == 30  # one target, one sample
    assert all(p["status"] == "ok" for p in probes)
    codes = lines(mech_dir / "stance_codes.jsonl")
    coded_envs = {
        Environment.ABSENT,
        Environment.VAGUE,
        Environment.CONTRADICTORY,
        Environment.COUNTERFACTUAL,
    }
    coded_items = [i for i in [*run.items, *run.swapped_items] if i.environment in coded_envs]
    subjects = {(c["kind"], c["subject_key"]) for c in codes}
    probe_keys = {f"prior|{p['election_id']}|{p['party_id']}|{p['statement_id']}" for p in probes}
    assert subjects == {("answer", i.key) for i in coded_items} | {
        ("probe", key) for key in probe_keys
    }
    assert len(codes) == 2 * len(subjects)  # two seats each
    order = [
        (c["kind"], c["subject_key"], c["model"], c["sample_index"], c["panel_position"])
        for c in codes
    ]
    assert order == sorted(order)
    # The two identical seats share their calls; every reply was readable.
    assert all(c["stance"] is not None and c["attempts"] == 1 for c in codes)
    by_subject: dict[str, set] = {}
    for c in codes:
        by_subject.setdefault(c["subject_key"], set()).add(c["call_key"])
    assert all(len(keys) == 1 for keys in by_subject.values())
    # The scripted probe: one party declines, the others state "supports" from outside knowledge.
    probe_codes = [c for c in codes if c["kind"] == "probe"]
    declined = [c for c in probe_codes if c["stance"] == CodedStance.NO_POSITION.value]
    green = [p for p in probes if p["party_id"] == "xx_lantern"]
    assert green and 2 * len(green) == len(declined)
    assert {c["outside_knowledge"] for c in probe_codes if c not in declined} == {True}
    summary = json.loads((mech_dir / "run.json").read_text())["stance_coding"]
    assert summary["answer"]["subjects"] == len(coded_items)
    assert summary["probe"]["subjects"] == len(probes) and summary["probe"]["missing"] == 0
    assert summary["probe"]["majority_stances"]["no_position"] == len(green)
    # Each election's codes and probe answers beside its release formats.
    export = mech_dir / "exports" / run.scoped.election.id
    assert lines(export / "stance_codes.jsonl") == codes
    assert lines(export / "prior_probe.jsonl") == probes


def test_the_dry_run_counts_the_calls_the_run_makes(runs) -> None:
    _, _, mech_dir, _, planned, details, *_ = runs
    made = stage_calls(mech_dir)
    for stage in ("answer", "judge", "prior_probe", "stance_code"):
        assert sum(r.calls for r in planned if r.stage == stage) == made[stage], stage
    assert details["stance_code_calls_total"] == made["stance_code"]
    assert details["prior_probe_calls_total"] == made["prior_probe"] == 30


def test_a_rerun_makes_no_call_and_writes_the_same(runs) -> None:
    *_, mech_dir, (_, result), _, _, (_, again), rerun_requests = runs
    assert rerun_requests == 0 and again.calls_made == 0
    assert again.stance_codes == result.stance_codes
    assert again.probe_answers == result.probe_answers
