from __future__ import annotations

import gc

import pytest

from polistemics.run.finish import _cyclic_gc_paused


@pytest.mark.parametrize("enabled", [True, False])
def test_collection_is_paused_then_left_as_it_was(enabled: bool) -> None:
    (gc.enable if enabled else gc.disable)()
    try:
        with pytest.raises(RuntimeError), _cyclic_gc_paused():
            assert not gc.isenabled()
            raise RuntimeError("a failing step")
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
