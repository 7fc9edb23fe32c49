"""Names that become file names, and paths that must stay inside their root.

A run's name, an election id or a download slug ends up as a folder name. ``check_name`` is the
one rule for such names (letters, digits, '.', '_' and '-', starting with a letter or digit, at
most 64 characters), so none can be '..', empty, absolute or hold a separator. ``inside`` is the
second line of defence where a path is built: it joins parts to a root and refuses a result that
resolves (symlinks followed) outside the root.

An output folder (a report's, a comparison's) is made ready with ``output_folder``: a symbolic
link there (the folder itself, a subfolder written into, or an entry in either) is refused, so no
write follows a link out of the folder. ``write_text_replacing`` writes a file as a new file
renamed into place, so even a link made meanwhile is replaced, never written through.
"""

from __future__ import annotations

import filecmp
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
SAFE_NAME_RULE = "1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"


class UnsafePathError(ValueError):
    """A name is not usable as a file name, or a path would leave its root."""


def is_safe_name(value: object) -> bool:
    # fullmatch: '$' alone would accept a trailing newline.
    return isinstance(value, str) and SAFE_NAME.fullmatch(value) is not None


def check_name(value: object, what: str) -> str:
    """``value`` when it is a safe file name; otherwise an error naming ``what`` and the value."""
    if not is_safe_name(value):
        raise UnsafePathError(f"{what} {value!r} is not usable as a file name ({SAFE_NAME_RULE})")
    assert isinstance(value, str)
    return value


def inside(root: Path | str, *parts: str | Path) -> Path:
    """``root / parts...``, refused unless it resolves to a path inside ``root`` (or ``root``
    itself when no part is given). Both sides are resolved, so a symlink pointing out counts as
    out; the returned path is the unresolved join, as the caller wrote it."""
    root = Path(root)
    joined = root.joinpath(*parts)
    resolved_root = root.resolve()
    resolved = joined.resolve()
    if resolved != resolved_root and not resolved.is_relative_to(resolved_root):
        shown = "/".join(str(p) for p in parts)
        raise UnsafePathError(f"{shown!r} leads outside {root}")
    if parts and resolved == resolved_root:
        raise UnsafePathError(f"{'/'.join(str(p) for p in parts)!r} names {root} itself")
    return joined


def output_folder(folder: Path | str, subfolders: Iterable[str] = ()) -> Path:
    """``folder`` and its ``subfolders``, created, for writing into; refused
    (``UnsafePathError``) where a symbolic link would be written through: the folder, a subfolder
    or an entry directly in either. Links are refused, not removed: they may be the user's."""
    folder = Path(folder)
    for path in (folder, *(folder / name for name in subfolders)):
        if path.is_symlink():
            raise UnsafePathError(f"{path} is a symbolic link: refusing to write through it")
        path.mkdir(parents=True, exist_ok=True)
        for entry in path.iterdir():
            if entry.is_symlink():
                raise UnsafePathError(f"{entry} is a symbolic link: refusing to write through it")
    return folder


def write_text_replacing(path: Path | str, text: str) -> Path:
    """``text`` (UTF-8) at ``path``, written to a new file in the same folder and renamed over
    ``path``: a link or hard link at ``path`` is replaced, its target left as it was."""
    path = Path(path)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


@contextmanager
def replacing(path: Path | str) -> Iterator[Path]:
    """A new file beside ``path`` for the block to write; when the block ends it is renamed over
    ``path`` (a reader, or a run interrupted meanwhile, never sees a torn file), unless ``path``
    already holds the same bytes: then ``path`` is left as it was, its modification time too
    (``run.incremental`` sees an unchanged file). Removed when the block raises."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        if _same_bytes(temporary, path):
            temporary.unlink()
        else:
            os.chmod(temporary, 0o666 & ~_umask())
            os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _same_bytes(new: Path, old: Path) -> bool:
    """Whether ``old`` is a regular file (not a link) with the bytes of ``new``."""
    if old.is_symlink() or not old.is_file() or old.stat().st_size != new.stat().st_size:
        return False
    return filecmp.cmp(new, old, shallow=False)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
