"""The demo run and its dataset export (built as in tests/export_dataset)."""

from export_dataset.conftest import demo_dataset, demo_run  # noqa: F401 (tests/ is on sys.path)
