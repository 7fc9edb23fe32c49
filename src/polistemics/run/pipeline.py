"""``polistemics run``: the whole study, stage by stage, resumable.

data -> the model stages (``run.stages.STAGES``: standardise -> environments -> answers +
judges -> [judge repeats] -> [prior probe] -> [stance coding]) -> scores -> exports -> report
(``run.finish``).

Every model call goes through the client layer and is committed to the run store as it
finishes, so each stage skips what the store already holds: a rerun recomputes stage outputs
from cached calls and makes no new ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from polistemics.conditions import Variant
from polistemics.llm.progress import end_stages
from polistemics.llm.registry import ModelEndpoint, ModelRegistry, default_registry
from polistemics.run.config import RunConfig
from polistemics.run.disk_space import check_disk_space
from polistemics.run.incremental import RECORDS, Ledger, records_key
from polistemics.run.lock import RunLock
from polistemics.run.manifest import now
from polistemics.run.scoring_process import (
    ScoringInput,
    own_process_scoring,
    score_records,
    wants_scoring_process,
)
from polistemics.run.stages import STAGES
from polistemics.run.stages.base import ElectionRun, Log, Stage, StudyState, run_stages
from polistemics.run.warm_imports import imported_meanwhile
from polistemics.runlog import RunDir
from polistemics.runlog.layout import release_folder
from polistemics.runlog.spool import SpooledJudgeRecords
from polistemics.sources.load import load_election
from polistemics.sources.scope import ScopedElection, apply_scope

if TYPE_CHECKING:
    from polistemics.llm.client import LLMClient  # the client (aiohttp) only when calls are made

__all__ = [
    "ElectionRun",
    "Study",
    "StudyResult",
    "check_keys",
    "load_elections",
    "resolve_endpoints",
    "score_study",
]

# What ``Study.execute`` returns: the state the stages filled.
StudyResult = StudyState


def resolve_endpoints(config: RunConfig, registry: ModelRegistry) -> dict[str, ModelEndpoint]:
    """Registry entries for every role, with the config's concurrency override applied."""
    endpoints = {}
    for name in config.model_names():
        endpoint = registry.get(name)
        if config.concurrency is not None:
            endpoint = endpoint.model_copy(update={"max_concurrency": config.concurrency})
        endpoints[name] = endpoint
    return endpoints


def check_keys(endpoints: dict[str, ModelEndpoint]) -> None:
    """Fail before any call when a key variable is unset or a proxy variable names a proxy the
    transport cannot use (the error names the variable)."""
    from polistemics.llm.transport import env_proxy

    for endpoint in endpoints.values():
        endpoint.api_key()
        if not endpoint.is_local:
            env_proxy(endpoint.resolved_base_url)


def load_elections(config: RunConfig) -> list[ScopedElection]:
    scoped = []
    for spec in config.elections:
        election = load_election(spec.source, election_id=spec.id)
        if spec.statements:
            keep = set(spec.statements)
            election = election.model_copy(
                update={"positions": [p for p in election.positions if p.statement.number in keep]}
            )
        scoped.append(apply_scope(election, spec.party_scope()))
    return scoped


