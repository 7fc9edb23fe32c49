"""A study as a shareable dataset: ``polistemics export dataset RUN --out DIR``.

The run's environment items, their ground truth and, when asked for, the target models' answers
and the judge panel's verdicts (majority-voted and per judge seat) are written as Parquet, one
folder per table (a Hugging Face *config*), with a dataset card (``README.md`` with the Hub's
YAML header). ``datasets.load_dataset(DIR, "items")`` or
``datasets.load_dataset("parquet", data_dir=DIR / "items")`` loads a table; the inspect_ai task
(``polistemics.inspect``) reads the items back as ``EnvironmentItem`` objects (``item_from_row``).

- ``tables``: the tables' columns (Arrow schemas) and their rows, built from the run's typed
  records (``polistemics.runlog``), and ``item_from_row``;
- ``parquet``: pyarrow (the ``dataset`` extra), and writing a table without following a link;
- ``card``: the dataset card;
- ``export``: the whole export, keys redacted.
"""

from polistemics.export_dataset.export import DatasetExport, ExportError, export_dataset
from polistemics.export_dataset.tables import CONFIGS, OPTIONAL_CONFIGS, item_from_row

__all__ = [
    "CONFIGS",
    "OPTIONAL_CONFIGS",
    "DatasetExport",
    "ExportError",
    "export_dataset",
    "item_from_row",
]
