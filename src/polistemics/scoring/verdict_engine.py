"""Aggregates of a run's judge verdicts, computed by the embedded analytical engine (issue 32).

The engine is Polars (chosen over DuckDB and pandas by ``benchmarks/engine_choice.py`` on the
4x paper-scale study: docs/benchmarks.md). It takes the integer tables of ``verdict_codes`` and
groups them lazily, so no frame of every verdict with its strings is made.

``engine_tally`` gives the panel's tally (``verdicts.PanelTally``: vote counts per answer x
rubric x sub-question, the items x rubric left out, the ignored keys), the scores' input, exactly
as ``verdicts.tally_panel`` makes it from the verdict table (``verdict_table.panel_tally`` uses
it, and the pandas way when it declines). ``streamed_tally`` gives the same from records read
chunk by chunk (a run's ``judges.jsonl``: memory holds a chunk and the tally's integer codes,
not every record), with each judge's vote totals from the same pass.

``judge_vote_totals`` gives the inputs of the per-judge analyses (``judge_analyses``): each
judge's votes and passes, and of them the votes on sub-questions with a strict majority and
the votes equal to it. It follows ``verdicts.panel_votes`` and ``judge_analyses.vote_totals``:
only the sub-questions active in their environment, only the items x rubric where at least
``panel_size`` judges answered every active sub-question, a vote passes by its sub-question's
rule (Table 10). The records must already have passed the panel's checks (``tally_panel``:
no duplicate verdicts, no panel larger than ``panel_size``, no key under another rubric): the
finish scores them before it analyses them.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from polistemics.conditions import Environment
from polistemics.rubrics import BY_KEY, Rubric, sub_questions
from polistemics.runlog import JudgeRecords, JudgeVerdictRecord
from polistemics.runlog.items import EnvironmentItem
from polistemics.scoring.cells import compact_take, group_ids
from polistemics.scoring.verdict_codes import (
    ITEM_FIELDS,
    UnknownItemError,
    VerdictCodes,
    item_fields,
    verdict_codes,
)
from polistemics.scoring.verdicts import ITEM_RUBRIC, PanelTally

TOTAL_KEYS = ["judge", "variant", "environment", "rubric", "sub_question"]
TOTAL_COLUMNS = [*TOTAL_KEYS, "n", "passes", "n_decided", "agreements"]


def judge_vote_totals(codes: VerdictCodes, panel_size: int) -> pd.DataFrame:
    """``TOTAL_COLUMNS``, one row per judge x variant x environment x rubric x sub-question
    with votes, sorted by those keys; the counts are int64."""
    import polars as pl  # on first use: commands that analyse no verdicts do not load it

    items, environments, variants = _item_codes(codes.items)
    rules = _rules(codes.rubrics, codes.sub_questions, environments)
    answer = ["item", "model", "sample_index", "rubric"]  # an item x rubric (item: its group)
    scored = (
        pl.from_pandas(codes.verdicts)
        .lazy()
        .join(
            pl.from_pandas(codes.records)
            .lazy()
            .with_row_index("record")
            .with_columns(pl.col("record").cast(pl.Int32)),
            on="record",
        )
        .join(pl.from_pandas(items).lazy(), on="item")
        .drop("item")
        .rename({"group": "item"})
        .join(pl.from_pandas(rules).lazy(), on=["rubric", "sub_question", "environment"])
    )
    panels = (  # items x rubric where panel_size judges answered every active sub-question
        scored.group_by([*answer, "judge"])
        .agg(complete=(pl.col("says_yes") >= 0).sum() == pl.col("expected").first())
        .group_by(answer)
        .agg(pl.col("complete").sum())
        .filter(pl.col("complete") >= panel_size)
        .select(answer)
    )
    cell = [*answer, "sub_question"]
    n_pass = pl.col("passes").cast(pl.Int64).sum().over(cell)
    majority = n_pass * 2 > panel_size
    decided = majority | ((pl.len().over(cell) - n_pass) * 2 > panel_size)
    totals = (
        scored.join(panels, on=answer, how="semi")
        .with_columns(passes=pl.col("says_yes") == pl.col("yes_passes"))
        .with_columns(decided=decided, agrees=decided & (pl.col("passes") == majority))
        .group_by(TOTAL_KEYS)
        .agg(
            n=pl.len(),
            passes=pl.col("passes").sum(),
            n_decided=pl.col("decided").sum(),
            agreements=pl.col("agrees").sum(),
        )
        .collect()
        .to_pandas()
    )
    if totals.empty:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in TOTAL_COLUMNS})
    decode = {
        "judge": codes.judges,
        "variant": variants,
        "environment": environments,
        "rubric": codes.rubrics,
        "sub_question": codes.sub_questions,
    }
    for column, values in decode.items():
        totals[column] = np.array(values, dtype=object)[totals[column].to_numpy()]
    counts = ["n", "passes", "n_decided", "agreements"]
    totals[counts] = totals[counts].astype("int64")
    return totals.sort_values(TOTAL_KEYS, ignore_index=True).loc[:, TOTAL_COLUMNS]


def _item_codes(items: pd.DataFrame) -> tuple[pd.DataFrame, list[str], list[str]]:
    """Each item's environment and variant as codes, and its group: items with the same
    ``ITEM_FIELDS`` are one item (as ``verdicts.ITEM_COLUMNS`` group them)."""
    environment, environments = pd.factorize(items["environment"])
    variant, variants = pd.factorize(items["variant"])
    group, _ = group_ids([items[c] for c in ITEM_FIELDS])
    table = pd.DataFrame(
        {
            "item": np.arange(len(items), dtype="int32"),
            "environment": environment.astype("int32"),
            "variant": variant.astype("int32"),
            "group": group,
        }
    )
    return table, [str(e) for e in environments], [str(v) for v in variants]


def _rules(rubrics: list[str], keys: list[str], environments: list[str]) -> pd.DataFrame:
    """rubric x sub-question x environment codes where the sub-question is one of the rubric's
    and active there: whether Yes passes, and how many sub-questions the rubric has there."""
    rows = []
    for r, rubric in enumerate(rubrics):
        for e, name in enumerate(environments):
            env = Environment(name)
            expected = len(sub_questions(Rubric(rubric), env))
            for s, key in enumerate(keys):
                sq = BY_KEY.get(key)
                if sq is not None and sq.rubric.value == rubric and sq.is_active(env):
                    rows.append((r, s, e, int(sq.yes_passes(env)), expected))
    columns = ["rubric", "sub_question", "environment", "yes_passes", "expected"]
    # the join keys typed as ``verdict_codes`` and ``_item_codes`` type them
    types = ["int8", "int16", "int32", "int8", "int32"]
    return pd.DataFrame(rows, columns=columns).astype(dict(zip(columns, types, strict=True)))


def engine_tally(
    records: Iterable[JudgeVerdictRecord] | JudgeRecords,
    items: Mapping[str, EnvironmentItem],
    panel_size: int,
) -> PanelTally | None:
    """The panel's tally of these records (``verdicts.tally_panel`` of their verdict table),
    counted from their codes; None when there are no verdicts, nothing to score, or a check of
    the panel fails (``verdict_table.panel_tally`` then goes the pandas way, for its error)."""
    return _tally_of_codes(verdict_codes(records, items), panel_size)


def streamed_tally(
    chunks: Iterable[Sequence[JudgeVerdictRecord]],
    items: Mapping[str, EnvironmentItem | tuple],
    panel_size: int,
) -> PanelTally | None:
    """``engine_tally`` of the records these chunks hold, in their order, counted chunk by
    chunk: memory holds a chunk and the tally's integer codes, never every record. Its vote
    counts come compact (``cells.compact_cells`` of ``engine_tally``'s). With the
    tally, each judge's vote totals (``PanelTally.judge_totals``, ``judge_vote_totals`` of the
    records), from the same pass. ``items``: by key, each item or its fields
    (``verdict_codes.fields_by_key``).

    A chunk's tally is the whole's part when every item x rubric has all its records in one
    chunk: the records must come in answer blocks (an answer's records together, as
    ``judges.jsonl`` lists them: item, model, sample, seat, rubric), and a chunk's last block
    waits for the next chunk. None, for the caller to tally all the records at once (which
    raises the error, or makes the empty tables), when they do not (an answer block seen
    again), a record names an unknown item, a check of the panel fails, or nothing is
    scoreable."""
    if panel_size < 1:
        return None
    tally = _StreamedTally(panel_size)
    blocks = _AnswerBlocks(chunks, items)
    try:
        for chunk in blocks:
            tally.add(verdict_codes(chunk, items))
    except (_Declined, UnknownItemError):
        return None
    if blocks.repeated:
        return None
    return tally.result()


class _AnswerBlocks:
    """Chunks of records cut at answer-block boundaries (a block: an item's fields, model and
    sample; its records follow one another). ``repeated``, once every chunk was taken: a block
    came again after another, so the chunks' tallies are not the whole's."""

    def __init__(
        self,
        chunks: Iterable[Sequence[JudgeVerdictRecord]],
        items: Mapping[str, EnvironmentItem | tuple],
    ) -> None:
        self.chunks = chunks
        self.repeated = False
        # item key -> its ITEM_FIELDS (the answer's item), made before the first chunk: made
        # between chunks, these (and a set of the blocks seen) kept some of the allocator's
        # arenas that each chunk's records had taken from being given back (the 8x study's
        # tally alone: 5 of 37 new arenas of 1 MiB, issue 32)
        self._fields = {key: item_fields(item) for key, item in items.items()}

    def _block(self, record: JudgeVerdictRecord) -> int:
        fields = self._fields.get(record.item_key)
        if fields is None:
            raise UnknownItemError(record.item_key)  # verdict_codes names it
        return hash((fields, record.model, record.sample_index))

    def __iter__(self) -> Iterator[list[JudgeVerdictRecord]]:
        # Each block's hash as it starts (machine integers, not objects): a block seen twice
        # makes ``repeated`` (a collision only sends the caller the whole way).
        starts = array("q")
        held: list[JudgeVerdictRecord] = []  # the last block so far, not yet complete
        current: int | None = None
        for chunk in self.chunks:
            cut = None  # where the last block starting in this chunk starts
            for index, record in enumerate(chunk):
                block = self._block(record)
                if block != current:
                    starts.append(block)
                    current, cut = block, index
            if cut is None:
                held.extend(chunk)
                continue
            done = [*held, *chunk[:cut]]
            if done:
                yield done
            held = list(chunk[cut:])
        if held:
            yield held
        hashes = np.frombuffer(starts, dtype=np.int64)
        self.repeated = len(np.unique(hashes)) < len(hashes)


class _StreamedTally:
    """Chunks' tallies gathered as integer codes shared across chunks (items by their fields,
    models, rubrics, sub-questions), decoded into the tally's tables at the end."""

    def __init__(self, panel_size: int) -> None:
        self.panel_size = panel_size
        self.codes: dict[str, dict] = {name: {} for name in ("item", "model", "rubric", "key")}
        self.counts: list[dict[str, np.ndarray]] = []
        self.short: list[dict[str, np.ndarray]] = []
        self.totals: list[pd.DataFrame] = []
        self.ignored: Counter[str] = Counter()
        self.n_verdicts = 0
        self.scoreable = False

    def _global(self, name: str, values: Iterable) -> np.ndarray:
        codes = self.codes[name]
        return np.array([codes.setdefault(v, len(codes)) for v in values], dtype="int32")

    def add(self, codes: VerdictCodes) -> None:
        """One chunk's codes (whole answer blocks); ``_Declined`` when a check fails."""
        if codes.verdicts.empty:
            return
        part = _tally_parts(codes, self.panel_size)
        self.n_verdicts += len(codes.verdicts)
        for key, count in part.ignored.items():
            self.ignored[key] += count
        if not part.scoreable:
            return
        self.scoreable = True
        item = self._global("item", codes.items.itertuples(index=False, name=None))
        model = self._global("model", codes.models)
        rubric = self._global("rubric", codes.rubrics)
        records = codes.records

        def answers(record: np.ndarray) -> dict[str, np.ndarray]:
            return {
                "item": item[records["item"].to_numpy()[record]],
                "model": model[records["model"].to_numpy()[record]],
                "sample_index": records["sample_index"].to_numpy()[record],
                "rubric": rubric[records["rubric"].to_numpy()[record]].astype("int8"),
            }

        key = self._global("key", codes.sub_questions)
        counts = part.counts
        self.counts.append(
            answers(counts["record"].to_numpy())
            | {
                "sub_question": key[counts["sub_question"].to_numpy()].astype("int16"),
                "n_pass": counts["n_pass"].to_numpy().astype("int32"),
                "n_votes": counts["n_votes"].to_numpy().astype("int32"),
            }
        )
        self.short.append(
            answers(part.short["record"].to_numpy())
            | {"n_complete_judges": part.short["n_complete"].to_numpy()}
        )
        totals = judge_vote_totals(codes, self.panel_size)
        if not totals.empty:
            self.totals.append(totals)

    def result(self) -> PanelTally | None:
        if not self.scoreable:
            return None  # nothing scoreable: the pandas way makes the empty tables
        counts = self._table(self.counts, compact=True)
        for name in ("n_pass", "n_votes"):
            counts[name] = counts[name].astype("int64")
        excluded = self._table(self.short)
        excluded["n_complete_judges"] = excluded["n_complete_judges"].astype("int64")
        return PanelTally(
            counts,
            excluded,
            self.ignored,
            self.panel_size,
            self.n_verdicts,
            judge_totals=self._judge_totals(),
        )

    def _table(self, parts: list[dict[str, np.ndarray]], compact: bool = False) -> pd.DataFrame:
        """``ITEM_RUBRIC`` (+ the parts' other columns) decoded from the gathered codes; with
        ``compact``, the text columns as ``cells.compact_cells`` codes them (the vote counts:
        a row per cell, a million at 8x the paper's scale), without their object arrays."""
        columns = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
        parts.clear()  # the chunks' codes, gathered: not held beside the table
        fields = _object_rows(list(self.codes["item"]), len(ITEM_FIELDS))
        item = columns.pop("item")

        def decode(values: np.ndarray, codes: np.ndarray):
            return compact_take(values, codes) if compact else values[codes]

        decoded = {
            "model": decode(_objects(self.codes["model"]), columns.pop("model")),
            **{name: decode(fields[:, i], item) for i, name in enumerate(ITEM_FIELDS)},
            "sample_index": columns.pop("sample_index").astype("int64"),
            "rubric": decode(_objects(self.codes["rubric"]), columns.pop("rubric")),
        }
        del item
        # copy=False: the columns as they are, not copied into one block (a million rows at 8x)
        table = pd.DataFrame({name: decoded.pop(name) for name in ITEM_RUBRIC}, copy=False)
        if "sub_question" in columns:
            table["sub_question"] = decode(_objects(self.codes["key"]), columns.pop("sub_question"))
        for name, values in columns.items():
            table[name] = values
        return table

    def _judge_totals(self) -> pd.DataFrame:
        if not self.totals:
            return pd.DataFrame({c: pd.Series(dtype="object") for c in TOTAL_COLUMNS})
        counts = TOTAL_COLUMNS[len(TOTAL_KEYS) :]
        summed = pd.concat(self.totals, ignore_index=True).groupby(TOTAL_KEYS, sort=True)[counts]
        return summed.sum().reset_index().astype({c: "int64" for c in counts})


