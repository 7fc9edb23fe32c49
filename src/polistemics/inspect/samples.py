"""An exported dataset's items as inspect_ai samples.

Each row of the ``items`` table (``polistemics.export_dataset``) is one sample: its input is the
task prompt (system and user message) the study's answerer got, its target the stance the judges
check against, its id the item key, and its metadata the row itself, from which the scorer
rebuilds the ``EnvironmentItem``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from polistemics.conditions import Environment, Variant
from polistemics.export_dataset.card import data_files
from polistemics.export_dataset.tables import ITEMS


class DatasetFolderError(ValueError):
    """The folder is not a dataset written by ``polistemics export dataset``."""


def read_item_rows(folder: Path | str) -> list[dict[str, Any]]:
    """Every row of the folder's ``items`` table, in file order."""
    import pyarrow.parquet as pq

    files = sorted(Path(folder).glob(data_files(ITEMS)))
    if not files:
        raise DatasetFolderError(
            f"{folder} has no {data_files(ITEMS)}: export a run with "
            "`polistemics export dataset RUN --out DIR` first"
        )
    rows: list[dict[str, Any]] = []
    for path in files:
        rows.extend(pq.read_table(path).to_pylist())
    return rows


def item_samples(
    folder: Path | str,
    environments: list[str] | None = None,
    variants: list[str] | None = None,
) -> MemoryDataset:
    """The items of the folder as samples; ``environments`` and ``variants`` (names, as in
    the release: ``baseline``, ``ie_noise``, ...; ``full``, ``anon``, ``en``) keep only those."""
    keep_environments = {Environment.parse(name).value for name in environments or ()}
    keep_variants = {Variant(name).value for name in variants or ()}
    samples = [
        sample_for(row)
        for row in read_item_rows(folder)
        if (not keep_environments or row["environment"] in keep_environments)
        and (not keep_variants or row["variant"] in keep_variants)
    ]
    return MemoryDataset(samples, name=f"polistemics:{Path(folder).name}", location=str(folder))


def sample_for(row: dict[str, Any]) -> Sample:
    return Sample(
        id=row["key"],
        input=[
            ChatMessageSystem(content=row["system_prompt"]),
            ChatMessageUser(content=row["user_prompt"]),
        ],
        target=row["judged_expected_stance"],
        metadata=row,
    )
