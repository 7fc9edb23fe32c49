"""Analysis tables: the numbers the report shows, computed once from a source's scored cells,
written to ``tables/`` as typed CSV tables and read back by whatever shows them.

``schema.py`` says what a table is (its columns, their types and meaning) and writes and reads
it; each other module is one analysis (a ``TableSchema`` and the function that computes it);
``tables.py`` is the list of them. See docs/analysis-tables.md for the pattern.
"""

from polistemics.analyses.schema import TableColumn, TableSchema, TableSchemaError
from polistemics.analyses.tables import (
    AnalysisTables,
    analysis_tables,
    read_analysis_tables,
    write_analysis_tables,
)

__all__ = [
    "AnalysisTables",
    "TableColumn",
    "TableSchema",
    "TableSchemaError",
    "analysis_tables",
    "read_analysis_tables",
    "write_analysis_tables",
]
