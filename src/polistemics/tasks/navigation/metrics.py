"""The navigation task's deterministic checks against the stance matrix (issue 29, item 2).

Each answer is read through the coder panel's majority (``coder.panel_reading``): the parties it
names and the stance it gives each. Names are compared exactly, after case folding and collapsing
blanks (``name_key``); a name that is none of the election's parties is *invented*, never matched
to the nearest name. From there, per answer:

- per stance (agree, disagree, neutral): the parties the answer places there against those the
  stance matrix places there (the focus party's expected reading in an inconclusive environment
  is no_position or both, so it belongs to no stance's true set); an invented party placed on a
  side is a false positive of that side;
- the query's parties the answer omits, and the parties it invents (or names from the election
  outside the query);
- how it handles the focus party: flagged as undetermined, flagged as conflicting, placed on its
  real side, placed on another side, omitted, or unread (no coder majority).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from polistemics.runlog import Answer, CodedStance
from polistemics.runlog.navigation import NavigationFiles, NavigationItem
from polistemics.tasks.party_coder import PanelReading, name_key, panel_reading

STANCES = (CodedStance.AGREE, CodedStance.DISAGREE, CodedStance.NEUTRAL)
FOCUS_OUTCOMES = (
    "flagged_undetermined",
    "flagged_conflict",
    "placed_true",
    "placed_other",
    "omitted",
    "unread",
)


@dataclass(frozen=True)
class AnswerCheck:
    """The deterministic checks of one answer."""

    tp: Mapping[CodedStance, int]
    fp: Mapping[CodedStance, int]
    fn: Mapping[CodedStance, int]
    query_parties: int
    omitted: tuple[str, ...]
    invented: tuple[str, ...]
    outside_query: tuple[str, ...]  # election parties the question did not ask about
    focus_outcome: str
    conclusive: bool = True  # the focus party's stance is in the context (Baseline, Noisy)

    @property
    def focus_handled(self) -> bool:
        """The focus party read as a faithful, calibrated answer reads it."""
        return self.focus_outcome in _HANDLED[self.conclusive]


_HANDLED = {
    True: frozenset({"placed_true"}),
    False: frozenset({"flagged_undetermined", "flagged_conflict"}),
}


def check_answer(item: NavigationItem, reading: PanelReading) -> AnswerCheck:
    by_key = {name_key(p.party_name): p for p in item.parties}
    election = {name_key(name) for name in item.election_party_names} | set(by_key)
    placed: dict[str, CodedStance | None] = {}
    invented: list[str] = []
    outside: list[str] = []
    invented_placed: list[CodedStance | None] = []
    for name, stance in reading.named.items():
        key = name_key(name)
        if key in by_key:
            placed.setdefault(key, stance)
        elif key in election:
            outside.append(name)
        else:
            invented.append(name)
            invented_placed.append(stance)
    tp = dict.fromkeys(STANCES, 0)
    fp = dict.fromkeys(STANCES, 0)
    fn = dict.fromkeys(STANCES, 0)
    for key, party in by_key.items():
        expected = item.expected(party)
        got = placed.get(key)
        for stance in STANCES:
            truth, said = expected is stance, got is stance
            tp[stance] += truth and said
            fp[stance] += said and not truth
            fn[stance] += truth and not said
    for stance in invented_placed:
        if stance in fp:
            fp[stance] += 1
    omitted = tuple(p.party_name for key, p in by_key.items() if key not in placed)
    return AnswerCheck(
        tp=tp,
        fp=fp,
        fn=fn,
        query_parties=len(by_key),
        omitted=omitted,
        invented=tuple(invented),
        outside_query=tuple(outside),
        focus_outcome=focus_outcome(item, placed),
        conclusive=item.focus_truth == "stance",
    )


def focus_outcome(item: NavigationItem, placed: Mapping[str, CodedStance | None]) -> str:
    focus = item.focus
    key = name_key(focus.party_name)
    if key not in placed:
        return "omitted"
    stance = placed[key]
    if stance is None:
        return "unread"
    if stance is CodedStance.NO_POSITION:
        return "flagged_undetermined"
    if stance is CodedStance.BOTH:
        return "flagged_conflict"
    return "placed_true" if stance.matches(focus.stance) else "placed_other"


def f1(tp: int, fp: int, fn: int) -> float:
    """2TP / (2TP + FP + FN); NaN when there is nothing to score."""
    denominator = 2 * tp + fp + fn
    return 2 * tp / denominator if denominator else float("nan")


def pooled(checks: Iterable[AnswerCheck], stance: CodedStance) -> tuple[int, int, int]:
    tp = fp = fn = 0
    for check in checks:
        tp, fp, fn = tp + check.tp[stance], fp + check.fp[stance], fn + check.fn[stance]
    return tp, fp, fn


def checked_answers(
    files: NavigationFiles, coder_panel: int
) -> Iterator[tuple[Answer, NavigationItem, AnswerCheck | None]]:
    """Every answer that came back (``ok``) with its item and its checks; None for an answer
    the coder panel could not read (no strict majority of readable seats)."""
    items = {item.key: item for item in files.items}
    records = defaultdict(list)
    for record in files.codes:
        records[(record.item_key, record.model, record.sample_index)].append(record)
    for answer in files.answers:
        item = items.get(answer.item_key)
        if item is None or not answer.ok:
            continue
        reading = panel_reading(
            records.get((answer.item_key, answer.model, answer.sample_index), []), coder_panel
        )
        yield answer, item, (None if reading is None else check_answer(item, reading))
