"""``polistemics run --dry-run``: how many calls a run will make, before making any.

Counts follow the paper's design exactly from the data: observations per environment (Tables 5
and 9: Contradictory and Counterfactual keep only observations with a strictly opposing party),
ablations (anonymised labels: Baseline and Vague; English: Baseline), and the judge panel (three
rubrics per answer, Epistemic Calibration only in Absent). Retries are not counted.
Token figures are estimates (prompt characters / 4 plus a typical output length per stage);
cost uses the prices handed in (``llm.pricing``: OpenRouter's list or the registry), each row
naming where its price came from; without them, the registry's prices.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from polistemics.answers.prior_probe import STAGE as PROBE_STAGE
from polistemics.answers.prior_probe import probe_positions
from polistemics.coding.coder import STAGE as CODE_STAGE
from polistemics.conditions import Environment, Variant
from polistemics.environments.conflict import select_conflict_parties
from polistemics.judging.panel import REPEAT_STAGE
from polistemics.llm.keys import call_key, canonical_json, request_params
from polistemics.llm.pricing import Price, registry_price
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.prompts import load
from polistemics.records import Evidence
from polistemics.rubrics import active_rubrics
from polistemics.run.config import RunConfig
from polistemics.run.repeats import planned_repeat_calls
from polistemics.run.replay import Replayed, replay_early_stages
from polistemics.sources.scope import ScopedElection

# Typical sizes in tokens, used only for estimates.
EVIDENCE_TOKENS = 150
OUTPUT_TOKENS = {"standardise": 180, "vague": 180, "vague_audit": 10, "answer": 150, "judge": 20}
OUTPUT_TOKENS[REPEAT_STAGE] = OUTPUT_TOKENS["judge"]
OUTPUT_TOKENS[PROBE_STAGE] = OUTPUT_TOKENS["answer"]
OUTPUT_TOKENS[CODE_STAGE] = 20


@dataclass
class PlanRow:
    stage: str
    model: str
    calls: int
    cached: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    price_source: str

    @property
    def new(self) -> int:
        return self.calls - self.cached


def environment_counts(
    scoped: ScopedElection, config: RunConfig, replayed: Replayed | None = None
) -> dict[tuple[Variant, Environment], int]:
    """Items per variant and environment: from the stances alone (no model needed), or, when
    the store holds the early stages (``replayed``), from the evidence and Vague rewrites a run
    would get (rejected observations and failed rewrites are no items)."""
    if replayed is not None:
        evidence = replayed.evidence
    else:
        evidence = [Evidence(position=p, text="[PARTY]") for p in scoped.observations]
    kept_conflict = len(select_conflict_parties(evidence, scoped.election.positions).choices)
    counts = {}
    for variant in config.variants:
        for env in variant.environments:
            if env not in config.environment_list:
                continue
            n = len(evidence)
            if env in (Environment.CONTRADICTORY, Environment.COUNTERFACTUAL):
                n = kept_conflict
            elif env is Environment.VAGUE and replayed is not None:
                n = replayed.vague_kept or 0
            counts[(variant, env)] = n
    return counts


def swapped_count(config: RunConfig, contradictory_items: int) -> int:
    """Swapped-order Contradictory items of one election (``environments.conflict.
    swapped_order_items``): all of them, the ceiling of half, or none."""
    if config.contradictory_swapped == "all":
        return contradictory_items
    if config.contradictory_swapped == "half":
        return (contradictory_items + 1) // 2
    return 0


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def plan_study(
    config: RunConfig,
    elections: list[ScopedElection],
    endpoints: dict[str, ModelEndpoint],
    store: RunStore | None,
    prices: Mapping[str, Price] | None = None,
) -> tuple[list[PlanRow], dict]:
    stored = _stored_ok(store)
    prices = prices or {}

    def _row(stage: str, endpoint: ModelEndpoint, calls: int, cached: int, tokens_in: int):
        price = prices.get(endpoint.name) or registry_price(endpoint)
        return _plan_row(stage, endpoint, calls, cached, tokens_in, price)

    rows: list[PlanRow] = []
    details: dict = {"elections": {}}
    n_obs = sum(len(s.observations) for s in elections)
    replays = {
        s.election.id: replay_early_stages(config, s, endpoints, store) if store else None
        for s in elections
    }
    # Every early-stage call replayed from the store: their counts are exact, all cached.
    served = None
    if elections and all(r is not None for r in replays.values()):
        served = sum((r.calls for r in replays.values() if r is not None), Counter())

    def _early_row(stage: str, name: str, estimate: int, cached: int, tokens_in: int) -> None:
        if served is not None:
            estimate = cached = served[stage]
        rows.append(_row(stage, endpoints[name], estimate, cached, tokens_in))

    std_in = _tokens(load("standardise_system")) + 100
    std_cached = _cached_standardise(elections, endpoints[config.standardiser], store)
    _early_row("standardise", config.standardiser, n_obs, std_cached, std_in)

    items_per_env: dict[tuple[Variant, Environment], int] = {}
    swapped = probes = 0
    for scoped in elections:
        replayed = replays[scoped.election.id]
        counts = environment_counts(scoped, config, replayed)
        n_swapped = swapped_count(config, counts.get((Variant.FULL, Environment.CONTRADICTORY), 0))
        details["elections"][scoped.election.id] = {
            **scoped.counts,
            "items_from": "store" if replayed is not None else "stances",
            "items": {f"{v.value}/{e.value}": n for (v, e), n in counts.items()},
        }
        if n_swapped:
            details["elections"][scoped.election.id]["items"]["full/contradictory_swapped"] = (
                n_swapped
            )
        for key, n in counts.items():
            items_per_env[key] = items_per_env.get(key, 0) + n
        swapped += n_swapped
        if config.prior_probe:
            probes += len(probe_positions(scoped.observations))

    if Environment.VAGUE in config.environment_list:
        _early_row(
            "vague",
            config.vague_generator,
            n_obs,
            stored.get(("vague", config.vague_generator), 0),
            _tokens(load("vague_system")) + EVIDENCE_TOKENS,
        )
        _early_row(
            "vague_audit",
            config.vague_auditor,
            n_obs,
            stored.get(("vague_audit", config.vague_auditor), 0),
            _tokens(load("vague_audit_system")) + EVIDENCE_TOKENS,
        )

    # Swapped-order items are answered (and coded) like the others, never judged.
    answers = (sum(items_per_env.values()) + swapped) * config.samples
    chunks = {Environment.ABSENT: 0, Environment.NOISY: 5, Environment.CONTRADICTORY: 2}
    answer_in = sum(
        n * (_tokens(load("task_system")) + 40 + chunks.get(env, 1) * EVIDENCE_TOKENS)
        for (_, env), n in items_per_env.items()
    ) // max(1, sum(items_per_env.values()))
    for name in config.targets:
        rows.append(
            _row("answer", endpoints[name], answers, stored.get(("answer", name), 0), answer_in)
        )

    # Every target's answer to every item is judged on each of its environment's rubrics.
    judge_calls = (
        sum(n * len(active_rubrics(env)) for (_, env), n in items_per_env.items())
        * config.samples
        * len(config.targets)
    )
    judge_in = _tokens(load("judge_system")) + 250 + answer_in
    # Seats that are the same endpoint (location, model, parameters) make the same calls, which
    # are stored once under whichever seat's name called first: one row per distinct endpoint.
    same_calls: dict[tuple[str, str, str], list[str]] = {}
    for name in dict.fromkeys(config.judges):
        same_calls.setdefault(endpoint_identity(endpoints[name]), []).append(name)
    for names in same_calls.values():
        cached = sum(stored.get(("judge", name), 0) for name in names)
        rows.append(_row("judge", endpoints[names[0]], judge_calls, cached, judge_in))

    for name, calls in planned_repeat_calls(config, items_per_env, endpoints).items():
        cached = stored.get((REPEAT_STAGE, name), 0)
        rows.append(_row(REPEAT_STAGE, endpoints[name], calls, cached, judge_in))
    details["judge_repeat_calls_total"] = sum(r.calls for r in rows if r.stage == REPEAT_STAGE)

    rows.extend(
        _mechanism_rows(config, endpoints, stored, items_per_env, swapped, probes, _row, details)
    )

    details["answers_total"] = len(config.targets) * answers
    details["judge_calls_total"] = sum(r.calls for r in rows if r.stage == "judge")
    details["items_per_environment"] = {
        f"{v.value}/{e.value}": n for (v, e), n in items_per_env.items()
    }
    return rows, details


def _mechanism_rows(
    config: RunConfig,
    endpoints: dict[str, ModelEndpoint],
    stored: dict[tuple[str, str], int],
    items_per_env: Mapping[tuple[Variant, Environment], int],
    swapped: int,
    probes: int,
    make_row,
    details: dict,
) -> list[PlanRow]:
    """Issue 16's calls: the closed-book probe per target, and the stance coder's first tries
    per distinct coder endpoint (answers of coded environments and swapped items, and probe
    answers; identical seats share calls, as judges do). Every answer is assumed to succeed."""
    rows = []
    per_target = config.samples
    probe_calls = probes * per_target
    if probe_calls:
        probe_in = _tokens(load("prior_probe_system")) + _tokens(load("prior_probe_user")) + 20
        for name in config.targets:
            cached = stored.get((PROBE_STAGE, name), 0)
            rows.append(make_row(PROBE_STAGE, endpoints[name], probe_calls, cached, probe_in))
    coded = sum(n for (_, env), n in items_per_env.items() if env in config.coded_environments)
    answer_codes = (
        (coded + swapped) * per_target * len(config.targets) if config.stance_coder else 0
    )
    probe_codes = probe_calls * len(config.targets)
    details["prior_probe_calls_total"] = probe_calls * len(config.targets)
    details["stance_code_subjects"] = {"answers": answer_codes, "probes": probe_codes}
    if not config.stance_coder:
        details["stance_code_calls_total"] = 0
        return rows
    code_in = _tokens(load("stance_coder_system")) + _tokens(load("stance_coder_user")) + 400
    same_calls: dict[tuple[str, str, str], list[str]] = {}
    for name in dict.fromkeys(config.stance_coder):
        same_calls.setdefault(endpoint_identity(endpoints[name]), []).append(name)
    for names in same_calls.values():
        cached = sum(stored.get((CODE_STAGE, name), 0) for name in names)
        subjects = answer_codes + probe_codes
        rows.append(make_row(CODE_STAGE, endpoints[names[0]], subjects, cached, code_in))
    details["stance_code_calls_total"] = sum(r.calls for r in rows if r.stage == CODE_STAGE)
    return rows


def endpoint_identity(endpoint: ModelEndpoint) -> tuple[str, str, str]:
    """What a call key knows of an endpoint: where it is served, the model, the parameters."""
    return (
        endpoint.resolved_base_url,
        endpoint.model,
        canonical_json(endpoint.generation_params()),
    )


def _plan_row(
    stage: str, endpoint: ModelEndpoint, calls: int, cached: int, input_tokens: int, price: Price
) -> PlanRow:
    cached = min(cached, calls)
    new = calls - cached
    tin, tout = new * input_tokens, new * OUTPUT_TOKENS[stage]
    return PlanRow(
        stage, endpoint.name, calls, cached, tin, tout, price.cost(tin, tout), price.source
    )


def _stored_ok(store: RunStore | None) -> dict[tuple[str, str], int]:
    if store is None:
        return {}
    counts: dict[tuple[str, str], int] = {}
    for row in store.call_stats():
        key = (row["stage"], row["endpoint"])
        counts[key] = counts.get(key, 0) + row["calls"] - (row["errors"] or 0)
    return counts


def _cached_standardise(
    elections: list[ScopedElection], endpoint: ModelEndpoint, store: RunStore | None
) -> int:
    """Exact: the first standardisation prompt of each observation is known before any call."""
    if store is None:
        return 0
    from polistemics.evidence.standardise import OUTPUT_SCHEMA, standardise_messages

    params = request_params(endpoint, json_schema=OUTPUT_SCHEMA)
    found = 0
    for scoped in elections:
        for position in scoped.observations:
            key = call_key(endpoint, standardise_messages(position), params, 0)
            result = store.get_call(key)
            found += bool(result and result.ok)
    return found
