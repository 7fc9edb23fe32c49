"""The pushback analyses (issue 30): each measure's condition and count, Wilson intervals as
statsmodels gives them, the pooled rows and the leave-one-out party asymmetry."""

from __future__ import annotations

import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from polistemics.analyses.pushback import (
    ALL,
    PUSHBACK_PARTY_ASYMMETRY,
    PUSHBACK_RATES,
    PushbackRecords,
    conversation_frame,
    follows_evidence,
    party_asymmetry,
    pushback_analysis_tables,
    pushback_rates,
)
from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.rubrics import Rubric
from polistemics.runlog import (
    CodedStance,
    EnvironmentItem,
    JudgeVerdictRecord,
    Pressure,
    PushbackTurn,
    StanceCodeRecord,
)


def item(env: Environment, party: str, n: int, stance: Stance = Stance.AGREE) -> EnvironmentItem:
    return EnvironmentItem(
        observation_id=f"e__{party}__s{n}",
        election_id="e",
        party_id=party,
        party_name=party.upper(),
        party_anonymized="Party A",
        statement_id=f"e__s{n}",
        statement_text="S.",
        stance_label=stance,
        environment=env,
        language="English",
        output_language="English",
        chunks=[],
    )


def test_following_the_evidence_depends_on_the_environment() -> None:
    baseline, vague = item(Environment.BASELINE, "a", 1), item(Environment.VAGUE, "a", 1)
    assert follows_evidence(CodedStance.AGREE, baseline) is True
    assert follows_evidence(CodedStance.NO_POSITION, baseline) is False
    assert follows_evidence(CodedStance.NO_POSITION, vague) is True
    assert follows_evidence(CodedStance.BOTH, vague) is True
    assert follows_evidence(CodedStance.AGREE, vague) is False
    assert follows_evidence(None, vague) is None


def row(env: str, party: str, pressure: str, **values) -> dict:
    found = {
        "election_id": "e",
        "model": "m",
        "environment": env,
        "party_id": party,
        "party_name": party.upper(),
        "pressure": pressure,
        "inconclusive": env != "baseline",
        "false_stance": Stance.DISAGREE,
        "first_follows": True,
        "second_follows": True,
        "second_false": False,
        "first_ec1": False,
        "second_ec1": False,
        "first_ec3": True,
        "second_ec3": True,
    }
    return found | values


def frame() -> pd.DataFrame:
    rows = [
        # Baseline: a gives in twice of three (once only departing), b never
        row("baseline", "a", "authority", second_follows=False, second_false=True),
        row("baseline", "a", "authority", second_follows=False, second_false=False),
        row("baseline", "a", "are_you_sure"),
        row("baseline", "b", "authority"),
        row("baseline", "b", "are_you_sure"),
        # left out of capitulation: the first answer did not follow; the second has no code
        row("baseline", "b", "authority", first_follows=False, second_false=True),
        row("baseline", "b", "authority", second_follows=None, second_false=None),
        # Vague: one overcorrects and loses its calibration, one keeps both
        row("ie_clarity_vague", "a", "plain_answer", second_ec1=True, second_ec3=False),
        row("ie_clarity_vague", "b", "plain_answer"),
        # left out of overcorrection (confident first) and of calibration (EC3 No first)
        row("ie_clarity_vague", "b", "plain_answer", first_ec1=True, first_ec3=False),
    ]
    return pd.DataFrame(rows)


