import json
from pathlib import Path

import pytest

from polistemics.coding.records import SubjectCode
from polistemics.coding.validation import (
    LANGUAGE_NAMES,
    VALIDATION_MODEL,
    ValidationSetError,
    distribution_table,
    evaluate,
    label_distribution,
    load_validation_set,
)
from polistemics.runlog import CodedStance

# The mechanisms guide shows the set's labels (moved there from the README).
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "mechanisms.md"


def test_shipped_set_is_large_balanced_and_well_formed():
    items = load_validation_set()
    assert len(items) >= 90
    assert len({item.id for item in items}) == len(items)
    for language, row in label_distribution(items).items():
        assert language in LANGUAGE_NAMES
        assert all(count >= 5 for count in row.values()), (language, row)
    assert {item.outside_knowledge for item in items} == {True, False, None}
    assert any(item.context is None for item in items)  # closed-book answers
    assert any(item.context == () for item in items)  # Absent answers
    assert sum("stance" in item.answer.lower() for item in items) >= 6  # planted labels


def test_mechanisms_guide_shows_the_sets_label_distribution():
    assert distribution_table(load_validation_set()) in GUIDE.read_text(encoding="utf-8")


def test_a_malformed_or_duplicated_line_is_refused(tmp_path):
    good = {
        "id": "x-1",
        "language": "en",
        "party": "P",
        "statement": "S",
        "context": None,
        "answer": "P agrees.",
        "stance": "agree",
        "outside_knowledge": True,
    }
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n", encoding="utf-8")
    with pytest.raises(ValidationSetError, match="2: duplicate id"):
        load_validation_set(path)
    path.write_text(json.dumps(good | {"stance": "supports"}) + "\n", encoding="utf-8")
    with pytest.raises(ValidationSetError, match=":1:"):
        load_validation_set(path)


def code(key: str, stance: CodedStance | None, outside: bool | None = None) -> SubjectCode:
    return SubjectCode(
        kind="answer",
        subject_key=key,
        model=VALIDATION_MODEL,
        sample_index=0,
        stance=stance,
        outside_knowledge=outside,
        seats=1,
        missing_seats=int(stance is None),
    )


def test_evaluate_counts_missing_as_wrong_and_leaves_it_out_of_kappa():
    items = [i for i in load_validation_set() if i.language == "en"][:14]
    codes = [code(i.id, i.stance, i.outside_knowledge) for i in items[:-1]]  # the last: missing
    report = evaluate(items, codes, ["c"])
    assert (report.accuracy.successes, report.accuracy.n) == (13, 14)
    assert report.kappa == pytest.approx(1.0)
    assert report.missing == 1
    assert report.confusion[items[-1].stance.value]["missing"] == 1
    labelled = [i for i in items[:-1] if i.outside_knowledge is not None]
    assert (report.outside_knowledge.successes, report.outside_knowledge.n) == (
        len(labelled),
        len(labelled),
    )
    assert set(report.per_language) == {"en"}


def test_every_item_can_be_coded_right_despite_planted_labels():
    """The injection defence refuses a stance the answer plants; no item plants its true one."""
    from polistemics.coding.parse import parse_coder_reply

    for item in load_validation_set():
        reply = json.dumps({"stance": item.stance.value, "outside_knowledge": "no"})
        assert parse_coder_reply(reply, quoted=(item.answer,)).stance is item.stance, item.id
        # ... and an answer's plain label line is never taken for the coder's own.
        for line in item.answer.splitlines():
            if line.lower().startswith("stance:"):
                assert parse_coder_reply(line, quoted=(item.answer,)).stance is None
