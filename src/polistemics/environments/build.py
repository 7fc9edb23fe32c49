"""Build the requested environments for one election and variant, with kept/dropped counts."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from polistemics.conditions import Environment, Variant
from polistemics.environments.absent import build_absent_items
from polistemics.environments.baseline import build_baseline_items
from polistemics.environments.basis import EnvironmentInputError, check_evidence, observation_major
from polistemics.environments.compose import build_composition_items
from polistemics.environments.conflict import (
    build_contradictory_items,
    build_counterfactual_items,
    select_conflict_parties,
)
from polistemics.environments.embeddings import Embedder
from polistemics.environments.noisy import DistractorPicker, build_noisy_items
from polistemics.environments.vague import (
    DEFAULT_MAX_ATTEMPTS,
    VagueOutcome,
    VagueRewrite,
    build_vague_items,
    generate_vague_rewrites,
)
from polistemics.llm.progress import TryHook
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import Completer
from polistemics.records import Evidence, Position
from polistemics.runlog.items import EnvironmentItem


@dataclass
class VagueSettings:
    """How Vague rewrites are obtained: the generator, the auditor and the try budget."""

    completer: Completer
    endpoint: ModelEndpoint
    audit_endpoint: ModelEndpoint
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    on_try: TryHook | None = None  # hears of each checked generation try (progress)


@dataclass
class EnvironmentSummary:
    environment: Environment
    kept: int
    dropped: int
    details: dict[str, int] = field(default_factory=dict)


@dataclass
class BuildResult:
    items: list[EnvironmentItem]  # observation-major, environments in Table 1 order
    summaries: list[EnvironmentSummary]
    vague: VagueOutcome | None = None


def parse_environments(text: str) -> list[Environment]:
    """A comma-separated list of environment names (release names or Table 1 labels)."""
    names = [part for part in (p.strip() for p in text.split(",")) if part]
    if not names:
        raise EnvironmentInputError("no environment named")
    try:
        return [Environment.parse(name) for name in names]
    except ValueError as exc:
        raise EnvironmentInputError(str(exc)) from None


async def build_environments(
    evidence: Sequence[Evidence],
    *,
    environments: Iterable[Environment] | None = None,
    variant: Variant = Variant.FULL,
    seed: int = 0,
    positions: Iterable[Position] = (),
    embedder: Embedder | None = None,
    vague: VagueSettings | None = None,
    rewrites: Sequence[VagueRewrite] | None = None,
    counterbalance_contradictory_order: bool = False,
    compositions: Iterable[Environment] = (),
) -> BuildResult:
    """Build each requested environment (default: all of the variant's), then each composition
    (issue 30, full variant only: ``environments.compose``; its parts must be requested too, a
    Vague part reuses the Vague rewrites).

    Noisy needs ``embedder``. Vague uses ``rewrites`` when given, otherwise generates them with
    ``vague`` (mode draws seeded by ``seed``). ``positions`` are the election's stances for the
    ideological distance (the evidence's own positions are always included).
    """
    check_evidence(evidence)
    wanted = list(dict.fromkeys(environments or variant.environments))
    compositions = list(dict.fromkeys(compositions))
    if compositions and variant is not Variant.FULL:
        raise EnvironmentInputError(f"variant '{variant.value}' has no compositions")
    for composition in compositions:
        lacking = [p.value for p in composition.parts if p not in wanted]
        if not composition.is_composition or lacking:
            raise EnvironmentInputError(
                f"composition '{composition.value}' needs its parts built too (missing: "
                f"{', '.join(lacking) or 'it is not a composition'})"
            )
    not_in_variant = [e.value for e in wanted if e not in variant.environments]
    if not_in_variant:
        raise EnvironmentInputError(
            f"variant '{variant.value}' has no {', '.join(not_in_variant)} "
            f"(it has {', '.join(e.value for e in variant.environments)})"
        )
    positions = list(positions)
    total = len(evidence)
    items: list[EnvironmentItem] = []
    summaries: list[EnvironmentSummary] = []
    vague_outcome: VagueOutcome | None = None
    selection = None
    picker = None  # one per build: Noisy and the compositions with it rank alike

    for env in sorted(wanted, key=list(Environment).index):
        details: dict[str, int] = {}
        if env is Environment.BASELINE:
            built = build_baseline_items(evidence, variant)
        elif env is Environment.ABSENT:
            built = build_absent_items(evidence, variant)
        elif env in (Environment.CONTRADICTORY, Environment.COUNTERFACTUAL):
            selection = selection or select_conflict_parties(evidence, positions)
            if env is Environment.CONTRADICTORY:
                result = build_contradictory_items(
                    evidence,
                    variant=variant,
                    counterbalance_order=counterbalance_contradictory_order,
                    selection=selection,
                )
                details["tied_closest"] = sum(c.closest_is_tied for c in selection.choices.values())
            else:
                result = build_counterfactual_items(evidence, variant=variant, selection=selection)
                details["tied_farthest"] = sum(
                    c.farthest_is_tied for c in selection.choices.values()
                )
            built = result.items
        elif env is Environment.NOISY:
            if embedder is None:
                raise EnvironmentInputError("the Noisy environment needs an embedding model")
            picker = DistractorPicker.of(evidence, embedder)
            built = build_noisy_items(evidence, embedder, variant=variant, picker=picker).items
        else:  # Vague
            if rewrites is None:
                if vague is None:
                    raise EnvironmentInputError(
                        "the Vague environment needs a model (or ready-made rewrites)"
                    )
                vague_outcome = await generate_vague_rewrites(
                    evidence,
                    vague.completer,
                    vague.endpoint,
                    vague.audit_endpoint,
                    seed=seed,
                    max_attempts=vague.max_attempts,
                    on_try=vague.on_try,
                )
                rewrites = vague_outcome.rewrites
                details = vague_outcome.report.as_dict()
            built = build_vague_items(evidence, rewrites, variant=variant)
        items.extend(built)
        summaries.append(EnvironmentSummary(env, len(built), total - len(built), details))
    for composition in compositions:
        parts = composition.parts
        if Environment.CONTRADICTORY in parts or Environment.COUNTERFACTUAL in parts:
            selection = selection or select_conflict_parties(evidence, positions)
        composed = build_composition_items(
            evidence,
            composition,
            variant=variant,
            selection=selection,
            rewrites=rewrites,
            picker=picker,
            counterbalance_order=counterbalance_contradictory_order,
        )
        items.extend(composed.items)
        summaries.append(
            EnvironmentSummary(
                composition, len(composed.items), composed.n_dropped, composed.counts()
            )
        )
    return BuildResult(observation_major(evidence, items), summaries, vague_outcome)