class Study:
    """One run of a config: holds the client and the run directory while stages execute."""

    def __init__(
        self,
        config: RunConfig,
        run_dir: Path,
        *,
        log: Log = print,
        registry: ModelRegistry | None = None,
        stages: Sequence[Stage] = STAGES,
    ):
        self.config = config
        self.stages = list(stages)
        self.run_dir = run_dir
        self.log = log
        self.registry = registry or default_registry(config.models_file)
        self.endpoints = resolve_endpoints(config, self.registry)
        self.stage_seconds: dict[str, float] = {}
        self.started = now()
        self.lock = RunLock(run_dir)

    async def execute(
        self,
        *,
        max_cost: float | None = None,
        retry_errors: bool = False,
        quiet: bool = False,
        keep_lock: bool = False,
        skip_unchanged: bool = False,
    ) -> StudyResult:
        """The model stages. The run directory's lock is taken before the store opens (another
        process running this directory stops this one with ``RunLocked``); ``keep_lock`` leaves
        it held for the caller's later stages, which then call ``self.lock.release()``.
        ``skip_unchanged``: when the records of the last finish are current (``run.incremental``:
        same store, config, data and code, files as written), no stage runs and the state says
        so (``unchanged_records``; ``run.finish`` then rebuilds nothing it need not)."""
        self.started = now()
        check_keys(self.endpoints)
        with self.stage("data"):
            elections = [ElectionRun(scoped) for scoped in load_elections(self.config)]
            for run in elections:
                # Election ids become exports/<id>/: refuse one that would leave the run.
                release_folder(self.run_dir, run.scoped.election.id, Variant.FULL)
                counts = ", ".join(
                    f"{n} {what.replace('_', ' ')}" for what, n in run.scoped.counts.items()
                )
                self.log(f"data: {run.scoped.election.id}: {counts}")
        # Only now, with config, keys and data known good, does the run directory appear (the
        # lock creates it).
        self.lock.acquire()
        try:
            unchanged = self._unchanged(elections) if skip_unchanged and not retry_errors else None
            result = unchanged or await self._model_stages(elections, max_cost, retry_errors, quiet)
        except BaseException:
            self.lock.release()
            raise
        if not keep_lock:
            self.lock.release()
        return result

    def _unchanged(self, elections: list[ElectionRun]) -> StudyResult | None:
        """The state of a run whose records are current (no stage runs), else None."""
        key = records_key(
            self.config,
            self.endpoints,
            [run.scoped for run in elections],
            RunDir(self.run_dir).store,
        )
        if not Ledger(self.run_dir).is_current(RECORDS, key):
            return None
        self.log("records: as the last finish left them (same store, config, data and code)")
        state = StudyState(
            self.config,
            self.endpoints,
            self.run_dir,
            elections,
            log=self.log,
            stage_seconds=self.stage_seconds,
        )
        state.unchanged_records = key
        return state

    async def _model_stages(
        self,
        elections: list[ElectionRun],
        max_cost: float | None,
        retry_errors: bool,
        quiet: bool,
    ) -> StudyResult:
        # Before the first call: refuse a study the disk cannot hold (run.disk_space).
        check_disk_space(
            self.config, [run.scoped for run in elections], self.endpoints, self.run_dir
        )
        # The finish's libraries load while the stages wait on the network (``warm_imports``).
        with imported_meanwhile():
            return await self._model_stages_in_client(max_cost, retry_errors, quiet, elections)

    async def _model_stages_in_client(
        self,
        max_cost: float | None,
        retry_errors: bool,
        quiet: bool,
        elections: list[ElectionRun],
    ) -> StudyResult:
        from polistemics.llm.session import open_client

        async with open_client(
            self.run_dir,
            max_cost=max_cost if max_cost is not None else self.config.max_cost,
            quiet=quiet,
            retry_errors=retry_errors,
        ) as client:
            calls_before = client.store.count_calls() if client.store else 0
            state = StudyState(
                self.config,
                self.endpoints,
                self.run_dir,
                elections,
                log=self.log,
                client=client,
                stage_seconds=self.stage_seconds,
            )
            await run_stages(self.stages, state, self._ending_stages(client))
            state.calls_made = client.network_calls
            self.log(
                f"calls: {state.calls_made} made this run, {calls_before} already in the store"
            )
        state.client = None
        return state

    def stage(self, name: str) -> _Timer:
        """Times a block into ``stage_seconds[name]`` (run.json and the CLI print them)."""
        return _Timer(name, self.stage_seconds)

    def _ending_stages(self, client: LLMClient) -> Callable[[str], AbstractContextManager[None]]:
        """``stage``, and when the block ends the progress lines of its calls end too (at once,
        with the time up to their last result)."""

        @contextmanager
        def timed(name: str) -> Iterator[None]:
            with self.stage(name):
                yield
            end_stages(client.listeners)

        return timed


class _Timer:
    def __init__(self, name: str, into: dict[str, float]):
        self.name, self.into = name, into

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.into[self.name] = self.into.get(self.name, 0.0) + time.perf_counter() - self.started


def score_study(result: StudyResult, config: RunConfig):
    """Majority-voted cells for the whole run (all elections and variants)."""
    with scoring_started(result, config) as scored:
        return scored()


@contextmanager
def scoring_started(result: StudyResult, config: RunConfig) -> Iterator[Callable[[], object]]:
    """``score_study``'s cells, for the block to ask for (``scored()``). A large study is scored
    in a process of its own (``run.scoring_process``), whose pages go when it ends, while the
    block runs (the finish writes the exports meanwhile: they do not read the scores); any other
    is scored here before the block. Leaving the block waits for the process."""
    # pandas: imported by the finish, not by a dry run that only plans the calls (issue 26)
    from polistemics.scoring.verdict_codes import fields_by_key
    from polistemics.scoring.verdict_table import item_metadata, panel_tally, score_run
    from polistemics.scoring.verdicts import majority_of

    items = result.items
    countries = {
        run.scoped.election.id: run.scoped.election.country.upper() for run in result.elections
    }
    records, panel_size = result.verdicts, len(config.judges)
    if not isinstance(records, SpooledJudgeRecords):
        majority = score_run(records, items, panel_size=panel_size, countries=countries)
        yield lambda: majority
        return
    # The stage's file, tallied chunk by chunk (no list of its records; each judge's vote
    # totals for the analyses come from the same pass); when it declines (records not in
    # answer blocks, a failed check of the panel), all at once, which raises the check's error.
    # run.json's parsing figures are counted in the same pass (not a second read of the file).
    metadata = item_metadata(items, countries) if items else None
    scoring = ScoringInput(records, fields_by_key(items), metadata, panel_size)

    def majority_from(scored: tuple | None):
        if scored is not None:
            majority, result.parsing_counts = scored
            return majority
        by_key = {item.key: item for item in items}
        return majority_of(panel_tally(records.read_for_scoring(), by_key, panel_size), metadata)

    if not wants_scoring_process(len(records)):
        majority = majority_from(score_records(scoring))
        yield lambda: majority
        return
    with own_process_scoring(scoring) as future:
        yield lambda: majority_from(future.result())
