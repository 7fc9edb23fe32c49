"""JSONL export and import: blind item lines, labels round trip, refused lines with reasons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polistemics.annotate.jsonl_io import (
    export_lines,
    import_file,
    import_lines,
    write_design,
    write_export,
)
from polistemics.annotate.sample import SampleOptions, draw_sample
from polistemics.annotate.store import AnnotationStore

from .small_run import HOSTILE, build_small_run


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = build_small_run(tmp_path / "run", hostile=True)
    items, _ = draw_sample(run, SampleOptions(n=6, seed=1))
    with AnnotationStore.open(run) as store:
        store.write_sample(items)
    return run


def _first(run_dir: Path) -> tuple[str, list[str]]:
    with AnnotationStore.open(run_dir) as store:
        item = store.sample()[0]
    return item.sample_id, [sq.code for sq in item.sub_questions]


def test_export_holds_blind_items_then_labels(run_dir: Path) -> None:
    sample_id, codes = _first(run_dir)
    with AnnotationStore.open(run_dir) as store:
        store.add_label("Ana", sample_id, codes[0], True, note=HOSTILE)
        models = {item.model for item in store.sample()}
    rows = [json.loads(line) for line in export_lines(run_dir)]
    assert [row["type"] for row in rows] == ["item"] * 6 + ["label"]
    first = rows[0]
    assert first["sample_id"] == sample_id
    assert [sq["code"] for sq in first["sub_questions"]] == codes
    assert HOSTILE in first["answer"] and HOSTILE in first["query"]
    items_text = json.dumps(rows[:6])
    assert not any(model in items_text for model in models)
    assert "judge-" not in items_text
    assert rows[6] == {
        "type": "label",
        "annotator": "Ana",
        "sample_id": sample_id,
        "sub_question": codes[0],
        "says_yes": "Yes",
        "note": HOSTILE,
        "given_at": rows[6]["given_at"],
        "source": "app",
    }


def test_exported_labels_import_into_a_fresh_sample_and_a_reimport_doubles_nothing(
    run_dir: Path, tmp_path: Path
) -> None:
    sample_id, codes = _first(run_dir)
    with AnnotationStore.open(run_dir) as store:
        typed = [
            store.add_label("Ana", sample_id, code, i % 2 == 0) for i, code in enumerate(codes)
        ]
    export = tmp_path / "export.jsonl"
    assert write_export(run_dir, export) == 6 + len(codes)

    # The same run after --replace-free redraw: a copy without labels gets them back.
    copy = build_small_run(tmp_path / "copy", hostile=True)
    items, _ = draw_sample(copy, SampleOptions(n=6, seed=1))
    with AnnotationStore.open(copy) as store:
        store.write_sample(items)
    report = import_file(copy, export)
    assert report.committed == len(codes) and report.items_passed_over == 6
    assert report.refused == []
    with AnnotationStore.open(copy) as store:
        imported = store.labels()
    assert [
        (x.annotator, x.sample_id, x.sub_question, x.says_yes, x.given_at) for x in imported
    ] == [(x.annotator, x.sample_id, x.sub_question, x.says_yes, x.given_at) for x in typed]
    assert {x.source for x in imported} == {"import"}

    again = import_file(copy, export)
    assert again.committed == 0
    assert [r.line for r in again.refused] == list(range(7, 7 + len(codes)))
    assert all("already labelled" in r.reason for r in again.refused)
    with AnnotationStore.open(copy) as store:
        assert len(store.labels()) == len(codes)


def test_bad_lines_are_refused_with_line_and_reason_and_the_rest_kept(run_dir: Path) -> None:
    sample_id, codes = _first(run_dir)
    good = {"annotator": "Ben", "sample_id": sample_id, "sub_question": codes[0], "says_yes": "No"}
    lines = [
        json.dumps(good),
        "{not json",
        json.dumps({**good, "sample_id": "a9999"}),
        json.dumps({**good, "sub_question": "F9"}),
        json.dumps({**good, "says_yes": "maybe"}),
        json.dumps({**good, "annotator": ""}),
        json.dumps({k: v for k, v in good.items() if k != "annotator"}),
        json.dumps({**good, "sub_question": codes[1], "colour": "red"}),
        json.dumps({**good, "sub_question": codes[1], "given_at": "yesterday"}),
        json.dumps(["a", "list"]),
        "",
        json.dumps({**good, "says_yes": "yes", "sub_question": codes[1], "note": "ok"}),
        json.dumps(good),
    ]
    raw = [line.encode() for line in lines] + [b"\xff\xfe"]
    with AnnotationStore.open(run_dir) as store:
        report = import_lines(store, raw)
        stored = store.labels()
    reasons = {r.line: r.reason for r in report.refused}
    assert report.committed == 2
    assert sorted(reasons) == [2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14]
    assert reasons[2].startswith("invalid JSON")
    assert "not in the run's annotation sample" in reasons[3]
    assert "unknown sub-question 'F9'" in reasons[4]
    assert "says_yes must be" in reasons[5]
    assert "annotator name is empty" in reasons[6]
    assert "missing field(s): annotator" in reasons[7]
    assert "unknown field(s): 'colour'" in reasons[8]
    assert "given_at must be an ISO-8601 time" in reasons[9]
    assert "not a JSON object" in reasons[10]
    assert "already labelled" in reasons[13]
    assert "not UTF-8" in reasons[14]
    assert [(x.sub_question, x.says_yes, x.note) for x in stored] == [
        (codes[0], False, None),
        (codes[1], True, "ok"),
    ]


def test_default_annotator_fills_lines_without_one(run_dir: Path) -> None:
    sample_id, codes = _first(run_dir)
    lines = [
        json.dumps({"sample_id": sample_id, "sub_question": codes[0], "says_yes": True}),
        json.dumps(
            {"annotator": "Cy", "sample_id": sample_id, "sub_question": codes[0], "says_yes": 0}
        ),
    ]
    with AnnotationStore.open(run_dir) as store:
        report = import_lines(store, [line.encode() for line in lines], annotator=" Dee ")
        assert [(x.annotator, x.says_yes) for x in store.labels()] == [("Dee", True)]
    # 0 is not a verdict: only Yes/No or true/false.
    assert [r.line for r in report.refused] == [2]


def test_a_given_at_out_of_range_is_refused_and_the_lines_after_it_kept(run_dir: Path) -> None:
    sample_id, codes = _first(run_dir)
    good = {"annotator": "Ben", "sample_id": sample_id, "sub_question": codes[0], "says_yes": "No"}
    lines = [
        json.dumps({**good, "given_at": "0001-01-01T00:00:00+14:00"}),
        json.dumps({**good, "given_at": "9999-12-31T23:59:59-14:00"}),
        json.dumps({**good, "given_at": "2026-01-02T03:04:05+01:00"}),
    ]
    with AnnotationStore.open(run_dir) as store:
        report = import_lines(store, [line.encode() for line in lines])
        stored = store.labels()
    assert [(r.line, "out of range" in r.reason) for r in report.refused] == [(1, True), (2, True)]
    assert report.committed == 1
    assert stored[0].given_at.isoformat() == "2026-01-02T02:04:05+00:00"


def test_a_line_nested_too_deeply_is_refused_not_a_crash(run_dir: Path) -> None:
    """Issue 27, defect 4: a hostile import file cannot exhaust the decoder's stack."""
    with AnnotationStore.open(run_dir) as store:
        report = import_lines(store, [b"[" * 100_000, b'{"a": ' * 100_000])
    assert [r.line for r in report.refused] == [1, 2]
    assert all(r.reason.startswith("invalid JSON") for r in report.refused)


