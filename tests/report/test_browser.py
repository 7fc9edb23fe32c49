from __future__ import annotations

import json

import pandas as pd
import pytest

from polistemics.report.browser import browser_payload, embed_json, final_verdicts
from polistemics.report.labels import ModelLabels
from polistemics.report.run_inputs import load_run_inputs
from polistemics.rubrics import SUB_QUESTIONS


@pytest.fixture(scope="module")
def demo_inputs(finished_demo_run):
    run_dir, _ = finished_demo_run
    return load_run_inputs(run_dir)


@pytest.fixture(scope="module")
def payload(demo_inputs):
    return browser_payload(
        demo_inputs.answers, demo_inputs.cells, demo_inputs.judge_records, ModelLabels()
    )


def test_every_answer_is_embedded_with_its_final_verdicts(demo_inputs, payload) -> None:
    assert (
        payload["total"] == payload["embedded"] == len(demo_inputs.answers) == len(payload["items"])
    )
    cells = demo_inputs.cells
    for item in payload["items"][:40]:
        env = payload["environments"][item["e"]][0]
        variant = payload["variants"][item["v"]][0]
        model = payload["models"][item["m"]][0]
        mine = cells[
            (cells["observation_id"] == item["o"])
            & (cells["environment"] == env)
            & (cells["variant"] == variant)
            & (cells["model"] == model)
        ]
        expected = {
            key: ("P" if passed else "F")
            for key, passed in zip(mine["sub_question"], mine["passed"], strict=True)
        }
        shown = {sq.key: item["c"][i] for i, sq in enumerate(SUB_QUESTIONS) if item["c"][i] != "-"}
        assert shown == expected


def test_judge_verdicts_and_raw_outputs(demo_inputs, payload) -> None:
    records = {
        (r.item_key, r.rubric.value, f"{r.panel_position}:{r.judge}"): r
        for r in demo_inputs.judge_records
    }
    item = payload["items"][0]
    env = payload["environments"][item["e"]][0]
    variant = payload["variants"][item["v"]][0]
    key = f"{item['o']}|{env}|{variant}"
    assert item["j"], "every judged answer carries its judges' records"
    for rubric_index, judge_index, raw_index, says, _ in item["j"]:
        rubric = payload["rubrics"][rubric_index][0]
        record = records[(key, rubric, payload["judges"][judge_index])]
        assert payload["strings"][raw_index] == record.raw_output
        for i, sq in enumerate(SUB_QUESTIONS):
            value = record.says_yes.get(sq.key, "absent")
            expected = (
                "-" if value == "absent" else "?" if value is None else ("Y" if value else "N")
            )
            assert says[i] == expected


def test_contexts_and_texts_are_shared_not_repeated(payload) -> None:
    assert len(payload["contexts"]) < len(payload["items"])  # models/variants share contexts
    assert len(payload["strings"]) == len(set(payload["strings"]))
    assert len(payload["yesPasses"]) == len(payload["environments"])


def test_cap_keeps_a_seeded_sample(demo_inputs) -> None:
    args = (demo_inputs.answers, demo_inputs.cells, demo_inputs.judge_records, ModelLabels())
    first = browser_payload(*args, max_answers=10, seed=1)
    again = browser_payload(*args, max_answers=10, seed=1)
    other = browser_payload(*args, max_answers=10, seed=2)
    assert first["embedded"] == 10 and first["total"] == len(demo_inputs.answers)
    ids = lambda p: [(i["o"], i["e"], i["v"]) for i in p["items"]]  # noqa: E731
    assert ids(first) == ids(again) and ids(first) != ids(other)


def test_a_sample_has_the_final_verdicts_of_every_cell(demo_inputs, monkeypatch) -> None:
    """A sample's verdicts come from its own answers' cells only, and equal those of all."""
    from polistemics.report import browser

    every = final_verdicts(demo_inputs.cells)
    seen: list[int] = []
    monkeypatch.setattr(browser, "final_verdicts", lambda cells: seen.append(len(cells)) or every)
    args = (demo_inputs.answers, demo_inputs.cells, None, ModelLabels())
    sample = browser_payload(*args, max_answers=10)
    assert seen and seen[0] < len(demo_inputs.cells) / 10
    monkeypatch.undo()
    sample_alone = browser_payload(*args, max_answers=10)
    assert sample_alone == sample
    for item in sample_alone["items"]:
        key = (
            sample_alone["models"][item["m"]][0],
            sample_alone["environments"][item["e"]][0],
            sample_alone["variants"][item["v"]][0],
            item["o"],
            item["n"],
        )
        assert item["c"] == every[key]


def test_disagreement_flag(payload) -> None:
    for item in payload["items"]:
        columns = list(zip(*(j[3] for j in item["j"]), strict=True)) if item["j"] else []
        split = any("Y" in c and "N" in c for c in columns)
        assert item["d"] == int(split)


def test_final_verdicts_ignore_keys_outside_app_f(demo_inputs) -> None:
    cells = demo_inputs.cells.head(5).copy()
    cells.loc[cells.index[0], "sub_question"] = "structural_balance"
    found = final_verdicts(cells)
    assert all(len(v) == len(SUB_QUESTIONS) for v in found.values())


def test_embedded_json_cannot_close_the_script_element() -> None:
    nasty = '</script><script>alert(1)</script> & <!-- \u2028 \u2029 "quoted"'
    text = embed_json({"strings": [nasty]})
    assert "<" not in text and ">" not in text and "&" not in text
    assert "\u2028" not in text and "\u2029" not in text
    assert json.loads(text)["strings"][0] == nasty


def test_a_split_panel_is_flagged(demo_inputs) -> None:
    # the demo's three judges are one model sharing calls, so they always agree: flip one
    records = list(demo_inputs.judge_records)
    first = records[0]
    flipped = {k: (not v if v is not None else v) for k, v in first.says_yes.items()}
    records[0] = first.model_copy(update={"says_yes": flipped})
    payload = browser_payload(demo_inputs.answers, demo_inputs.cells, records, ModelLabels())
    flagged = [i for i in payload["items"] if i["d"]]
    assert len(flagged) == 1
    env = payload["environments"][flagged[0]["e"]][0]
    variant = payload["variants"][flagged[0]["v"]][0]
    assert f"{flagged[0]['o']}|{env}|{variant}" == first.item_key


def final_verdicts_by_loop(cells: pd.DataFrame) -> dict:
    """The plain loop: every row sets its slot of its answer's marks; a later row wins."""
    slots = {sq.key: i for i, sq in enumerate(SUB_QUESTIONS)}
    found: dict[tuple, list[str]] = {}
    columns = ["model", "environment", "variant", "observation_id", "sample_index"]
    for row in cells.loc[:, [*columns, "sub_question", "passed"]].itertuples(index=False):
        slot = slots.get(row.sub_question)
        if slot is None:
            continue
        key = (row.model, row.environment, row.variant, row.observation_id, int(row.sample_index))
        found.setdefault(key, ["-"] * len(SUB_QUESTIONS))[slot] = "P" if row.passed else "F"
    return {key: "".join(marks) for key, marks in found.items()}


def test_final_verdicts_match_a_plain_loop(demo_inputs) -> None:
    cells = demo_inputs.cells.sample(frac=1, random_state=1)
    repeated = cells.head(50).assign(passed=lambda frame: ~frame["passed"])  # later rows win
    outside = cells.tail(3).assign(sub_question="structural_balance")
    table = pd.concat([cells, repeated, outside], ignore_index=True)
    found = final_verdicts(table)
    assert list(found.items()) == list(final_verdicts_by_loop(table).items())
    assert len(found) == len(demo_inputs.answers)
