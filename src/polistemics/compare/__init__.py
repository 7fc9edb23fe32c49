"""Comparisons of runs and authors' release folders: deltas with uncertainty, tests and ranks.

Pipeline (dependencies point down): ``sides`` loads each side's scored cells, ``matching``
decides what is shared and whether observations pair, ``deltas`` computes differences with
bootstrap CIs (``stats.bootstrap``), ``paired`` adds exact McNemar tests with Holm's correction
(``stats.significance``), ``ranks`` the rank agreement, and ``comparison`` assembles them and writes
the JSON and CSV outputs.
"""

from polistemics.compare.comparison import (
    CompareOptions,
    Comparison,
    compare_pair,
    compare_sides,
    comparisons_json,
)
from polistemics.compare.errors import CompareError
from polistemics.compare.sides import Side, load_side, load_sides, sides_by_election

__all__ = [
    "CompareError",
    "CompareOptions",
    "Comparison",
    "Side",
    "compare_pair",
    "compare_sides",
    "comparisons_json",
    "load_side",
    "load_sides",
    "sides_by_election",
]
