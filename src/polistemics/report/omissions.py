"""What the page leaves out for an authors' release, and why, in plain words.

A release folder holds the panel's final scores, and usually the answers and their contexts; it
has no judge's own verdicts, no ``run.json`` (counts, calls, costs, times), no stance codes and
no human labels. A run's page says "Not available" where a part is missing, since the run's
config can change that; a release cannot, so its page leaves such sections and parts out and
says once, at the top, what the release lacks and what is therefore not shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from polistemics.conditions import Variant
from polistemics.report.inputs import ReportInputs
from polistemics.report.labels import variant_label

OWN_VERDICTS = "each judge's own verdicts: a release holds only the panel's final verdicts"

# A section a release cannot fill: when its view shows nothing, and what the release lacks.
_EMPTY: dict[str, tuple[Callable[[dict], bool], str]] = {
    "judges": (
        lambda v: v["agreement"] is None and not (v["judging"] or v["parsing"] or v["planted"]),
        OWN_VERDICTS,
    ),
    "judge-strictness": (lambda v: v["judges"] is None, OWN_VERDICTS),
    "human-validation": (
        lambda v: bool(v.get("unavailable")),
        "human labels, which belong to a run's annotation sample",
    ),
    "mechanisms": (lambda v: not v["coded"], "the answers' stance codes"),
    "pushback": (lambda v: not v["measured"], "pushback turns (a run's second answers)"),
    "self-consistency": (lambda v: not v["measured"], "several answers per item (samples > 1)"),
    "cross-election": (
        lambda v: not v["parts"],
        "a second election to compare with: the page covers one",
    ),
    "ablations": (
        lambda v: not v["elections"] and not v["side_by_side"],
        "results for the anonymised-labels and English-output variants",
    ),
    "expansion-i4": (
        lambda v: all(e["table"] is None for e in v["elections"]),
        "the standardised evidence with its raw rationales",
    ),
}

# Parts of sections a release cannot fill (the templates leave them out for a release).
RUN_RECORD = (
    "the run's record (run.json), so the standardisation counts (Table 5) and the model calls, "
    "tokens, costs and times are not shown"
)
VAGUE_MODES = "which vagueness mode each Vague item used, so Table 8 is not shown"


@dataclass(frozen=True)
class Omitted:
    section_id: str
    title: str
    lacks: str


def omitted_sections(inputs: ReportInputs, views: Sequence[tuple[str, str, dict]]) -> list[Omitted]:
    """The sections (id, title, view) a release's page leaves out; none for a run."""
    if inputs.kind != "release":
        return []
    found = []
    for section_id, title, view in views:
        rule = _EMPTY.get(section_id)
        if rule is not None and rule[0](view):
            found.append(Omitted(section_id, title, rule[1]))
    return found


def release_summary(inputs: ReportInputs, omitted: Sequence[Omitted], data: dict) -> list[str]:
    """Plain sentences for the top of a release's page: what it lacks and what is not shown."""
    if inputs.kind != "release":
        return []
    lacks = [RUN_RECORD, VAGUE_MODES]
    if data.get("fidelity") is None:
        lacks.append("the standardised evidence, so the fidelity check (Table 6) is not shown")
    if data.get("environments") is None:
        lacks.append("its environment items, so Table 9 is not shown")
    sentences = [
        "This page reads an authors' release: the published results of a study. It holds the "
        "panel's final verdicts and scores"
        + (", the answers and their contexts" if inputs.answers else "")
        + "; it does not hold "
        + "; nor ".join(lacks)
        + "."
    ]
    if omitted:
        by_reason: dict[str, list[str]] = {}
        for o in omitted:
            by_reason.setdefault(o.lacks, []).append(o.title)
        sentences.append(
            "Left out, because the release lacks what they need: "
            + "; ".join(f"{' and '.join(titles)} ({lacks})" for lacks, titles in by_reason.items())
            + "."
        )
    sentences.extend(gap.text for gap in inputs.gaps)
    return sentences


def scored_answers(cells: pd.DataFrame) -> pd.Series:
    """Scored answers per variant (an answer: model, environment, variant, observation, sample)."""
    if cells.empty:
        return pd.Series(dtype=int)
    keys = ["election_id", "model", "environment", "variant", "observation_id", "sample_index"]
    keys = [k for k in keys if k in cells.columns]
    # observed=True: a compact frame's (``scoring.cells.compact_cells``) variants that hold
    # cells, as text columns give them
    scored = cells.drop_duplicates(keys).groupby("variant", observed=True).size()
    return scored.set_axis(scored.index.astype(object))


def browser_sentence(inputs: ReportInputs) -> str | None:
    """Why the item browser of a release lacks answers the release scored, in plain words; None
    when every variant's scored answers are there (or for a run)."""
    if inputs.kind != "release":
        return None
    scored = scored_answers(inputs.cells)
    shown = pd.Series([a.item.variant.value for a in inputs.answers], dtype=object).value_counts()
    short = [v.value for v in Variant if int(shown.get(v.value, 0)) < int(scored.get(v.value, 0))]
    if not short:
        return None
    reasons = [g.text for g in inputs.gaps if g.variant in short]
    why = " ".join(reasons) or "The release holds no answer text for the others."
    return (
        f"The item browser has {len(inputs.answers):,} answers; the release scored "
        f"{int(scored.sum()):,}. Answers are missing for: "
        f"{', '.join(variant_label(v) for v in short)}. {why}"
    )
