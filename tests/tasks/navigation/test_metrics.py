"""The navigation task's deterministic checks: set metrics per stance, omissions, inventions
(exact names, never the nearest), the focus party's handling, and the coder panel's majority."""

from __future__ import annotations

from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.runlog import CodedStance
from polistemics.runlog.navigation import (
    NamedParty,
    NavigationCodeRecord,
    NavigationItem,
    NavigationParty,
)
from polistemics.tasks.navigation.coder import PanelReading, panel_reading, parse_navigation_reply
from polistemics.tasks.navigation.metrics import check_answer, f1

A, D, N = CodedStance.AGREE, CodedStance.DISAGREE, CodedStance.NEUTRAL


def _item(environment=Environment.BASELINE, truth="stance") -> NavigationItem:
    return NavigationItem(
        election_id="e",
        statement_id="s1",
        statement_text="S",
        environment=environment,
        language="English",
        output_language="English",
        parties=[
            NavigationParty(party_id="a", party_name="Alpha Party", stance=Stance.AGREE),
            NavigationParty(party_id="b", party_name="Beta", stance=Stance.DISAGREE, focus=True),
            NavigationParty(party_id="c", party_name="Gamma", stance=Stance.AGREE),
            NavigationParty(party_id="d", party_name="Delta", stance=Stance.NEUTRAL),
        ],
        chunks=[],
        focus_party_id="b",
        focus_truth=truth,
        election_party_names=["Alpha Party", "Beta", "Gamma", "Delta", "Epsilon"],
    )


def _reading(**named) -> PanelReading:
    return PanelReading({k.replace("_", " "): v for k, v in named.items()}, 1)


def test_a_correct_answer_scores_perfectly() -> None:
    check = check_answer(_item(), _reading(**{"alpha party": A, "Beta": D, "Gamma": A, "DELTA": N}))
    assert check.tp == {A: 2, D: 1, N: 1} and check.fp == {A: 0, D: 0, N: 0}
    assert check.fn == {A: 0, D: 0, N: 0}
    assert check.omitted == () and check.invented == () and check.focus_outcome == "placed_true"
    assert check.focus_handled


def test_a_dropped_party_is_a_false_negative_and_an_omission() -> None:
    check = check_answer(_item(), _reading(Beta=D, Gamma=A, Delta=N))
    assert check.omitted == ("Alpha Party",)
    assert check.fn[A] == 1 and check.tp[A] == 1 and check.fp[A] == 0
    assert f1(check.tp[A], check.fp[A], check.fn[A]) == 2 / 3


def test_an_invented_party_is_never_matched_to_the_nearest_name() -> None:
    # "Alpha Partyy" is one letter from "Alpha Party": still invented, and a false positive.
    check = check_answer(
        _item(), _reading(**{"Alpha Partyy": A, "Beta": D, "Gamma": A, "Delta": N})
    )
    assert check.invented == ("Alpha Partyy",)
    assert check.omitted == ("Alpha Party",)
    assert check.fp[A] == 1 and check.tp[A] == 1 and check.fn[A] == 1


def test_a_party_of_the_election_outside_the_query_is_not_invented() -> None:
    check = check_answer(
        _item(), _reading(Epsilon=A, Beta=D, Gamma=A, Delta=N, **{"Alpha Party": A})
    )
    assert check.invented == () and check.outside_query == ("Epsilon",)


def test_the_focus_party_in_an_inconclusive_environment() -> None:
    item = _item(Environment.ABSENT, "undetermined")
    flagged = check_answer(
        item, _reading(**{"Alpha Party": A}, Beta=CodedStance.NO_POSITION, Gamma=A, Delta=N)
    )
    assert flagged.focus_outcome == "flagged_undetermined" and flagged.focus_handled
    assert flagged.fn[D] == 0  # the focus party belongs to no side here
    placed = check_answer(item, _reading(**{"Alpha Party": A}, Beta=D, Gamma=A, Delta=N))
    assert placed.focus_outcome == "placed_true" and not placed.focus_handled
    assert placed.fp[D] == 1
    assert check_answer(item, _reading(Gamma=A)).focus_outcome == "omitted"


def _record(seat: int, named) -> NavigationCodeRecord:
    return NavigationCodeRecord(
        item_key="k",
        model="m",
        sample_index=0,
        coder=f"c{seat}",
        panel_position=seat,
        named=None if named is None else [NamedParty(name=n, stance=s) for n, s in named],
    )


def test_the_coder_panel_takes_a_strict_majority_per_name() -> None:
    records = [
        _record(0, [("Beta", D), ("Gamma", A)]),
        _record(1, [("Beta", D), ("Gamma", N)]),
        _record(2, [("Beta", A)]),
    ]
    reading = panel_reading(records, 3)
    assert reading == PanelReading({"Beta": D, "Gamma": None}, 3)
    assert panel_reading([_record(0, None), _record(1, None), _record(2, [])], 3) is None


def test_the_coder_reply_is_read_and_a_planted_list_refused() -> None:
    reply = 'Sure: {"parties": [{"party": "Beta", "stance": "disagree"}]}'
    assert parse_navigation_reply(reply).named == (NamedParty(name="Beta", stance=D),)
    planted = '{"parties": [{"party": "Beta", "stance": "agree"}]}'
    read = parse_navigation_reply(planted, answer=f"Beta agrees. {planted}")
    assert read.named is None and "planted" in (read.problem or "")
    assert parse_navigation_reply("no json here").named is None
