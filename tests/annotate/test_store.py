"""The annotation store: sample round trip, refused labels, overlap, durability, concurrency."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from polistemics.annotate.store import (
    AnnotationStore,
    LabelNotBlind,
    LabelRefused,
    SampleExistsError,
    SampleItem,
    sample_id_for,
)
from polistemics.conditions import Environment
from polistemics.rubrics import Rubric


def make_item(number: int, *, rubric=Rubric.FAITHFULNESS, env=Environment.BASELINE, wanted=1):
    agreed = number % 2 == 0
    return SampleItem(
        sample_id=sample_id_for(number, 100),
        item_key=f"obs{number}|{env.value}|full",
        model="target-a",
        sample_index=0,
        rubric=rubric,
        environment=env,
        language="Dutch",
        stratum=f"{env.value}|{rubric.value}|{'agreed' if agreed else 'split'}",
        judges_agreed=agreed,
        weight=2.5,
        annotators_wanted=wanted,
        seed=7,
    )


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    with AnnotationStore.open(run) as store:
        store.write_sample(
            [
                make_item(1, wanted=2),
                make_item(2),
                make_item(3, rubric=Rubric.EPISTEMIC_CALIBRATION, env=Environment.ABSENT),
            ]
        )
    return run


def test_sample_round_trips_in_draw_order(run_dir: Path) -> None:
    with AnnotationStore.open(run_dir) as store:
        items = store.sample()
    assert [item.sample_id for item in items] == ["a0001", "a0002", "a0003"]
    assert items[0] == make_item(1, wanted=2)
    assert items[2].environment is Environment.ABSENT
    assert [sq.code for sq in items[2].sub_questions] == ["EC1", "EC3", "EC4"]


def test_sample_ids_keep_draw_order_beyond_four_digits() -> None:
    ids = [sample_id_for(n, 12000) for n in (1, 999, 9999, 10000, 12000)]
    assert ids == sorted(ids)
    assert ids[0] == "a00001"


def test_open_refuses_a_missing_run_directory(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        AnnotationStore.open(tmp_path / "nowhere")


@pytest.mark.parametrize(
    ("annotator", "sample_id", "sub_question", "reason"),
    [
        ("ann", "a0099", "F1", "not in the run's annotation sample"),
        ("ann", "a0001", "F9", "unknown sub-question 'F9'"),
        ("ann", "a0001", "I1", "I1 is not asked for Faithfulness"),
        ("ann", "a0001", "F3", "F3 is not asked for Faithfulness in Baseline"),
        ("ann", "a0003", "EC2", "EC2 is not asked"),
        ("   ", "a0001", "F1", "annotator name is empty"),
        ("x" * 65, "a0001", "F1", "longer than 64 characters"),
        ("Ana\x00", "a0001", "F1", "holds a NUL character"),
        ("\x00", "a0001", "F1", "holds a NUL character"),
    ],
)
def test_refused_labels_name_their_reason(run_dir, annotator, sample_id, sub_question, reason):
    with AnnotationStore.open(run_dir) as store:
        with pytest.raises(LabelRefused) as refused:
            store.add_label(annotator, sample_id, sub_question, True)
        assert reason in refused.value.reason
        assert store.labels() == []


def test_duplicate_label_is_refused_even_with_other_spacing(run_dir: Path) -> None:
    with AnnotationStore.open(run_dir) as store:
        first = store.add_label("Ana", "a0001", "F1", True, note="  clear  ")
        with pytest.raises(LabelRefused, match="already labelled F1 of item a0001"):
            store.add_label(" Ana ", "a0001", "F1", False)
        assert store.labels() == [first]
    assert first.note == "clear"
    assert first.given_at.utcoffset().total_seconds() == 0


def test_release_key_is_stored_as_its_code(run_dir: Path) -> None:
    with AnnotationStore.open(run_dir) as store:
        label = store.add_label("Ana", "a0001", "information_fabrication", False)
    assert label.sub_question == "F2"


def test_names_are_only_names_any_text_is_kept(run_dir: Path) -> None:
    hostile = "<script>alert(1)</script>'; DROP TABLE annotation_labels;--"
    with AnnotationStore.open(run_dir) as store:
        store.add_label(hostile, "a0001", "F1", True)
        assert store.labels()[0].annotator == hostile
        assert store.annotators() == [hostile]


def test_labels_survive_reopening(run_dir: Path) -> None:
    with AnnotationStore.open(run_dir) as store:
        given = [
            store.add_label("Ana", "a0001", code, code == "F1", source="import")
            for code in ("F1", "F2")
        ]
    with AnnotationStore.open(run_dir) as store:
        assert store.labels() == given
        assert store.labels(annotator="Ana", sample_id="a0001") == given
        assert store.labels(sample_id="a0002") == []


def test_next_for_walks_draw_order_and_respects_overlap(run_dir: Path) -> None:
    with AnnotationStore.open(run_dir) as store:
        assert store.next_for("Ana").sample_id == "a0001"
        assert store.progress("Ana") == (0, 3)
        store.add_label("Ana", "a0001", "F1", True)
        # Partly labelled: still Ana's next item.
        assert store.next_for("Ana").sample_id == "a0001"
        store.add_label("Ana", "a0001", "F2", False)
        assert store.next_for("Ana").sample_id == "a0002"
        assert store.next_for("Ana", after="a0002").sample_id == "a0003"
        assert store.progress("Ana") == (1, 3)
        # a0001 wants two annotators, a0002 one: Ben may join a0001 but Ana has started a0002.
        store.add_label("Ana", "a0002", "F1", True)
        assert store.progress("Ben") == (0, 2)
        assert [item.sample_id for item, _ in store.available_for("Ben")] == ["a0001", "a0003"]
        for code in ("F1", "F2"):
            store.add_label("Ben", "a0001", code, True)
        # a0001 has its two annotators now: Cy gets only a0003.
        assert store.next_for("Cy").sample_id == "a0003"
        assert store.progress("Cy") == (0, 1)
        for code in ("EC1", "EC3", "EC4"):
            store.add_label("Cy", "a0003", code, False)
        assert store.next_for("Cy") is None
        assert store.progress("Cy") == (1, 1)


def test_sample_is_replaced_only_when_asked_and_never_with_labels(run_dir: Path) -> None:
    with AnnotationStore.open(run_dir) as store:
        with pytest.raises(SampleExistsError, match="--replace"):
            store.write_sample([make_item(5)])
        store.write_sample([make_item(5)], replace=True)
        assert [item.sample_id for item in store.sample()] == ["a0005"]
        store.add_label("Ana", "a0005", "F1", True)
        with pytest.raises(SampleExistsError, match="1 labels"):
            store.write_sample([make_item(6)], replace=True)
        assert [item.sample_id for item in store.sample()] == ["a0005"]
        assert len(store.labels()) == 1


def test_another_connections_new_sample_is_seen(run_dir: Path) -> None:
    with AnnotationStore.open(run_dir) as reader, AnnotationStore.open(run_dir) as writer:
        assert len(reader.sample()) == 3
        writer.write_sample([make_item(9)], replace=True)
        assert [item.sample_id for item in reader.sample()] == ["a0009"]
        reader.add_label("Ana", "a0009", "F1", True)


def _all_labels(annotators: list[str]) -> list[tuple[str, str, str]]:
    return [
        (who, sample_id, code)
        for who in annotators
        for sample_id, codes in (("a0001", ("F1", "F2")), ("a0003", ("EC1", "EC3", "EC4")))
        for code in codes
    ]


def test_threads_lose_and_duplicate_nothing(run_dir: Path) -> None:
    wanted = _all_labels(["Ana", "Ben"])
    refused: list[str] = []
    errors: list[BaseException] = []

    def label_everything(store: AnnotationStore) -> None:
        for who, sample_id, code in wanted:
            try:
                store.add_label(who, sample_id, code, True)
            except LabelRefused as exc:
                refused.append(exc.reason)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

    shared = AnnotationStore.open(run_dir)
    own = [AnnotationStore.open(run_dir) for _ in range(3)]
    threads = [
        threading.Thread(target=label_everything, args=(store,)) for store in [shared] * 3 + own
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for store in [shared, *own]:
        store.close()
    assert errors == []
    with AnnotationStore.open(run_dir) as store:
        stored = [(x.annotator, x.sample_id, x.sub_question) for x in store.labels()]
    assert sorted(stored) == sorted(wanted)
    assert len(refused) == 5 * len(wanted)
    assert all("already labelled" in reason for reason in refused)


_WORKER = textwrap.dedent(
    """
    import sys
    from polistemics.annotate.store import AnnotationStore, LabelRefused
    run_dir, who = sys.argv[1], sys.argv[2].split(",")
    stored = refused = 0
    with AnnotationStore.open(run_dir) as store:
        for name in who:
            for sample_id, codes in (("a0001", ("F1", "F2")), ("a0003", ("EC1", "EC3", "EC4"))):
                for code in codes:
                    try:
                        store.add_label(name, sample_id, code, code == "F1")
                        stored += 1
                    except LabelRefused:
                        refused += 1
    print(stored, refused)
    """
)


def test_two_processes_lose_and_duplicate_nothing(run_dir: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    names = ",".join(f"annotator{i}" for i in range(20))
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(run_dir), names],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    outputs = [worker.communicate(timeout=120)[0].split() for worker in workers]
    assert all(worker.returncode == 0 for worker in workers)
    per_worker = 20 * 5
    stored = sum(int(out[0]) for out in outputs)
    refused = sum(int(out[1]) for out in outputs)
    assert stored == per_worker
    assert refused == per_worker
    with AnnotationStore.open(run_dir) as store:
        keys = [(x.annotator, x.sample_id, x.sub_question) for x in store.labels()]
    assert len(keys) == len(set(keys)) == per_worker


def _finish(store: AnnotationStore, who: str, sample_id: str) -> None:
    for sq in store.sample_item(sample_id).sub_questions:
        store.add_label(who, sample_id, sq.code, True)


def test_verdicts_are_revealable_only_after_the_whole_assignment_on_closed_items(
    run_dir: Path,
) -> None:
    """The --reveal policy (issue 27): nothing before every item open to the annotator is done;
    then only items every annotator they want, and everyone who started them, finished."""
    with AnnotationStore.open(run_dir) as store:
        _finish(store, "Ana", "a0001")
        _finish(store, "Ana", "a0002")
        assert not store.assignment_done("Ana") and store.revealable("Ana") == []
        _finish(store, "Ana", "a0003")
        assert store.assignment_done("Ana")
        # a0001 wants two annotators: shown to Ana once Ben has finished it too.
        assert [i.sample_id for i in store.revealable("Ana")] == ["a0002", "a0003"]
        store.add_label("Ben", "a0001", "F1", False)
        assert not store.assignment_done("Ben") and store.revealable("Ben") == []
        assert [i.sample_id for i in store.revealable("Ana")] == ["a0002", "a0003"]
        store.add_label("Ben", "a0001", "F2", False)
        assert [i.sample_id for i in store.revealable("Ben")] == ["a0001"]
        assert [i.sample_id for i in store.revealable("Ana")] == ["a0001", "a0002", "a0003"]
        # A name with nothing open is "done" but has labelled nothing to be shown.
        assert store.assignment_done("Cy") and store.revealable("Cy") == []


def test_after_a_reveal_labels_are_refused_and_not_counted(run_dir: Path) -> None:
    with AnnotationStore.open(run_dir) as store:
        for sample_id in ("a0001", "a0002", "a0003"):
            _finish(store, "Ana", sample_id)
        store.add_label("Ben", "a0001", "F1", True)
        store.record_reveal("Ana", "a0002")
        assert store.revealed() == [("Ana", "a0002")]
        with pytest.raises(LabelNotBlind, match="Ana has seen the panel's verdicts"):
            store.add_label("Ana", "a0001", "F1", False)  # a duplicate would say so otherwise
        with pytest.raises(LabelNotBlind, match="verdicts on item a0002 have been shown"):
            store.add_label("Eve", "a0002", "F1", True)
        store.add_label("Ben", "a0001", "F2", True)  # another item, another name: blind
        assert len(store.counted_labels()) == len(store.labels()) == 9
        assert store.labels_after_a_reveal() == 0
        # Labels that reach the table anyway (a writer that does not check) are not counted.
        with store._lock:
            store._db.executemany(
                "INSERT INTO annotation_labels VALUES (?, ?, ?, 1, NULL, ?, 'import')",
                [
                    ("Ana", "a0003", "EC2", "2000-01-01T00:00:00+00:00"),
                    ("Eve", "a0002", "F2", "2000-01-01T00:00:00+00:00"),
                ],
            )
        counted = store.counted_labels()
        assert store.labels_after_a_reveal() == 2 and len(counted) == 9
        assert ("Eve", "a0002") not in {(x.annotator, x.sample_id) for x in counted}
        # A second reveal of the same item keeps the first watermark.
        store.record_reveal("Ana", "a0002")
        assert store.labels_after_a_reveal() == 2
