"""The garbage collector policies of the run's heavy steps."""

from __future__ import annotations

import gc

import pytest

from polistemics.run.collector import (
    YOUNG_COLLECTION_EVERY,
    cyclic_gc_paused,
    survivors_frozen,
)


def test_full_collections_walk_only_what_is_new_and_still_find_new_cycles() -> None:
    existing = [[] for _ in range(1000)]
    with survivors_frozen():
        assert gc.get_freeze_count() >= len(existing)  # what exists on entry is set aside
        cycle: list = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1  # garbage made inside is still collected
        # Counted before the objects are made: a young collection the allocations trigger may
        # set some of them aside already (the suite saw 478 of 500 counted in ``before``).
        before = gc.get_freeze_count()
        made_inside = [[] for _ in range(500)]
        gc.collect()  # a full collection: its survivors are set aside too
        assert gc.get_freeze_count() >= before + len(made_inside)
    assert gc.get_freeze_count() == 0  # all handed back to the collector


def test_young_collections_come_less_often_inside_and_as_before_after() -> None:
    thresholds = gc.get_threshold()
    with survivors_frozen():
        assert gc.get_threshold() == (YOUNG_COLLECTION_EVERY, *thresholds[1:])
        assert thresholds[0] < YOUNG_COLLECTION_EVERY
    assert gc.get_threshold() == thresholds


def test_the_collector_is_restored_when_the_block_fails() -> None:
    callbacks, thresholds = list(gc.callbacks), gc.get_threshold()
    with pytest.raises(RuntimeError), survivors_frozen():
        raise RuntimeError("stage failed")
    assert gc.get_freeze_count() == 0 and gc.callbacks == callbacks
    assert gc.get_threshold() == thresholds


@pytest.mark.parametrize("enabled", [True, False])
def test_collection_is_paused_then_left_as_it_was(enabled: bool) -> None:
    (gc.enable if enabled else gc.disable)()
    try:
        with pytest.raises(RuntimeError), cyclic_gc_paused():
            assert not gc.isenabled()
            raise RuntimeError("a failing step")
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


def test_the_policies_can_be_switched_off_for_a_measurement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("POLISTEMICS_GC_POLICY", "off")
    thresholds = gc.get_threshold()
    with survivors_frozen():
        assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds
    with cyclic_gc_paused():
        assert gc.isenabled()
