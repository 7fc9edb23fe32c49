"""Safe names and joins that cannot leave their root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from polistemics.paths import UnsafePathError, check_name, inside, is_safe_name


@pytest.mark.parametrize("name", ["x", "demo_en", "nl_tk2025", "run-1.v2", "A" * 64])
def test_safe_names(name: str) -> None:
    assert is_safe_name(name) and check_name(name, "run name") == name


@pytest.mark.parametrize(
    "name",
    [
        "",
        ".",
        "..",
        "../x",
        "../../x",
        "/abs",
        "a/b",
        "a\\b",
        ".hidden",
        "-x",
        "a b",
        "x\n",
        "A" * 65,
        "caf\u00e9",
        None,
        3,
    ],
)
def test_unsafe_names(name: object) -> None:
    assert not is_safe_name(name)
    with pytest.raises(UnsafePathError, match="run name"):
        check_name(name, "run name")


def test_inside_joins_under_the_root(tmp_path: Path) -> None:
    assert inside(tmp_path, "exports", "nl_tk2025") == tmp_path / "exports" / "nl_tk2025"
    assert inside(tmp_path) == tmp_path


@pytest.mark.parametrize("parts", [("..",), ("a", "..", ".."), ("/etc",), (".",), ("a", "..")])
def test_inside_refuses_what_leaves_or_is_the_root(tmp_path: Path, parts: tuple[str, ...]) -> None:
    with pytest.raises(UnsafePathError):
        inside(tmp_path / "root", *parts)


def test_inside_follows_symlinks(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "link")
    with pytest.raises(UnsafePathError, match="leads outside"):
        inside(root, "link", "file.csv")
    (root / "real").mkdir()
    os.symlink(root / "real", root / "inner")
    assert inside(root, "inner", "file.csv") == root / "inner" / "file.csv"


def test_inside_works_with_a_relative_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert inside(Path("runs"), "x") == Path("runs") / "x"
    with pytest.raises(UnsafePathError):
        inside(Path("runs"), "..", "x")


def test_an_output_folder_with_a_link_where_a_file_goes_is_refused(tmp_path: Path) -> None:
    from polistemics.paths import output_folder

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "linked").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="linked is a symbolic link"):
        output_folder(tmp_path / "linked")
    out = output_folder(tmp_path / "out", ("tables",))
    assert (out / "tables").is_dir()
    (out / "figures").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="figures is a symbolic link"):
        output_folder(out, ("tables", "figures"))
    (out / "figures").unlink()
    (out / "tables" / "leaderboard.csv").symlink_to(elsewhere / "victim.csv")
    with pytest.raises(UnsafePathError, match="leaderboard.csv is a symbolic link"):
        output_folder(out, ("tables", "figures"))
    assert list(elsewhere.iterdir()) == []


def test_a_replacing_write_replaces_a_link_and_leaves_its_target_alone(tmp_path: Path) -> None:
    import os

    from polistemics.paths import write_text_replacing

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    soft, hard = tmp_path / "soft.html", tmp_path / "hard.html"
    soft.symlink_to(victim)
    os.link(victim, hard)
    for path in (soft, hard):
        write_text_replacing(path, "<p>report</p>")
        assert not path.is_symlink() and path.read_text() == "<p>report</p>"
    assert victim.read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_replacing_renames_a_new_file_into_place_or_leaves_the_same_bytes_alone(
    tmp_path: Path,
) -> None:
    from polistemics.paths import replacing

    path = tmp_path / "sub" / "records.jsonl"
    with replacing(path) as temporary:
        assert temporary.parent == path.parent and temporary != path
        temporary.write_text("one\n")
    assert path.read_text() == "one\n"
    os.utime(path, ns=(1, 1))  # a time no write would give
    with replacing(path) as temporary:
        temporary.write_text("one\n")
    assert path.stat().st_mtime_ns == 1  # the same bytes: left untouched
    with replacing(path) as temporary:
        temporary.write_text("two\n")
    assert path.read_text() == "two\n" and path.stat().st_mtime_ns != 1
    assert sorted(p.name for p in path.parent.iterdir()) == ["records.jsonl"]


def test_replacing_interrupted_leaves_the_old_file_whole_and_no_temporary_file(
    tmp_path: Path,
) -> None:
    from polistemics.paths import replacing

    path = tmp_path / "records.jsonl"
    path.write_text("whole\n")
    with pytest.raises(KeyboardInterrupt), replacing(path) as temporary:
        temporary.write_text("half")
        raise KeyboardInterrupt
    assert path.read_text() == "whole\n"
    assert [p.name for p in tmp_path.iterdir()] == ["records.jsonl"]


def test_replacing_replaces_a_link_and_leaves_its_target_alone(tmp_path: Path) -> None:
    from polistemics.paths import replacing

    target = tmp_path / "target.txt"
    target.write_text("same\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with replacing(link) as temporary:
        temporary.write_text("same\n")
    assert not link.is_symlink() and target.read_text() == "same\n"
