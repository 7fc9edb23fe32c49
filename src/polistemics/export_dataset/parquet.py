"""Parquet files through pyarrow, which comes with the ``dataset`` extra.

A table is written to a new file in its folder and renamed over its name, so a link placed
where the file goes is replaced, never written through (as ``paths.write_text_replacing`` does
for text).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polistemics.export_dataset.tables import schema

INSTALL_HINT = "pip install 'polistemics[dataset]'"


class MissingPyarrow(RuntimeError):
    """pyarrow is not installed; the message says how to install it."""


def require_pyarrow() -> None:
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError as error:
        raise MissingPyarrow(
            f"writing Parquet needs pyarrow, which is not installed ({error}): run `{INSTALL_HINT}`"
        ) from None


def write_table(path: Path, config: str, rows: Sequence[dict[str, Any]]) -> int:
    """``rows`` as the Parquet file ``path`` with the table's schema; returns its size in bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(list(rows), schema=schema(config))
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, temporary, compression="zstd")
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path.stat().st_size


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