def _objects(codes: Mapping) -> np.ndarray:
    values = np.empty(len(codes), dtype=object)
    values[:] = list(codes)
    return values


def _object_rows(rows: list[tuple], width: int) -> np.ndarray:
    table = np.empty((len(rows), width), dtype=object)
    for index, row in enumerate(rows):
        table[index] = row
    return table


def _tally_of_codes(codes: VerdictCodes, panel_size: int) -> PanelTally | None:
    if panel_size < 1 or codes.verdicts.empty:
        return None
    try:
        part = _tally_parts(codes, panel_size)
    except _Declined:
        return None
    if not part.scoreable:
        return None  # nothing scoreable: the pandas way makes the empty tables
    excluded = _item_rubric_columns(codes, part.short["record"].to_numpy())
    excluded["n_complete_judges"] = part.short["n_complete"].to_numpy()
    counts = part.counts
    table = _item_rubric_columns(codes, counts["record"].to_numpy())
    table["sub_question"] = np.array(codes.sub_questions, dtype=object)[
        counts["sub_question"].to_numpy()
    ]
    table["n_pass"] = counts["n_pass"].to_numpy()
    table["n_votes"] = counts["n_votes"].to_numpy()
    return PanelTally(table, excluded, part.ignored, panel_size, len(codes.verdicts))


