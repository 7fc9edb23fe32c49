"""Analysis tables: the numbers the report shows, computed once from a source's scored cells,
written to ``tables/`` as typed CSV tables and read back by whatever shows them.

``schema.py`` says what a table is (its columns, their types and meaning) and writes and reads
it; each other module is one analysis (a ``TableSchema`` and the function that computes it);
``tables.py`` is the list of them. See docs/analysis-tables.md for the pattern.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polistemics.lazy_exports import exported_on_first_use

if TYPE_CHECKING:
    from polistemics.analyses.schema import TableColumn, TableSchema, TableSchemaError
    from polistemics.analyses.tables import (
        AnalysisTables,
        analysis_tables,
        read_analysis_tables,
        write_analysis_tables,
    )

# Public name -> its module, imported on first use: a command that needs one of them does
# not load every module of the package (and their libraries) with it.
_EXPORTS = {
    "analysis_tables": "polistemics.analyses.tables",
    "AnalysisTables": "polistemics.analyses.tables",
    "read_analysis_tables": "polistemics.analyses.tables",
    "TableColumn": "polistemics.analyses.schema",
    "TableSchema": "polistemics.analyses.schema",
    "TableSchemaError": "polistemics.analyses.schema",
    "write_analysis_tables": "polistemics.analyses.tables",
}

__all__ = [
    "AnalysisTables",
    "TableColumn",
    "TableSchema",
    "TableSchemaError",
    "analysis_tables",
    "read_analysis_tables",
    "write_analysis_tables",
]


__getattr__ = exported_on_first_use(__name__, _EXPORTS)
