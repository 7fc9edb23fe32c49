"""``polistemics run``: the whole study, stage by stage, resumable.

data -> standardise -> environments -> answers + judges -> [judge repeats] -> [prior probe]
-> [stance coding] -> scores -> exports -> report.

Every model call goes through the client layer and is committed to the run store as it
finishes, so each stage skips what the store already holds: a rerun recomputes stage outputs
from cached calls and makes no new ones. Answers and judging overlap: an answer is judged as
soon as it exists, not after all answers are in.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from polistemics.answers.generate import STAGE as ANSWER_STAGE
from polistemics.answers.generate import answer_items
from polistemics.answers.prior_probe import STAGE as PROBE_STAGE
from polistemics.answers.prior_probe import election_name, probe_positions, probe_priors
from polistemics.conditions import Variant
from polistemics.environments.build import VagueSettings, build_environments
from polistemics.environments.conflict import swapped_order_items
from polistemics.environments.embeddings import make_embedder
from polistemics.environments.items import EnvironmentItem
from polistemics.evidence.standardise import standardise
from polistemics.judging.panel import STAGE as JUDGE_STAGE
from polistemics.judging.panel import judge_answers
from polistemics.llm.client import LLMClient
from polistemics.llm.progress import declare_total
from polistemics.llm.registry import ModelEndpoint, ModelRegistry, default_registry
from polistemics.llm.session import open_client
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.transport import env_proxy
from polistemics.records import Evidence, Position
from polistemics.rubrics import active_rubrics
from polistemics.run.coding import run_coding
from polistemics.run.collector import survivors_frozen
from polistemics.run.config import RunConfig
from polistemics.run.lock import RunLock
from polistemics.run.manifest import now
from polistemics.run.repeats import run_repeats
from polistemics.runlog import (
    Answer,
    JudgeVerdictRecord,
    ProbeAnswer,
    RepeatVerdictRecord,
    StanceCodeRecord,
)
from polistemics.runlog.layout import release_folder
from polistemics.scoring.verdict_table import score_run
from polistemics.sources.load import load_election
from polistemics.sources.scope import ScopedElection, apply_scope, load_scope

Log = Callable[[str], None]


@dataclass
class ElectionRun:
    """What the early stages produced for one election."""

    scoped: ScopedElection
    evidence: list[Evidence] = field(default_factory=list)
    items: list[EnvironmentItem] = field(default_factory=list)  # judged and scored
    # Contradictory items with the chunks in the other order: answered and coded, never judged.
    swapped_items: list[EnvironmentItem] = field(default_factory=list)
    standardisation: dict = field(default_factory=dict)
    environments: list[dict] = field(default_factory=list)
    vague: dict = field(default_factory=dict)


@dataclass(repr=False)  # see __repr__
class StudyResult:
    run_dir: Path
    elections: list[ElectionRun]
    answers: list[Answer]
    verdicts: list[JudgeVerdictRecord]
    stage_seconds: dict[str, float]
    calls_made: int
    judges_skipped: dict[str, int]
    # Repeat judging (``judge_repeats``): its verdicts, never scored, and what was drawn.
    repeat_verdicts: list[RepeatVerdictRecord] = field(default_factory=list)
    repeats_drawn: dict = field(default_factory=dict)
    # Issue 16: closed-book probe answers and every coder seat's reading (answers and probes).
    probe_answers: list[ProbeAnswer] = field(default_factory=list)
    stance_codes: list[StanceCodeRecord] = field(default_factory=list)

    def __repr__(self) -> str:
        # Short on purpose: asyncio.run formats the main task's repr, result included, when it
        # restores the SIGINT handler; the default repr of 100,000 verdicts took seconds.
        return (
            f"StudyResult({self.run_dir}, {len(self.answers)} answers, "
            f"{len(self.verdicts)} verdicts, {self.calls_made} calls made)"
        )


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
    for endpoint in endpoints.values():
        endpoint.api_key()
        if not endpoint.is_local:
            env_proxy(endpoint.resolved_base_url)


def panel(config: RunConfig, endpoints: dict[str, ModelEndpoint]) -> list[ModelEndpoint]:
    return [endpoints[name] for name in config.judges]


def load_elections(config: RunConfig) -> list[ScopedElection]:
    scoped = []
    for spec in config.elections:
        election = load_election(spec.source, election_id=spec.id)
        if spec.statements:
            keep = set(spec.statements)
            election = election.model_copy(
                update={"positions": [p for p in election.positions if p.statement.number in keep]}
            )
        scope = load_scope(spec.scope) if spec.scope else None
        scoped.append(apply_scope(election, scope))
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
    ):
        self.config = config
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
    ) -> StudyResult:
        """The model stages. The run directory's lock is taken before the store opens (another
        process running this directory stops this one with ``RunLocked``); ``keep_lock`` leaves
        it held for the caller's later stages, which then call ``self.lock.release()``."""
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
            result = await self._model_stages(elections, max_cost, retry_errors, quiet)
        except BaseException:
            self.lock.release()
            raise
        if not keep_lock:
            self.lock.release()
        return result

    async def _model_stages(
        self,
        elections: list[ElectionRun],
        max_cost: float | None,
        retry_errors: bool,
        quiet: bool,
    ) -> StudyResult:
        async with open_client(
            self.run_dir,
            max_cost=max_cost if max_cost is not None else self.config.max_cost,
            quiet=quiet,
            retry_errors=retry_errors,
        ) as client:
            calls_before = client.store.count_calls() if client.store else 0
            for run in elections:
                await self._standardise(client, run)
                await self._environments(client, run)
            items = [item for run in elections for item in run.items]
            swapped = [item for run in elections for item in run.swapped_items]
            with survivors_frozen():
                answers, verdicts, skipped = await self._answer_and_judge(client, items, swapped)
            with self.stage("judge_repeats"):
                repeats, drawn = await run_repeats(
                    client, self.config, self.endpoints, items, answers
                )
            if self.config.judge_repeats is not None:
                self.log(
                    f"judge repeats: {drawn['items_sampled']} items, "
                    f"{drawn['answers_rejudged']} answers, {len(repeats)} repeat records"
                )
            probes = await self._prior_probe(client, elections)
            with self.stage("stance_code"):
                codes = await run_coding(
                    client,
                    self.config,
                    self.endpoints,
                    [*items, *swapped],
                    answers,
                    probes,
                    [p for run in elections for p in run.scoped.observations],
                )
            if self.config.stance_coder:
                missing = sum(record.stance is None for record in codes)
                self.log(f"stance codes: {len(codes)} coder readings, {missing} missing")
            calls_made = client.network_calls
            self.log(f"calls: {calls_made} made this run, {calls_before} already in the store")
        return StudyResult(
            self.run_dir,
            elections,
            answers,
            verdicts,
            self.stage_seconds,
            calls_made,
            skipped,
            repeat_verdicts=repeats,
            repeats_drawn=drawn,
            probe_answers=probes,
            stance_codes=codes,
        )

    # -- stages ------------------------------------------------------------------------------

    async def _standardise(self, client: LLMClient, run: ElectionRun) -> None:
        with self.stage("standardise"):
            scoped = run.scoped
            result = await standardise(
                scoped.observations,
                client,
                self.endpoints[self.config.standardiser],
                excluded_missing_rationale=len(scoped.excluded_missing_rationale),
                max_attempts=self.config.standardise_retries + 1,
            )
            run.evidence = result.evidence
            run.standardisation = result.stats.model_dump(mode="json")
            self.log(
                f"standardise: {scoped.election.id}: {len(result.evidence)} kept, "
                f"{len(result.excluded)} rejected after retries"
            )

    async def _environments(self, client: LLMClient, run: ElectionRun) -> None:
        with self.stage("environments"):
            config = self.config
            embedder = make_embedder(config.embeddings, cache_dir=self.run_dir / "embeddings")
            vague = VagueSettings(
                client,
                self.endpoints[config.vague_generator],
                self.endpoints[config.vague_auditor],
                max_attempts=config.vague_max_tries,
            )
            positions: list[Position] = run.scoped.election.positions
            full = await build_environments(
                run.evidence,
                environments=config.environment_list,
                variant=Variant.FULL,
                seed=config.seed,
                positions=positions,
                embedder=embedder,
                vague=vague,
            )
            run.items = list(full.items)
            run.swapped_items = swapped_order_items(
                full.items, config.contradictory_swapped, config.seed
            )
            run.environments = [_summary(s, Variant.FULL) for s in full.summaries]
            run.vague = full.vague.report.as_dict() if full.vague else {}
            rewrites = full.vague.rewrites if full.vague else []
            for variant in config.variants[1:]:
                wanted = [e for e in variant.environments if e in config.environment_list]
                if not wanted:
                    continue
                built = await build_environments(
                    run.evidence,
                    environments=wanted,
                    variant=variant,
                    seed=config.seed,
                    positions=positions,
                    embedder=embedder,
                    rewrites=rewrites,
                )
                run.items.extend(built.items)
                run.environments.extend(_summary(s, variant) for s in built.summaries)
            for s in run.environments:
                self.log(
                    f"environments: {run.scoped.election.id}: {s['variant']}/{s['environment']}: "
                    f"{s['kept']} kept, {s['dropped']} dropped"
                )
            if run.swapped_items:
                self.log(
                    f"environments: {run.scoped.election.id}: swapped-order Contradictory: "
                    f"{len(run.swapped_items)} items (answered and coded, not judged)"
                )

    async def _prior_probe(
        self, client: LLMClient, elections: list[ElectionRun]
    ) -> list[ProbeAnswer]:
        """The closed-book probe: every target asked each observation's question, no context."""
        if not self.config.prior_probe:
            return []
        with self.stage("prior_probe"):
            targets = [self.endpoints[name] for name in self.config.targets]
            positions = [p for run in elections for p in run.scoped.observations]
            names = {
                run.scoped.election.id: election_name(run.scoped.election) for run in elections
            }
            total = len(probe_positions(positions)) * len(targets) * self.config.samples
            declare_total(client.listeners, PROBE_STAGE, total)
            probes = await probe_priors(
                client, targets, positions, names, samples=self.config.samples
            )
        self.log(
            f"prior probe: {sum(p.ok for p in probes)} ok, {sum(not p.ok for p in probes)} failed"
        )
        return probes

    async def _answer_and_judge(
        self,
        client: LLMClient,
        items: list[EnvironmentItem],
        swapped: list[EnvironmentItem] | None = None,
    ) -> tuple[list[Answer], list[JudgeVerdictRecord], dict[str, int]]:
        """Every item answered and judged; ``swapped`` items are answered only."""
        swapped = swapped or []
        targets = [self.endpoints[name] for name in self.config.targets]
        judges = panel(self.config, self.endpoints)
        started = time.perf_counter()
        per_item = len(targets) * self.config.samples
        declare_total(client.listeners, ANSWER_STAGE, (len(items) + len(swapped)) * per_item)
        # First tries only: a failed answer is not judged, an unparseable verdict is asked again.
        rubric_calls = sum(len(active_rubrics(item.environment)) for item in items)
        declare_total(client.listeners, JUDGE_STAGE, rubric_calls * len(judges) * per_item)
        verdict_lists: list[list[JudgeVerdictRecord]] = []
        skipped: dict[str, int] = {}

        # Answers being judged at once: enough to keep every judge's slots busy, few enough that
        # prompts are built shortly before their calls (not 100,000 of them up front).
        in_flight = asyncio.Semaphore(2 * max(judge.max_concurrency for judge in judges))

        async def judge_one(answer: Answer) -> None:
            # Called as each answer arrives, so judging overlaps with answering.
            if answer.item_key not in by_key:  # a swapped-order item: never judged
                return
            async with in_flight:
                judged = await judge_answers(client, judges, [(by_key[answer.item_key], answer)])
            verdict_lists.append(list(judged))
            for why, n in judged.skipped.items():
                skipped[why] = skipped.get(why, 0) + n

        by_key = {item.key: item for item in items}
        if self.config.overlap_judging:
            pending: list[asyncio.Task] = []
            answers = await answer_items(
                client,
                targets,
                [*items, *swapped],
                samples=self.config.samples,
                on_result=lambda answer: pending.append(asyncio.ensure_future(judge_one(answer))),
            )
            await gather_or_cancel(pending)
        else:
            answers = await answer_items(
                client, targets, [*items, *swapped], samples=self.config.samples
            )
            judged = await judge_answers(
                client,
                judges,
                [(by_key[a.item_key], a) for a in answers if a.item_key in by_key],
                prompt_order=True,
                calls_at_once=min(client.calls_at_once(judge) for judge in judges),
            )
            verdict_lists.append(list(judged))
            skipped.update(judged.skipped)
        self.stage_seconds["answers+judges"] = time.perf_counter() - started
        verdicts = [record for records in verdict_lists for record in records]
        verdicts.sort(
            key=lambda r: (r.item_key, r.model, r.sample_index, r.panel_position, r.rubric.value)
        )
        self.log(
            f"answers: {sum(a.ok for a in answers)} ok, {sum(not a.ok for a in answers)} failed; "
            f"judge records: {len(verdicts)}"
        )
        return answers, verdicts, skipped

    def stage(self, name: str) -> _Timer:
        """Times a block into ``stage_seconds[name]`` (run.json and the CLI print them)."""
        return _Timer(name, self.stage_seconds)


class _Timer:
    def __init__(self, name: str, into: dict[str, float]):
        self.name, self.into = name, into

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.into[self.name] = self.into.get(self.name, 0.0) + time.perf_counter() - self.started


def _summary(summary, variant: Variant) -> dict:
    return {
        "variant": variant.value,
        "environment": summary.environment.value,
        "kept": summary.kept,
        "dropped": summary.dropped,
        **summary.details,
    }


def score_study(result: StudyResult, config: RunConfig):
    """Majority-voted cells for the whole run (all elections and variants)."""
    items = [item for run in result.elections for item in run.items]
    countries = {
        run.scoped.election.id: run.scoped.election.country.upper() for run in result.elections
    }
    return score_run(result.verdicts, items, panel_size=len(config.judges), countries=countries)
