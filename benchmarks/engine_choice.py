"""Which embedded engine builds the analyses' per-observation aggregate (issue 32, item 2).

From a finished run's records (``judges.jsonl`` and the items of its exports), each engine builds
what the scores and the bootstrap are computed from: the panel's strict majority per answer x
rubric x sub-question (only the items x rubric with a complete panel, only the sub-questions
active in the environment), summed per variant x model x environment x rubric x observation
(cells, passes). Three ways, each in its own process so that its peak memory is its own:

- ``pandas``: the path before the engine, ``RunDir.read_judge_records`` (records by column),
  then ``verdict_table`` and ``verdicts.majority`` (a frame of every verdict, then the cells),
  then a groupby;
- ``duckdb``: one SQL query over ``judges.jsonl`` read by DuckDB (its ``says_yes`` a map);
- ``polars``: the same as a lazy Polars query over ``judges.jsonl``.

Every engine is given the same item table (item key -> environment, variant, observation, party),
read from the exports in Python. Prints wall, CPU seconds and peak RSS per engine, and checks
that the engines' aggregates are identical to pandas'. DuckDB and Polars are not dependencies of
the project: install them next to it, e.g. ``pip install --target /tmp/engines duckdb polars``
and ``PYTHONPATH=src:/tmp/engines``.

    python benchmarks/paper_scale.py --scale 4 --latency-ms 5 --concurrency 64 --out /tmp/s4
    PYTHONPATH=src:/tmp/engines python benchmarks/engine_choice.py /tmp/s4/run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from polistemics.conditions import Environment
from polistemics.rubrics import SUB_QUESTIONS, sub_questions
from polistemics.runlog import RunDir

ENGINES = ("pandas", "duckdb", "polars")
# what every engine shares: the interpreter, the modules and the item table (its peak is the floor)
BASELINE = "items"
MEMORY_LIMIT = "512MB"  # DuckDB's; without it DuckDB takes 80% of the machine's memory
KEYS = ["variant", "model", "environment", "rubric", "observation_id"]
ITEM_FIELDS = ["item_key", "environment", "variant", "observation_id", "party_id"]


def item_table(run: RunDir) -> pd.DataFrame:
    """item key -> the item's fields the aggregate needs (every engine gets this table)."""
    rows = [
        (item.key, item.environment.value, item.variant.value, item.observation_id, item.party_id)
        for item in run.read_items()
    ]
    return pd.DataFrame(rows, columns=ITEM_FIELDS)


def rule_table() -> pd.DataFrame:
    """Per rubric x sub-question x environment where the sub-question is active: whether Yes
    passes, and how many sub-questions the rubric asks there (a complete judge answers all)."""
    rows = []
    for env in Environment:
        if env.is_composition:
            continue
        for sq in SUB_QUESTIONS:
            if sq.is_active(env):
                expected = len(sub_questions(sq.rubric, env))
                rows.append((sq.rubric.value, sq.key, env.value, sq.yes_passes(env), expected))
    return pd.DataFrame(
        rows, columns=["rubric", "sub_question", "environment", "yes_passes", "expected"]
    )


def pandas_aggregate(run: RunDir, panel_size: int) -> pd.DataFrame:
    from polistemics.scoring.verdict_table import verdict_table
    from polistemics.scoring.verdicts import majority

    items = {item.key: item for item in run.read_items()}
    records = run.read_judge_records()
    cells = majority(verdict_table(records, items), panel_size).cells  # the frame of every verdict
    table = cells.groupby(KEYS, sort=True)["passed"].agg(n="size", passes="sum").reset_index()
    return table.astype({"n": "int64", "passes": "int64"})


DUCKDB_QUERY = """
WITH verdicts AS (
    SELECT j.item_key, j.model, j.sample_index, j.rubric,
           CAST(j.panel_position AS VARCHAR) || ':' || j.judge AS judge,
           e.key AS sub_question, e.value AS says_yes
    FROM read_json(?, format = 'newline_delimited', columns = {
        item_key: 'VARCHAR', model: 'VARCHAR', sample_index: 'BIGINT', rubric: 'VARCHAR',
        judge: 'VARCHAR', panel_position: 'BIGINT', says_yes: 'MAP(VARCHAR, BOOLEAN)'
    }) AS j, UNNEST(map_entries(j.says_yes)) AS u(e)
), scored AS (
    SELECT v.*, i.environment, i.variant, i.observation_id, r.yes_passes, r.expected
    FROM verdicts v
    JOIN items i USING (item_key)
    JOIN rules r ON r.rubric = v.rubric AND r.sub_question = v.sub_question
                AND r.environment = i.environment
), judges AS (
    SELECT item_key, model, sample_index, rubric, judge,
           count(says_yes) = any_value(expected) AS complete
    FROM scored GROUP BY ALL
), panels AS (
    SELECT item_key, model, sample_index, rubric
    FROM judges GROUP BY ALL HAVING sum(CAST(complete AS INTEGER)) >= ?
), cells AS (
    SELECT s.variant, s.model, s.environment, s.rubric, s.observation_id,
           sum(CAST(s.says_yes = s.yes_passes AS INTEGER)) AS n_pass, count(*) AS n_votes
    FROM scored s SEMI JOIN panels p USING (item_key, model, sample_index, rubric)
    GROUP BY s.item_key, s.model, s.sample_index, s.rubric, s.sub_question,
             s.variant, s.environment, s.observation_id
)
SELECT variant, model, environment, rubric, observation_id,
       count(*) AS n, sum(CAST(n_pass * 2 > ? AS INTEGER)) AS passes
FROM cells
WHERE n_pass * 2 > ? OR (n_votes - n_pass) * 2 > ?
GROUP BY ALL ORDER BY ALL
"""


