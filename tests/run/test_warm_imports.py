"""``run.warm_imports``: modules imported by a thread while a block runs."""

from __future__ import annotations

import sys

import pytest

from polistemics.run.warm_imports import FINISH_MODULES, imported_meanwhile


@pytest.fixture
def package(tmp_path, monkeypatch):
    """Two importable modules (one records the thread that imported it) and a broken one."""
    (tmp_path / "warm_a.py").write_text(
        "import threading\nTHREAD = threading.current_thread().name\n", encoding="utf-8"
    )
    (tmp_path / "warm_b.py").write_text("VALUE = 2\n", encoding="utf-8")
    (tmp_path / "warm_broken.py").write_text("raise RuntimeError('broken')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in ("warm_a", "warm_b", "warm_broken"):
        sys.modules.pop(name, None)


def test_the_modules_are_imported_by_another_thread_by_the_time_the_block_ends(package) -> None:
    with imported_meanwhile(["warm_a", "warm_b"]):
        pass
    assert sys.modules["warm_a"].THREAD == "polistemics-imports"
    assert sys.modules["warm_b"].VALUE == 2


def test_a_failed_import_is_left_to_the_caller(package) -> None:
    with imported_meanwhile(["warm_broken", "warm_b"]):
        pass
    assert "warm_broken" not in sys.modules
    with pytest.raises(RuntimeError, match="broken"):
        __import__("warm_broken")


def test_the_blocks_own_error_comes_through(package) -> None:
    with pytest.raises(KeyError), imported_meanwhile(["warm_a"]):
        raise KeyError("stage failed")
    assert "warm_a" in sys.modules  # the thread was waited for


def test_the_finish_modules_exist() -> None:
    import importlib.util

    for name in FINISH_MODULES:
        assert importlib.util.find_spec(name) is not None, name