def test_export_items_hold_nothing_derived_from_the_panel(run_dir: Path) -> None:
    """Issue 27: the stratum ("...|agreed") and the weight (split strata are oversampled) told an
    annotator whether the judges agreed. Changing what the panel decided about the items
    (stratum, agreement, weight) must leave the annotator-facing lines unchanged."""
    before = [json.loads(line) for line in export_lines(run_dir)]
    assert {row["type"] for row in before} == {"item"}
    for row in before:
        assert not {"stratum", "weight", "judges_agreed", "model"} & set(row)
        text = json.dumps(row)
        assert "|agreed" not in text and "|split" not in text
    with AnnotationStore.open(run_dir) as store, store._lock:
        store._db.execute(
            "UPDATE annotation_sample SET stratum = stratum || '-x', "
            "judges_agreed = 1 - judges_agreed, weight = weight * 7.5"
        )
    assert [json.loads(line) for line in export_lines(run_dir)] == before


def test_the_design_file_holds_stratum_and_weight_and_imports_as_nothing(
    run_dir: Path, tmp_path: Path
) -> None:
    with AnnotationStore.open(run_dir) as store:
        sample = store.sample()
    design = tmp_path / "design.jsonl"
    assert write_design(run_dir, design) == len(sample)
    rows = [json.loads(line) for line in design.read_text(encoding="utf-8").splitlines()]
    assert [(r["type"], r["sample_id"], r["stratum"], r["weight"]) for r in rows] == [
        ("design", s.sample_id, s.stratum, s.weight) for s in sample
    ]
    assert [r["judges_agreed"] for r in rows] == [s.judges_agreed for s in sample]
    report = import_file(run_dir, design)
    assert (report.committed, report.items_passed_over, report.refused) == (0, len(sample), [])


def test_an_old_export_with_stratum_and_weight_still_imports(run_dir: Path, tmp_path: Path) -> None:
    """Exports of format 1 carried ``stratum`` and ``weight`` in their item lines."""
    sample_id, codes = _first(run_dir)
    old = tmp_path / "old.jsonl"
    item = {
        "type": "item",
        "format": 1,
        "sample_id": sample_id,
        "stratum": "baseline|faithfulness|agreed",
        "weight": 2.5,
        "annotators_wanted": 1,
        "answer": "text",
    }
    label = {
        "type": "label",
        "annotator": "Ana",
        "sample_id": sample_id,
        "sub_question": codes[0],
        "says_yes": "Yes",
        "given_at": "2026-11-30T19:04:55+00:00",
        "source": "app",
    }
    old.write_text(json.dumps(item) + "\n" + json.dumps(label) + "\n", encoding="utf-8")
    report = import_file(run_dir, old)
    assert (report.committed, report.items_passed_over, report.refused) == (1, 1, [])
