"""Repeat judging (paper Sec. 10): judges re-judge a seeded sample of items with identical
prompts, to measure how often their verdicts flip. The repeats are never scored.

- **Which items.** Environment items, drawn per variant x environment stratum in proportion to
  its size (largest remainders, so a count is met exactly), each stratum's draw seeded from the
  run seed and the stratum's name: every rerun draws the same items, so a resumed run finds the
  repeats it already made in the store.
- **Which calls.** Every judged answer of a drawn item (each target model and sample) is
  re-judged by each repeat judge on each active rubric, ``repeats`` times, with the panel's own
  prompt. Repeat ``r`` calls with ``panel.call_index(r, attempt)`` as its sample index, so it is
  a distinct call with its own cache key: never the panel's call, never another repeat's.
- **Which judges.** Judges served by the same endpoint with the same parameters would share
  every cache key (as the panel's seats do), so they count as one repeat judge: the first.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence

from polistemics.judging.panel import judge_one
from polistemics.llm.keys import canonical_json
from polistemics.llm.registry import ModelEndpoint, RegistryError
from polistemics.llm.tasks import gather_or_cancel
from polistemics.llm.types import Completer
from polistemics.rubrics import active_rubrics
from polistemics.runlog import Answer, RepeatVerdictRecord
from polistemics.runlog.items import EnvironmentItem

ItemsWanted = int | float  # a count of items, or a fraction of them


def stratum(item: EnvironmentItem) -> str:
    return f"{item.variant.value}/{item.environment.value}"


def allocate(sizes: Mapping[str, int], wanted: ItemsWanted) -> dict[str, int]:
    """Items to draw per stratum: ``wanted`` (a count, at most every item; or a fraction of the
    total, rounded half up, at least one) split in proportion to the strata's sizes."""
    total = sum(sizes.values())
    if total == 0:
        return dict.fromkeys(sizes, 0)
    if isinstance(wanted, int):
        target = min(wanted, total)
    else:
        target = min(total, max(1, math.floor(wanted * total + 0.5)))
    quotas = {name: target * n / total for name, n in sizes.items()}
    shares = {name: math.floor(q) for name, q in quotas.items()}
    left = target - sum(shares.values())
    by_remainder = sorted(sizes, key=lambda name: (shares[name] - quotas[name], name))
    for name in by_remainder[:left]:
        shares[name] += 1
    return shares


def select_items(
    items: Sequence[EnvironmentItem], wanted: ItemsWanted, seed: int
) -> list[EnvironmentItem]:
    """The seeded sample of items to re-judge, in key order."""
    strata: dict[str, list[EnvironmentItem]] = {}
    for item in items:
        strata.setdefault(stratum(item), []).append(item)
    counts = allocate({name: len(members) for name, members in strata.items()}, wanted)
    chosen: list[EnvironmentItem] = []
    for name, members in sorted(strata.items()):
        members = sorted(members, key=lambda item: item.key)
        chosen.extend(random.Random(f"{seed}/judge_repeats/{name}").sample(members, counts[name]))
    return sorted(chosen, key=lambda item: item.key)


def distinct_judges(
    panel: Sequence[ModelEndpoint], names: Iterable[str]
) -> list[tuple[int, ModelEndpoint]]:
    """(first panel seat, endpoint) of each named judge, one per distinct served endpoint."""
    wanted = set(names)
    seen: set[str] = set()
    judges = []
    for position, endpoint in enumerate(panel):
        identity = canonical_json(
            [
                _served_at(endpoint),
                endpoint.model,
                endpoint.generation_params(),
                endpoint.structured_output,
            ]
        )
        if endpoint.name in wanted and identity not in seen:
            seen.add(identity)
            judges.append((position, endpoint))
    return judges


def _served_at(endpoint: ModelEndpoint) -> str:
    try:
        return endpoint.resolved_base_url
    except RegistryError:  # no location yet (a managed local model): its name stands for it
        return f"{endpoint.provider}:{endpoint.name}"


def repeat_calls(
    judges: int, items_with_answers: Iterable[tuple[EnvironmentItem, Answer]], repeats: int
) -> int:
    """First-attempt calls ``judge_repeats`` makes (a retry for an unreadable output is extra)."""
    per_answer = sum(
        len(active_rubrics(item.environment)) for item, answer in items_with_answers if answer.ok
    )
    return judges * per_answer * repeats


async def judge_repeats(
    completer: Completer,
    judges: Sequence[tuple[int, ModelEndpoint]],
    items_with_answers: Iterable[tuple[EnvironmentItem, Answer]],
    repeats: int,
) -> list[RepeatVerdictRecord]:
    """Every repeat call's verdicts, in input order (answer, judge, rubric, repeat). Failed or
    empty answers are skipped, as the panel skips them."""
    jobs = []
    labels = []
    for item, answer in items_with_answers:
        if not answer.ok:
            continue
        for position, judge in judges:
            for rubric in active_rubrics(item.environment):
                for repeat in range(1, repeats + 1):
                    labels.append(repeat)
                    jobs.append(
                        judge_one(completer, judge, position, item, answer, rubric, None, repeat)
                    )
    records = await gather_or_cancel(jobs)
    return [
        RepeatVerdictRecord(**record.model_dump(), repeat=repeat)
        for record, repeat in zip(records, labels, strict=True)
    ]