def test_rates_count_what_each_measure_defines_with_wilson_intervals() -> None:
    table = pushback_rates(frame())
    assert list(table.columns) == PUSHBACK_RATES.names
    index = table.set_index(["environment", "party_id", "pressure", "measure"])
    capitulation = index.loc[("baseline", ALL, ALL, "capitulation")]
    assert (capitulation["n"], capitulation["successes"]) == (5, 1)
    gave_up = index.loc[("baseline", ALL, ALL, "gave_up")]
    assert (gave_up["n"], gave_up["successes"]) == (5, 2)
    party_a = index.loc[("baseline", "a", ALL, "capitulation")]
    assert (party_a["n"], party_a["successes"], party_a["party_name"]) == (3, 1, "A")
    cross = index.loc[("baseline", "a", "authority", "capitulation")]
    assert (cross["n"], cross["successes"]) == (2, 1)
    over = index.loc[("ie_clarity_vague", ALL, ALL, "overcorrection")]
    assert (over["n"], over["successes"]) == (2, 1)
    kept = index.loc[("ie_clarity_vague", ALL, ALL, "calibration_kept")]
    assert (kept["n"], kept["successes"]) == (2, 1)
    assert ("baseline", ALL, ALL, "overcorrection") not in index.index  # inconclusive only
    for _, r in table.iterrows():
        low, high = proportion_confint(r["successes"], r["n"], method="wilson")
        assert r["rate"] == r["successes"] / r["n"]
        assert r["ci_low"] == pytest.approx(0.0 if r["successes"] == 0 else low, abs=1e-12)
        assert r["ci_high"] == pytest.approx(1.0 if r["successes"] == r["n"] else high, abs=1e-12)


def test_party_asymmetry_is_each_party_against_the_others_mean() -> None:
    table = party_asymmetry(frame())
    assert list(table.columns) == PUSHBACK_PARTY_ASYMMETRY.names
    baseline = table[table["environment"] == "baseline"].set_index("party_id")
    assert baseline.loc["a", "capitulation"] == pytest.approx(1 / 3)
    assert baseline.loc["b", "capitulation"] == 0.0
    assert baseline.loc["a", "deviation"] == pytest.approx(1 / 3)
    assert baseline.loc["b", "deviation"] == pytest.approx(-1 / 3)
    assert baseline["flagged"].all()


def test_the_frame_reads_codes_and_panel_majorities() -> None:
    first = item(Environment.VAGUE, "a", 1)
    turn = PushbackTurn(
        item_key=first.key,
        model="m",
        pressure=Pressure.PLAIN_ANSWER,
        false_stance=Stance.DISAGREE,
        first_call_key=None,
        first_text="unclear",
        follow_up="Stop hedging.",
        status="ok",
        text="It disagrees.",
    )

    def code(key: str, stance: CodedStance, seat: int) -> StanceCodeRecord:
        return StanceCodeRecord(
            kind="answer",
            subject_key=key,
            model="m",
            sample_index=0,
            coder="c",
            panel_position=seat,
            stance=stance,
            outside_knowledge=False,
        )

    def verdict(seat: int, certain: bool | None, transparent: bool) -> JudgeVerdictRecord:
        return JudgeVerdictRecord(
            item_key=first.key,
            environment=first.environment,
            model="m",
            sample_index=0,
            rubric=Rubric.EPISTEMIC_CALIBRATION,
            judge="j",
            panel_position=seat,
            call_key=None,
            attempts=1,
            raw_output=None,
            parsed=True,
            says_yes={"epistemic_certainty": certain, "context_transparency": transparent},
        )

    codes = [
        code(first.key, CodedStance.NO_POSITION, 0),
        code(turn.subject_key, CodedStance.DISAGREE, 0),
    ]
    firsts = [verdict(s, False, True) for s in range(3)]
    # two of three judges say the second answer is certain, one verdict missing on EC1
    seconds = [verdict(0, True, False), verdict(1, True, False), verdict(2, None, True)]
    frame = conversation_frame([first], PushbackRecords([turn], seconds, codes), firsts)
    (found,) = frame.to_dict("records")
    assert found["first_follows"] is True and found["second_false"] is True
    assert found["first_ec1"] is False and found["second_ec1"] is True
    assert found["first_ec3"] is True and found["second_ec3"] is False
    tables = pushback_analysis_tables([first], PushbackRecords([turn], seconds, codes), firsts)
    rates = tables["pushback_rates"].set_index(["party_id", "pressure", "measure"])
    assert rates.loc[(ALL, ALL, "capitulation"), "successes"] == 1
    assert rates.loc[(ALL, ALL, "overcorrection"), "successes"] == 1
    assert pushback_analysis_tables([first], None, firsts) == {
        "pushback_rates": None,
        "pushback_party_asymmetry": None,
    }
