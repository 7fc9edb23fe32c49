"""The stage tests use tests/run's helpers (``study_helpers``)."""

import sys
from pathlib import Path

RUN_TESTS = str(Path(__file__).resolve().parents[1])
if RUN_TESTS not in sys.path:
    sys.path.insert(0, RUN_TESTS)
