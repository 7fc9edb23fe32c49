"""One report for a multi-election study assembled from several sources (``report A B``).

Each source (a run directory or an authors' release folder) brings its own elections; the
combined inputs hold every source's cells, answers, items, verdicts and evidence. Two sources
with the same election are refused (that is a comparison: ``polistemics compare``). A manifest
describes one run, so the combined report has none: costs and times stay in each run's own
report, and the page says so.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from polistemics.report.inputs import ReportInputError, ReportInputs
from polistemics.report.verdict_source import ChainedJudgeRecords, held, panel_tally_of
from polistemics.scoring.verdicts import PanelTally


def _elections(inputs: ReportInputs) -> set[str]:
    return set(inputs.cells["election_id"].dropna().astype(str))


def _tallies(parts: list[ReportInputs], notes: list[str]) -> PanelTally | None:
    # each source's counts (a run read from its files counts them here, from its records)
    tallies = [panel_tally_of(p, held(p.judge_records)) for p in parts]
    if any(t is None for t in tallies):
        if any(t is not None for t in tallies):
            notes.append("judge reliability: only some sources have raw judge verdicts; not shown")
        return None
    sizes = {t.panel_size for t in tallies}
    if len(sizes) > 1:
        notes.append(f"judge reliability: panels of different sizes {sorted(sizes)}; not shown")
        return None
    return PanelTally(
        counts=pd.concat([t.counts for t in tallies], ignore_index=True),
        excluded=pd.concat([t.excluded for t in tallies], ignore_index=True),
        ignored=sum((t.ignored for t in tallies), Counter()),
        panel_size=sizes.pop(),
        n_verdicts=sum(t.n_verdicts for t in tallies),
    )


def combine_inputs(parts: list[ReportInputs]) -> ReportInputs:
    if len(parts) == 1:
        return parts[0]
    seen: dict[str, Path] = {}
    for part in parts:
        for election in sorted(_elections(part)):
            if election in seen:
                raise ReportInputError(
                    f"election '{election}' is in both {seen[election]} and {part.source}: "
                    "one report shows each election once (compare them with 'polistemics compare')"
                )
            seen[election] = part.source
    notes = [f"{p.source}: {note}" for p in parts for note in p.notes]
    notes.append(
        "combined from "
        + ", ".join(str(p.source) for p in parts)
        + "; costs, times and pipeline counts are in each run's own report"
    )
    records = [p.judge_records for p in parts]
    evidence = [p.evidence for p in parts]
    return ReportInputs(
        kind="run" if all(p.kind == "run" for p in parts) else "release",
        source=parts[0].source,
        title=" + ".join(p.title for p in parts),
        cells=pd.concat([p.cells for p in parts], ignore_index=True),
        answers=[a for p in parts for a in p.answers],
        judge_records=None if any(r is None for r in records) else ChainedJudgeRecords(records),
        judging=_tallies(parts, notes),
        manifest=None,
        evidence=None
        if all(e is None for e in evidence)
        else [x for e in evidence for x in e or []],
        items=[i for p in parts for i in p.items],
        notes=notes,
        gaps=[gap for p in parts for gap in p.gaps],
    )