def duckdb_aggregate(run: RunDir, panel_size: int) -> pd.DataFrame:
    import duckdb

    items, rules = item_table(run), rule_table()
    # its out-of-core settings: spill past the limit, no order kept where none is asked for
    with tempfile.TemporaryDirectory(prefix="duckdb-spill-") as spill:
        config = {
            "memory_limit": MEMORY_LIMIT,
            "preserve_insertion_order": False,
            "threads": 2,
            "temp_directory": spill,
        }
        with duckdb.connect(config=config) as connection:
            connection.register("items", items)
            connection.register("rules", rules)
            parameters = [str(run.judges), panel_size, panel_size, panel_size, panel_size]
            table = connection.execute(DUCKDB_QUERY, parameters).df()
    return table.astype({"n": "int64", "passes": "int64"})


def polars_aggregate(run: RunDir, panel_size: int) -> pd.DataFrame:
    import polars as pl

    items = pl.from_pandas(item_table(run)).lazy()
    rules = pl.from_pandas(rule_table()).lazy()
    # says_yes: a JSON object with its rubric's keys, read as a struct of every App. F key (an
    # absent key reads as null, as a missing verdict does: both make the judge incomplete)
    says_yes = pl.Struct({sq.key: pl.Boolean for sq in SUB_QUESTIONS})
    judges = pl.scan_ndjson(
        run.judges,
        schema={
            "item_key": pl.String,
            "model": pl.String,
            "sample_index": pl.Int64,
            "rubric": pl.String,
            "judge": pl.String,
            "panel_position": pl.Int64,
            "says_yes": says_yes,
        },
    )
    answer = ["item_key", "model", "sample_index", "rubric"]
    verdicts = (
        judges.with_columns(judge=pl.col("panel_position").cast(pl.String) + ":" + pl.col("judge"))
        .select([*answer, "judge", "says_yes"])
        .unnest("says_yes")
        .unpivot(index=[*answer, "judge"], variable_name="sub_question", value_name="says_yes")
    )
    scored = verdicts.join(items, on="item_key").join(
        rules, on=["rubric", "sub_question", "environment"]
    )
    panels = (
        scored.group_by([*answer, "judge"])
        .agg(complete=pl.col("says_yes").count() == pl.col("expected").first())
        .group_by(answer)
        .agg(pl.col("complete").sum())
        .filter(pl.col("complete") >= panel_size)
        .select(answer)
    )
    n_pass, n_votes = pl.col("n_pass"), pl.col("n_votes")
    table = (
        scored.join(panels, on=answer, how="semi")
        .group_by([*answer, "sub_question", "variant", "environment", "observation_id"])
        .agg(n_pass=(pl.col("says_yes") == pl.col("yes_passes")).sum(), n_votes=pl.len())
        .filter((n_pass * 2 > panel_size) | ((n_votes - n_pass) * 2 > panel_size))
        .group_by(KEYS)
        .agg(n=pl.len(), passes=(n_pass * 2 > panel_size).sum())
        .sort(KEYS)
        .collect(engine="streaming")  # in batches: out of core
    )
    return table.to_pandas().astype({"n": "int64", "passes": "int64"})


def run_engine(engine: str, run_dir: Path, panel_size: int, out: Path) -> None:
    run = RunDir(run_dir)
    build = {
        "pandas": pandas_aggregate,
        "duckdb": duckdb_aggregate,
        "polars": polars_aggregate,
        BASELINE: lambda run, _: pd.DataFrame(
            columns=[*KEYS, "n", "passes"], index=item_table(run).index[:0]
        ),
    }
    table = build[engine](run, panel_size)
    table.sort_values(KEYS, ignore_index=True).to_pickle(out)


def measure(engine: str, run_dir: Path, panel_size: int, out: Path) -> dict:
    command = [
        sys.executable,
        __file__,
        str(run_dir),
        "--engine",
        engine,
        "--panel-size",
        str(panel_size),
        "--into",
        str(out),
    ]
    wall0 = time.perf_counter()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - wall0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{engine} failed")
    return {
        "engine": engine,
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mb": usage.ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a finished run directory")
    parser.add_argument(
        "--engine", choices=[*ENGINES, BASELINE], help="run one engine here (internal)"
    )
    parser.add_argument(
        "--engines", nargs="+", choices=[*ENGINES, BASELINE], default=[BASELINE, *ENGINES]
    )
    parser.add_argument("--panel-size", type=int, default=3)
    parser.add_argument("--into", type=Path, help="where --engine writes its table (internal)")
    args = parser.parse_args()
    if args.engine:
        run_engine(args.engine, args.run_dir, args.panel_size, args.into)
        return
    with tempfile.TemporaryDirectory() as tmp:
        figures, tables = [], {}
        for engine in args.engines:
            out = Path(tmp) / f"{engine}.pkl"
            figures.append(measure(engine, args.run_dir, args.panel_size, out))
            tables[engine] = pd.read_pickle(out)
    reference = tables.get("pandas")
    print(
        f"{'engine':8} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12}  aggregate rows  same as pandas"
    )
    for row in figures:
        table = tables[row["engine"]]
        same = (
            "-" if reference is None or row["engine"] == BASELINE else str(table.equals(reference))
        )
        print(
            f"{row['engine']:8} {row['wall_s']:8.1f} {row['cpu_s']:8.1f} "
            f"{row['peak_rss_mb']:12.0f}  {len(table):14d}  {same}"
        )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
