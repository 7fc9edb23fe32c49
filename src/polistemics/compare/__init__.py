"""Comparisons of runs and authors' release folders: deltas with uncertainty, tests and ranks.

Pipeline (dependencies point down): ``sides`` loads each side's scored cells, ``matching``
decides what is shared and whether observations pair, ``deltas`` computes differences with
bootstrap CIs (``stats.bootstrap``), ``paired`` adds exact McNemar tests with Holm's correction
(``stats.significance``), ``ranks`` the rank agreement, and ``comparison`` assembles them and writes
the JSON and CSV outputs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polistemics.lazy_exports import exported_on_first_use

if TYPE_CHECKING:
    from polistemics.compare.comparison import (
        CompareOptions,
        Comparison,
        compare_pair,
        compare_sides,
        comparisons_json,
    )
    from polistemics.compare.errors import CompareError
    from polistemics.compare.sides import Side, load_side, load_sides, sides_by_election

# Public name -> its module, imported on first use: a command that needs one of them does
# not load every module of the package (and their libraries) with it.
_EXPORTS = {
    "compare_pair": "polistemics.compare.comparison",
    "compare_sides": "polistemics.compare.comparison",
    "CompareError": "polistemics.compare.errors",
    "CompareOptions": "polistemics.compare.comparison",
    "Comparison": "polistemics.compare.comparison",
    "comparisons_json": "polistemics.compare.comparison",
    "load_side": "polistemics.compare.sides",
    "load_sides": "polistemics.compare.sides",
    "Side": "polistemics.compare.sides",
    "sides_by_election": "polistemics.compare.sides",
}

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


__getattr__ = exported_on_first_use(__name__, _EXPORTS)
