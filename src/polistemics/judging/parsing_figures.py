"""How often each judge's verdicts could be read: the paper's exclusion rate, measured.

Per judge (registry name) and output mode, from the panel's records and the run store's call
statistics:

- ``verdict_sets``: answer x rubric judgments asked of the judge;
- ``panel_calls``: calls the panel made for them (a second call when the first was unreadable);
- ``asked_again``: judgments that needed that second call;
- ``http_attempts`` / ``client_retries``: HTTP requests behind the judge's stored calls, and how
  many of them were retries of the client layer (transient faults and content faults such as a
  missing tool call); ``None`` when the store has no calls for the judge;
- ``call_failed`` / ``unreadable``: judgments left without verdicts because the call failed
  after the client's retries, or because no verdicts could be read after the second call;
- ``possibly_planted``: judgments left without verdicts because the judge's verdicts agreed,
  on both calls, with a verdict list the answer itself spells out (``judging.planted``);
- ``missing`` and ``missing_share``: all three together, and their share of ``verdict_sets``.

``by_output_mode`` sums the same figures over the judges that share a mode.
``possibly_planted_by_model`` counts, per target model, the answers with at least one such
judgment and the judgments themselves: an answer that steers its judges is a finding about the
model that wrote it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from pydantic import BaseModel

from polistemics.judging.panel import STAGE
from polistemics.judging.planted import POSSIBLY_PLANTED
from polistemics.llm.registry import ModelEndpoint
from polistemics.runlog import JudgeVerdictRecord, fields_of

_COUNTS = (
    "verdict_sets",
    "panel_calls",
    "asked_again",
    "call_failed",
    "unreadable",
    "possibly_planted",
    "missing",
)


class ParsingFigures(BaseModel):
    """One judge's (or one output mode's) figures; see the module docstring."""

    judge: str | None = None  # None in a per-mode row
    model: str | None = None
    output_mode: str
    verdict_sets: int = 0
    panel_calls: int = 0
    asked_again: int = 0
    http_attempts: int | None = None
    client_retries: int | None = None
    call_failed: int = 0
    unreadable: int = 0
    possibly_planted: int = 0
    missing: int = 0

    @property
    def missing_share(self) -> float | None:
        return self.missing / self.verdict_sets if self.verdict_sets else None

    def as_json(self) -> dict:
        data = self.model_dump(exclude_none=False)
        data["missing_share"] = None if self.missing_share is None else round(self.missing_share, 6)
        return data


class ParsingCounts:
    """What ``judge_parsing`` counts from the panel's records, per judge (every judge the
    records name), record by record (``add``). ``counting`` counts chunks of records as a reader
    that needs them anyway takes them: the finish's scoring reads ``judges.jsonl`` once, and
    run.json's figures come from that pass instead of a second read of every record."""

    def __init__(self) -> None:
        self.by_judge: dict[str, dict[str, int]] = {}  # judge -> _COUNTS' names -> count
        # (judge, target model) -> the answers with a possibly planted judgment, and how many
        self.planted: dict[tuple[str, str], tuple[set[tuple[str, int]], list[int]]] = {}
        self.complete = False  # ``counting``: every chunk was taken

    def add(self, records: Iterable[JudgeVerdictRecord]) -> None:
        by_judge = self.by_judge
        for record in fields_of(records):
            counts = by_judge.get(record.judge)
            if counts is None:
                counts = by_judge[record.judge] = dict.fromkeys(_COUNTS, 0)
            counts["verdict_sets"] += 1
            counts["panel_calls"] += record.attempts
            counts["asked_again"] += record.attempts > 1
            if record.parsed:
                continue
            counts["missing"] += 1
            if record.error == POSSIBLY_PLANTED:
                counts["possibly_planted"] += 1
                answers, n = self.planted.setdefault((record.judge, record.model), (set(), [0]))
                answers.add((record.item_key, record.sample_index))
                n[0] += 1
            elif record.error is not None:
                counts["call_failed"] += 1
            else:
                counts["unreadable"] += 1

    def counting(
        self, chunks: Iterable[Sequence[JudgeVerdictRecord]]
    ) -> Iterator[Sequence[JudgeVerdictRecord]]:
        """``chunks``, each counted as it is taken; ``complete`` once the last was."""
        for chunk in chunks:
            self.add(chunk)
            yield chunk
        self.complete = True


def judge_parsing(
    records: Iterable[JudgeVerdictRecord],
    judges: Mapping[str, ModelEndpoint],
    call_stats: Iterable[dict] = (),
    counted: ParsingCounts | None = None,
) -> dict:
    """``{"by_judge": [...], "by_output_mode": [...], "possibly_planted_by_model": {...}}`` for
    run.json, judges in panel order; ``counted``: these records' counts, when a complete pass
    over them made them (``ParsingCounts.counting``; the records are not read again)."""
    if counted is None or not counted.complete:
        counted = ParsingCounts()
        counted.add(records)
    rows: dict[str, ParsingFigures] = {
        name: ParsingFigures(
            judge=name,
            model=ep.model,
            output_mode=ep.structured_output,
            **counted.by_judge.get(name, {}),
        )
        for name, ep in judges.items()
    }
    planted: dict[str, dict] = {}
    for (judge, target), (answers, n) in counted.planted.items():
        if judge in rows:
            model = planted.setdefault(target, {"answers": set(), "verdict_sets": 0})
            model["answers"] |= answers
            model["verdict_sets"] += n[0]
    for stats in call_stats:
        row = rows.get(stats.get("endpoint"))
        if row is None or stats.get("stage") != STAGE:
            continue
        attempts, calls = int(stats.get("attempts") or 0), int(stats.get("calls") or 0)
        row.http_attempts = (row.http_attempts or 0) + attempts
        row.client_retries = (row.client_retries or 0) + max(0, attempts - calls)
    modes: dict[str, ParsingFigures] = {}
    for row in rows.values():
        mode = modes.setdefault(row.output_mode, ParsingFigures(output_mode=row.output_mode))
        for name in _COUNTS:
            setattr(mode, name, getattr(mode, name) + getattr(row, name))
        for name in ("http_attempts", "client_retries"):
            if getattr(row, name) is not None:
                setattr(mode, name, (getattr(mode, name) or 0) + getattr(row, name))
    return {
        "by_judge": [row.as_json() for row in rows.values()],
        "by_output_mode": [mode.as_json() for mode in modes.values()],
        "possibly_planted_by_model": {
            model: {"answers": len(found["answers"]), "verdict_sets": found["verdict_sets"]}
            for model, found in sorted(planted.items())
        },
    }
