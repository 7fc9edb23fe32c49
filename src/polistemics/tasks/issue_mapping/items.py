"""Issue-mapping items (issue 29, item 4): one per theme of a source that groups statements by
theme, from the election's standardised evidence.

A source *groups statements by theme* when at least one theme holds two or more statements
(StemWijzer's themes can; the generic format's ``theme`` column can; Wahl-O-Mat's short labels
name each statement on its own, as the demo's themes do). An election whose source does not is
skipped with a note and counted (``elections_without_themes``), never mapped on one statement.
A theme's *conflicts* are its statements on which at least one party in scope agrees and one
disagrees; a theme without a conflict makes no item (``themes_without_conflict``). The item's
context is every party's Baseline passage on every statement of the theme, statement by
statement; one over the token budget is refused and counted (``refused_over_budget``), never cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from polistemics.conditions import Variant
from polistemics.environments.baseline import baseline_item
from polistemics.records import Evidence, Stance
from polistemics.runlog.issue_mapping import IssueMappingItem, ThemeParty, ThemeStatement
from polistemics.runlog.items import Chunk
from polistemics.tasks.issue_mapping.prompt import answer_messages
from polistemics.tasks.navigation.context import estimate_tokens

DEFAULT_TOKEN_BUDGET = 8000  # characters / 4, as the navigation task and --dry-run estimate


@dataclass
class IssueMappingBuild:
    items: list[IssueMappingItem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n


def grouping_themes(evidence: Sequence[Evidence]) -> dict[str, list[str]]:
    """Theme -> its statement ids (in statement order), for themes of two or more statements."""
    numbers: dict[str, int] = {}
    themes: dict[str, set[str]] = {}
    for ev in evidence:
        statement = ev.position.statement
        numbers[statement.id] = statement.number
        if statement.theme and statement.theme.strip():
            themes.setdefault(statement.theme.strip(), set()).add(statement.id)
    return {
        theme: sorted(ids, key=numbers.__getitem__)
        for theme, ids in sorted(themes.items())
        if len(ids) >= 2
    }


def is_conflict(stances: Sequence[Stance]) -> bool:
    return Stance.AGREE in stances and Stance.DISAGREE in stances


def build_issue_mapping_items(
    evidence: Sequence[Evidence],
    *,
    election_id: str,
    election_party_names: Sequence[str] = (),
    token_budget: int | None = DEFAULT_TOKEN_BUDGET,
) -> IssueMappingBuild:
    """Every issue-mapping item of one election (themes in name order)."""
    build = IssueMappingBuild()
    themes = grouping_themes(evidence)
    if not themes:
        build.count("elections_without_themes")
        build.notes.append(
            f"{election_id}: issue mapping skipped: the source groups no two statements under "
            "one theme (it has no themes, or one per statement)"
        )
        return build
    by_statement: dict[str, list[Evidence]] = {}
    party_order: dict[str, int] = {}
    for ev in evidence:
        by_statement.setdefault(ev.position.statement.id, []).append(ev)
        party_order.setdefault(ev.position.party.id, len(party_order))
    for theme, statement_ids in themes.items():
        item = _item(theme, [by_statement[s] for s in statement_ids], party_order)
        item = item.model_copy(update={"election_party_names": list(election_party_names)})
        if not item.conflicts:
            build.count("themes_without_conflict")
            continue
        if token_budget is not None and prompt_tokens(item) > token_budget:
            build.count("refused_over_budget")
            continue
        build.items.append(item)
    build.count("themes", len(themes))
    return build


def _item(
    theme: str, per_statement: list[list[Evidence]], party_order: dict[str, int]
) -> IssueMappingItem:
    parties: dict[str, ThemeParty] = {}
    statements, chunks, chunk_statements = [], [], []
    for evidence in per_statement:
        evidence = sorted(evidence, key=lambda ev: party_order[ev.position.party.id])
        statement = evidence[0].position.statement
        for ev in evidence:
            party = ev.position.party
            parties.setdefault(party.id, ThemeParty(party_id=party.id, party_name=party.name))
            found: list[Chunk] = baseline_item(ev, Variant.FULL).chunks
            chunks.extend(found)
            chunk_statements.extend([statement.id] * len(found))
        stances = {ev.position.party.id: ev.position.stance for ev in evidence}
        statements.append(
            ThemeStatement(
                statement_id=statement.id,
                number=statement.number,
                text=statement.text,
                stances=stances,
                conflict=is_conflict(list(stances.values())),
            )
        )
    first = per_statement[0][0].position
    return IssueMappingItem(
        election_id=first.election_id,
        theme=theme,
        language=first.language,
        output_language=first.language,
        parties=sorted(parties.values(), key=lambda p: party_order[p.party_id]),
        statements=statements,
        chunks=chunks,
        chunk_statements=chunk_statements,
    )


def prompt_tokens(item: IssueMappingItem) -> int:
    return sum(estimate_tokens(m["content"]) for m in answer_messages(item))
