from polistemics.coding.records import majority_codes
from polistemics.records import Stance
from polistemics.runlog import CodedStance, ProbeAnswer, StanceCodeRecord


def _seat(position: int, stance: CodedStance | None, outside: bool | None = None, **kw):
    fields = dict(kind="answer", subject_key="o1|baseline|full", model="m", sample_index=0)
    fields.update(kw)
    return StanceCodeRecord(
        **fields,
        coder="c",
        panel_position=position,
        stance=stance,
        outside_knowledge=outside,
        missing=None if stance else "unreadable",
    )


def test_committed_stances_match_only_their_vaa_stance():
    assert CodedStance.AGREE.matches(Stance.AGREE)
    assert not CodedStance.AGREE.matches(Stance.DISAGREE)
    assert CodedStance.NEUTRAL.committed is Stance.NEUTRAL
    assert CodedStance.BOTH.committed is None
    assert not CodedStance.NO_POSITION.matches(Stance.NEUTRAL)


def test_majority_needs_more_than_half_of_all_seats():
    two_of_three = [
        _seat(0, CodedStance.AGREE, True),
        _seat(1, CodedStance.AGREE, False),
        _seat(2, CodedStance.BOTH, False),
    ]
    (code,) = majority_codes(two_of_three)
    assert code.stance is CodedStance.AGREE
    assert code.outside_knowledge is False
    assert (code.seats, code.missing_seats) == (3, 0)

    one_readable = [_seat(0, CodedStance.AGREE), _seat(1, None), _seat(2, None)]
    (code,) = majority_codes(one_readable)
    assert code.stance is None and code.missing_seats == 2

    split = [_seat(0, CodedStance.AGREE), _seat(1, CodedStance.DISAGREE)]
    assert majority_codes(split)[0].stance is None


def test_subjects_are_kept_apart_by_model_and_sample():
    records = [
        _seat(0, CodedStance.AGREE),
        _seat(0, CodedStance.DISAGREE, model="other"),
        _seat(0, CodedStance.NEUTRAL, sample_index=1),
    ]
    codes = {(c.model, c.sample_index): c.stance for c in majority_codes(records)}
    assert codes == {
        ("m", 0): CodedStance.AGREE,
        ("other", 0): CodedStance.DISAGREE,
        ("m", 1): CodedStance.NEUTRAL,
    }


def test_probe_key_names_election_party_and_statement():
    probe = ProbeAnswer(
        election_id="de",
        party_id="p1",
        statement_id="s3",
        model="m",
        language="German",
        status="ok",
        text="  ",
    )
    assert probe.key == "prior|de|p1|s3"
    assert not probe.ok
