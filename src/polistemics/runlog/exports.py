"""Removal of the exports of elections a run no longer has.

A run directory reused with another config (``demo`` switched to ``demo:de``) would otherwise
keep ``exports/demo_en/`` with its stance codes and probe answers beside the new election's.
Nothing is followed through a link: a stale link is removed as a link, ``exports/`` that is
itself a link is left alone, and folders are removed by ``shutil.rmtree``, which removes the
links inside a folder without following them.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from polistemics.runlog.layout import EXPORTS_FOLDER


def remove_stale_exports(run_dir: Path, election_ids: Iterable[str]) -> list[Path]:
    """Remove every ``exports/<name>/`` folder (or link) whose name is not one of
    ``election_ids``; returns what was removed. Plain files in ``exports/`` are left."""
    exports = Path(run_dir) / EXPORTS_FOLDER
    if exports.is_symlink() or not exports.is_dir():
        return []
    keep = set(election_ids)
    removed = []
    for entry in sorted(exports.iterdir()):
        if entry.name in keep:
            continue
        if entry.is_symlink():
            entry.unlink()
        elif entry.is_dir():
            shutil.rmtree(entry)
        else:
            continue
        removed.append(entry)
    return removed