class _Declined(Exception):
    """A check of the panel failed: the pandas way raises its error."""


@dataclass(frozen=True)
class _TallyParts:
    """The tally of some verdicts, by their codes: ``counts`` (polars: record, sub_question,
    n_pass, n_votes; one row per item x rubric x sub-question, ``record`` its first record) and
    ``short`` (record, n_complete: the items x rubric left out), each in order of first
    appearance; the ignored keys, and whether any sub-question was scoreable."""

    counts: Any
    short: Any
    ignored: Counter[str]
    scoreable: bool


def _tally_parts(codes: VerdictCodes, panel_size: int) -> _TallyParts:
    """``_TallyParts`` of non-empty codes; ``_Declined`` when a check of the panel fails."""
    import polars as pl

    items, environments, _ = _item_codes(codes.items)
    item_of_record = codes.records["item"].to_numpy()
    answer, _ = group_ids(  # an item x rubric, as ITEM_RUBRIC groups the verdicts
        [
            items["group"].to_numpy()[item_of_record],
            codes.records["model"].to_numpy(),
            codes.records["sample_index"].to_numpy(),
            codes.records["rubric"].to_numpy(),
        ]
    )
    records = pl.DataFrame(
        {
            "record": np.arange(len(codes.records), dtype="int32"),
            "answer": answer,
            "judge": codes.records["judge"].to_numpy(),
            "rubric": codes.records["rubric"].to_numpy(),
            "environment": items["environment"].to_numpy()[item_of_record],
        }
    )
    frame = (
        pl.from_pandas(codes.verdicts)
        .lazy()
        .with_row_index("row")
        .join(records.lazy(), on="record")
    )
    repeated = frame.group_by(["answer", "judge", "sub_question"]).len().filter(pl.col("len") > 1)
    if not repeated.limit(1).collect().is_empty():
        raise _Declined
    combos = (
        frame.group_by(["rubric", "sub_question", "environment"])
        .agg(count=pl.len(), first=pl.col("row").min())
        .sort("first")
        .collect()
    )
    rules, ignored = [], Counter()
    for rubric, key, env, count in combos.select(
        ["rubric", "sub_question", "environment", "count"]
    ).iter_rows():
        sq, name, environment = (
            BY_KEY.get(codes.sub_questions[key]),
            codes.rubrics[rubric],
            Environment(environments[env]),
        )
        if sq is None:
            ignored[f"{codes.sub_questions[key]} (not an App. F sub-question)"] += count
        elif sq.rubric.value != name:
            raise _Declined
        elif not sq.is_active(environment):
            ignored[f"{sq.key} (inactive in {environment.value})"] += count
        else:
            expected = len(sub_questions(Rubric(name), environment))
            rules.append((rubric, key, env, int(sq.yes_passes(environment)), expected))
    if not rules:
        return _TallyParts(None, None, ignored, scoreable=False)
    columns = ["rubric", "sub_question", "environment", "yes_passes", "expected"]
    types = [pl.Int8, pl.Int16, pl.Int32, pl.Int8, pl.Int32]
    rule_table = pl.DataFrame(rules, schema=dict(zip(columns, types, strict=True)), orient="row")
    kept = frame.join(rule_table.lazy(), on=columns[:3])
    panels = (
        kept.group_by(["answer", "judge"])
        .agg(
            complete=(pl.col("says_yes") >= 0).sum() == pl.col("expected").first(),
            first=pl.col("row").min(),
            record=pl.col("record").first(),
        )
        .group_by("answer")
        .agg(
            judges=pl.len(),
            n_complete=pl.col("complete").sum().cast(pl.Int64),
            first=pl.col("first").min(),
            record=pl.col("record").first(),
        )
        .sort("first")
        .collect()
    )
    if (panels["judges"] > panel_size).any():
        raise _Declined
    full = panels.filter(pl.col("n_complete") >= panel_size).select("answer")
    counts = (
        kept.join(full.lazy(), on="answer", how="semi")
        .group_by(["answer", "sub_question"])
        .agg(
            n_pass=(pl.col("says_yes") == pl.col("yes_passes")).sum().cast(pl.Int64),
            n_votes=pl.len().cast(pl.Int64),
            first=pl.col("row").min(),
            record=pl.col("record").first(),
        )
        .sort("first")
        .collect()
    )
    short = panels.filter(pl.col("n_complete") < panel_size).select(["record", "n_complete"])
    return _TallyParts(counts, short, ignored, scoreable=True)


def _item_rubric_columns(codes: VerdictCodes, records: np.ndarray) -> pd.DataFrame:
    """``ITEM_RUBRIC`` of these records, as the verdict table has them."""
    rows = codes.records.iloc[records]
    items = codes.items.iloc[rows["item"].to_numpy()]
    columns = {
        "model": np.array(codes.models, dtype=object)[rows["model"].to_numpy()],
        **{name: items[name].to_numpy() for name in ("environment", "variant", "observation_id")},
        "sample_index": rows["sample_index"].to_numpy(),
        **{name: items[name].to_numpy() for name in ("party_id", "election_id", "language")},
        "rubric": np.array(codes.rubrics, dtype=object)[rows["rubric"].to_numpy()],
    }
    return pd.DataFrame({name: columns[name] for name in ITEM_RUBRIC})
