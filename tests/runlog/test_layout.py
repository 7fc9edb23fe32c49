"""Run-directory paths built from names stay inside the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from polistemics.conditions import Variant
from polistemics.paths import UnsafePathError
from polistemics.runlog.layout import release_folder


def test_release_folder_of_a_safe_id(tmp_path: Path) -> None:
    assert (
        release_folder(tmp_path, "de-btw2025", Variant.FULL) == tmp_path / "exports" / "de-btw2025"
    )
    assert release_folder(tmp_path, "nl.tk_2025", Variant.ANONYMIZED).name == "anon_v1"


@pytest.mark.parametrize("bad", ["..", ".", "", "../../x", "/etc", "a/b", "x\n", "-rf"])
def test_release_folder_refuses_an_id_that_is_no_file_name(tmp_path: Path, bad: str) -> None:
    with pytest.raises(UnsafePathError):
        release_folder(tmp_path, bad, Variant.FULL)


def test_release_folder_refuses_a_symlink_out_of_the_run(tmp_path: Path) -> None:
    run_dir, outside = tmp_path / "run", tmp_path / "elsewhere"
    (run_dir / "exports").mkdir(parents=True)
    outside.mkdir()
    (run_dir / "exports" / "de").symlink_to(outside)
    with pytest.raises(UnsafePathError, match="outside"):
        release_folder(run_dir, "de", Variant.FULL)
