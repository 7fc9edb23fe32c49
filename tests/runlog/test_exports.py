"""Exports of elections a run no longer has are removed, without following any link."""

from __future__ import annotations

from pathlib import Path

from polistemics.runlog.exports import remove_stale_exports


def test_only_the_runs_elections_keep_their_exports(tmp_path: Path) -> None:
    exports = tmp_path / "exports"
    for name in ("demo_en", "demo_de"):
        (exports / name / "anon_v1").mkdir(parents=True)
        (exports / name / "stance_codes.jsonl").write_text("{}\n")
    (exports / "README.txt").write_text("a user's note")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "keep").mkdir(parents=True)
    (elsewhere / "keep" / "data.jsonl").write_text("precious")
    (exports / "linked_old").symlink_to(elsewhere / "keep", target_is_directory=True)
    (exports / "demo_en" / "link_inside").symlink_to(elsewhere / "keep", target_is_directory=True)

    removed = remove_stale_exports(tmp_path, ["demo_de"])

    assert [p.name for p in removed] == ["demo_en", "linked_old"]
    assert sorted(p.name for p in exports.iterdir()) == ["README.txt", "demo_de"]
    assert (elsewhere / "keep" / "data.jsonl").read_text() == "precious"


def test_an_exports_link_is_left_alone(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "someone_else").mkdir(parents=True)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "exports").symlink_to(elsewhere, target_is_directory=True)
    assert remove_stale_exports(tmp_path / "run", ["demo_en"]) == []
    assert (elsewhere / "someone_else").is_dir()
