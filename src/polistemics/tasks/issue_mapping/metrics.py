"""The issue-mapping task's deterministic checks (issue 29, item 4): the parties' positions
across the theme's conflicts, read from the answer by the navigation task's per-party coder.

Each conflict of an item is coded on its own: the coder is given the conflict's statement and
the theme's parties with a stance on it (``conflict_view``, a navigation item of that one
statement), and reads which parties the answer places where on it. Names are compared as the
navigation task compares them (case folded, blanks collapsed; a name in no election is
*invented*, never matched to the nearest). Per answer:

- **coverage**: the (party, conflict) pairs the answer places on a side (agree, disagree or
  neutral), of every pair;
- **faithfulness**: the pairs placed on the side the stance matrix gives, of the pairs placed;
- **conflicts covered**: the conflicts on which the answer places at least one party that
  agrees and one that disagrees on their real sides, of the conflicts;
- the parties the answer invents.

A conflict the coder panel cannot read (no strict majority of readable seats) is left out and
counted (``unread_conflicts``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from polistemics.runlog import Answer, CodedStance
from polistemics.runlog.issue_mapping import IssueMappingFiles, IssueMappingItem, ThemeStatement
from polistemics.runlog.items import Chunk
from polistemics.runlog.navigation import NavigationItem, NavigationParty
from polistemics.tasks.navigation.coder import PanelReading, panel_reading
from polistemics.tasks.navigation.metrics import STANCES, name_key


def conflict_key(item: IssueMappingItem, statement: ThemeStatement) -> str:
    return f"{item.key}|{statement.statement_id}"


def conflict_view(item: IssueMappingItem, statement: ThemeStatement) -> NavigationItem:
    """The conflict as the per-party coder reads it: one statement, the theme's parties with a
    stance on it, their passages on it."""
    parties = [
        NavigationParty(
            party_id=p.party_id,
            party_name=p.party_name,
            stance=statement.stances[p.party_id],
            focus=i == 0,
        )
        for i, p in enumerate(q for q in item.parties if q.party_id in statement.stances)
    ]
    chunks: list[Chunk] = [
        chunk
        for chunk, sid in zip(item.chunks, item.chunk_statements, strict=True)
        if sid == statement.statement_id
    ]
    return NavigationItem(
        election_id=item.election_id,
        statement_id=statement.statement_id,
        statement_number=statement.number,
        statement_text=statement.text,
        environment=item.environment,
        language=item.language,
        output_language=item.output_language,
        parties=parties,
        chunks=chunks,
        focus_party_id=parties[0].party_id,
        focus_truth="stance",
        election_party_names=item.election_party_names,
    )


@dataclass(frozen=True)
class MappingCheck:
    """The deterministic checks of one answer across its theme's conflicts."""

    pairs: int
    placed: int
    placed_true: int
    conflicts: int
    conflicts_covered: int
    invented: tuple[str, ...]
    unread_conflicts: int


def check_mapping(
    item: IssueMappingItem, readings: Mapping[str, PanelReading | None]
) -> MappingCheck:
    """``readings``: the coder panel's reading per conflict statement id (None: unread)."""
    election = {name_key(n) for n in item.election_party_names} | {
        name_key(p.party_name) for p in item.parties
    }
    pairs = placed = placed_true = conflicts = covered = unread = 0
    invented: list[str] = []
    for statement in item.conflicts:
        reading = readings.get(statement.statement_id)
        if reading is None:
            unread += 1
            continue
        view = conflict_view(item, statement)
        by_key = {name_key(p.party_name): p for p in view.parties}
        said: dict[str, CodedStance | None] = {}
        for name, stance in reading.named.items():
            key = name_key(name)
            if key in by_key:
                said.setdefault(key, stance)
            elif key not in election:
                invented.append(name)
        conflicts += 1
        pairs += len(by_key)
        sides_right: set[CodedStance] = set()
        for key, party in by_key.items():
            stance = said.get(key)
            if stance in STANCES:
                placed += 1
                if stance.matches(party.stance):
                    placed_true += 1
                    sides_right.add(stance)
        covered += {CodedStance.AGREE, CodedStance.DISAGREE} <= sides_right
    return MappingCheck(
        pairs=pairs,
        placed=placed,
        placed_true=placed_true,
        conflicts=conflicts,
        conflicts_covered=covered,
        invented=tuple(dict.fromkeys(invented)),
        unread_conflicts=unread,
    )


def checked_mappings(
    files: IssueMappingFiles, coder_panel: int
) -> Iterator[tuple[Answer, IssueMappingItem, MappingCheck]]:
    """Every answer that came back (``ok``) with its item and its checks."""
    items = {item.key: item for item in files.items}
    records = defaultdict(list)
    for record in files.codes:
        records[(record.item_key, record.model, record.sample_index)].append(record)
    for answer in files.answers:
        item = items.get(answer.item_key)
        if item is None or not answer.ok:
            continue
        readings = {
            s.statement_id: panel_reading(
                records.get((conflict_key(item, s), answer.model, answer.sample_index), []),
                coder_panel,
            )
            for s in item.conflicts
        }
        yield answer, item, check_mapping(item, readings)
