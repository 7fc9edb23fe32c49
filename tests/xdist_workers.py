"""How many pytest-xdist workers ``-n auto`` starts for this suite: twice the usable CPU cores.

Many of the suite's tests wait rather than compute: on a study's test server (its latency is what
lets a kill land inside a stage), on a ``polistemics`` child process, on Chromium, on a batch's
polling. With one worker per core, a 2-core machine kept 1.42-1.66 of its cores busy over the
whole suite; with two per core, 1.74-1.79. The whole suite on 2 cores, one run after another
(``pytest -n N --dist loadfile``; the machine's speed drifted by a quarter meanwhile, so compare
neighbours): 2 workers 694 s, 3 workers 637 s, 4 workers 598 s, 2 workers 592 s, 4 workers 620
s, 2 workers 712 s, 2 workers 859 s, 4 workers 695 s (docs/benchmarks.md, session 24).

``PYTEST_XDIST_AUTO_NUM_WORKERS`` still wins, as with xdist's own rule; ``-n N`` is unaffected.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

WORKERS_PER_CORE = 2
ENV_OVERRIDE = "PYTEST_XDIST_AUTO_NUM_WORKERS"


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def auto_workers(environ: Mapping[str, str] = os.environ) -> int | None:
    """Workers for ``-n auto``; None to leave the choice to xdist (an override that is not a
    number, which xdist then reports)."""
    if environ.get(ENV_OVERRIDE):
        return None
    return WORKERS_PER_CORE * usable_cores()
