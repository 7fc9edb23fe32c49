"""What an annotator sees: the judge prompt's wording, blind content, the panel kept apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polistemics.annotate.item_view import (
    ItemViewError,
    RunViews,
    _loaded,
    item_view,
    run_fingerprint,
)
from polistemics.annotate.run_data import AnswerRubric, RunDataError, judge_rows
from polistemics.annotate.store import AnnotationStore, SampleItem, sample_id_for
from polistemics.conditions import ABSENT_SENTINEL, Environment
from polistemics.judging.prompt import build_judge_prompt
from polistemics.rubrics import Rubric

from .small_run import HOSTILE, JUDGES, build_small_run, small_items


def sample_item(number: int, item_key: str, model: str, rubric: Rubric) -> SampleItem:
    env = Environment(item_key.split("|")[1])
    return SampleItem(
        sample_id=sample_id_for(number, 10),
        item_key=item_key,
        model=model,
        sample_index=0,
        rubric=rubric,
        environment=env,
        language="English",
        stratum=f"{env.value}|{rubric.value}|agreed",
        judges_agreed=True,
        weight=1.0,
        annotators_wanted=1,
        seed=0,
    )


NOISY = sample_item(1, "o1|ie_noise|full", "target-b", Rubric.FAITHFULNESS)
ABSENT = sample_item(2, "o1|ie_availability_absent|full", "target-a", Rubric.EPISTEMIC_CALIBRATION)
FAILED = sample_item(3, "o2|ie_consistency_contradiction|full", "target-b", Rubric.IMPARTIALITY)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = build_small_run(tmp_path / "run")
    with AnnotationStore.open(run) as store:
        store.write_sample([NOISY, ABSENT])
    return run


def test_content_is_worded_as_the_judge_prompt(run_dir: Path) -> None:
    view = item_view(run_dir, NOISY)
    content = view.content
    item = next(i for i in small_items() if i.key == NOISY.item_key)
    prompt = build_judge_prompt(item, content.answer, Rubric.FAITHFULNESS)
    system, user = (m["content"] for m in prompt.messages)
    assert [sq.code for sq in content.sub_questions] == ["F1", "F2", "F4"]
    for sq in content.sub_questions:
        assert f"{sq.number}. {sq.question}\n" in system + "\n"
    assert content.property_of_context in system
    assert f"QUERY: {content.query}" in user
    labelled = "\n".join(f"[{c.number}] {c.label} {c.text}" for c in content.context)
    assert f"CONTEXT:\n{labelled}\n" in user
    assert [c.label for c in content.context] == ["[TARGET]", "[DISTRACTOR]"]
    assert content.answer.startswith("The party agrees [1].")
    assert content.rubric_label == "Faithfulness" and content.environment_label == "Noisy"


def test_content_is_blind_and_the_reveal_holds_panel_and_model(run_dir: Path) -> None:
    view = item_view(run_dir, NOISY)
    shown = view.content.model_dump_json()
    assert "target-b" not in shown
    assert not any(judge in shown for judge in JUDGES)
    reveal = view.reveal
    assert reveal.model == "target-b"
    assert [j.seat for j in reveal.judges] == ["0:judge-a", "1:judge-b", "2:judge-c"]
    # Judges a and b say F1 Yes, F2 No, F4 Yes; judge c flips F1 on target-b's answers.
    assert reveal.judges[0].says_yes == {"F1": True, "F2": False, "F4": True}
    assert reveal.judges[2].says_yes["F1"] is False
    assert reveal.majority == {"F1": True, "F2": False, "F4": True}
    assert reveal.judges_agreed is False


def test_absent_shows_the_placeholder_and_only_calibration(run_dir: Path) -> None:
    content = item_view(run_dir, ABSENT).content
    assert content.context == []
    assert content.context_placeholder == ABSENT_SENTINEL
    assert [sq.code for sq in content.sub_questions] == ["EC1", "EC3", "EC4"]
    assert item_view(run_dir, ABSENT).reveal.judges_agreed is True


def test_an_item_without_answer_is_refused_by_name(run_dir: Path) -> None:
    with pytest.raises(
        ItemViewError, match="a0003: the run has no usable answer of model 'target-b'"
    ):
        item_view(run_dir, FAILED)


def test_a_new_sample_is_picked_up(run_dir: Path) -> None:
    assert item_view(run_dir, NOISY).content.sample_id == "a0001"
    other = sample_item(4, "o2|baseline|full", "target-a", Rubric.IMPARTIALITY)
    with AnnotationStore.open(run_dir) as store:
        store.write_sample([other], replace=True)
    assert [sq.code for sq in item_view(run_dir, other).content.sub_questions] == [
        "I1",
        "I2",
        "I3",
        "I4",
        "I5",
    ]


def test_hostile_text_stays_verbatim_text(tmp_path: Path) -> None:
    run = build_small_run(tmp_path / "run", hostile=True)
    view = RunViews.load(run, [NOISY]).view(NOISY)
    assert view.content.context[1].text.endswith(HOSTILE)
    assert HOSTILE in view.content.answer
    assert HOSTILE in view.content.query


def test_filtered_judge_rows_ignore_keys_quoted_in_outputs(run_dir: Path) -> None:
    path = run_dir / "judges.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    unit = AnswerRubric(NOISY.item_key, NOISY.model, 0, NOISY.rubric)
    for number, line in enumerate(lines):
        row = json.loads(line)
        # Outputs quoting the wanted unit's keys must not pull other lines in.
        row["raw_output"] = (
            f'{{"item_key": "{unit.item_key}", "model": "{unit.model}", "sample_index": 0, '
            f'"rubric": "{unit.rubric.value}"}}'
        )
        lines[number] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    every = judge_rows(run_dir)
    only = judge_rows(run_dir, {unit})
    assert only == [row for row in every if row.unit == unit]
    assert [row.panel_position for row in only] == [0, 1, 2]


def test_a_bad_judge_line_is_named(run_dir: Path) -> None:
    path = run_dir / "judges.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[4])
    row["rubric"] = "charm"
    lines[4] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(RunDataError, match="judges.jsonl, line 5, field 'rubric'"):
        judge_rows(run_dir)


def test_views_are_cached_in_the_store_for_the_next_start(run_dir: Path, monkeypatch) -> None:
    first = item_view(run_dir, NOISY)
    with AnnotationStore.open(run_dir) as store:
        cached = store.cached_views(run_fingerprint(run_dir.resolve()))
    assert sorted(cached) == ["a0001", "a0002"]
    # A new process: the views come from the store, the run files are not read.
    _loaded.clear()
    monkeypatch.setattr(RunViews, "load", None)
    assert item_view(run_dir, NOISY) == first
    assert item_view(run_dir, ABSENT).content.context_placeholder == ABSENT_SENTINEL


def test_changed_run_files_or_a_new_sample_bypass_the_cache(run_dir: Path) -> None:
    item_view(run_dir, NOISY)
    _loaded.clear()
    answers = run_dir / "answers.jsonl"
    answers.write_text(
        answers.read_text(encoding="utf-8").replace("The party agrees", "It agrees"),
        encoding="utf-8",
    )
    assert item_view(run_dir, NOISY).content.answer.startswith("It agrees")
    # Another process replaces the sample while this one holds the cached views in memory:
    # the cached view of a0001 describes another item and is not shown for the new a0001.
    _loaded.clear()
    assert item_view(run_dir, NOISY).reveal.model == "target-b"  # from the cache
    other = NOISY.model_copy(update={"model": "target-a"})
    with AnnotationStore.open(run_dir) as store:
        store.write_sample([other, ABSENT], replace=True)
        assert store.cached_views(run_fingerprint(run_dir.resolve())) == {}
    assert item_view(run_dir, other).reveal.model == "target-a"


def test_the_annotation_store_is_the_run_store(tmp_path: Path) -> None:
    from polistemics.llm.store import RunStore
    from polistemics.runlog import RunDir

    with AnnotationStore.open(tmp_path):
        pass
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".sqlite"] == [
        RunDir(tmp_path).store.name
    ]
    with RunStore(RunDir(tmp_path).store) as store:  # the call cache opens the same file
        assert store.call_stats() == []
