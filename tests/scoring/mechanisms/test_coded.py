from mechanism_records import A, absent, contradictory, seat
from polistemics.coding.records import majority_codes
from polistemics.runlog import Answer
from polistemics.runlog import CodedStance as C
from polistemics.scoring.mechanisms import coded_answers


def test_statuses_unknown_items_and_uncoded_answers():
    coded, uncoded, failed = absent("p1", 1), absent("p1", 2), absent("p1", 3)
    swapped = contradictory("p1", 1, A, swapped=True)
    records = [
        seat(coded.key, C.AGREE, position=0),
        seat(coded.key, C.AGREE, position=1),
        seat(coded.key, None, position=2),  # 2 of 3 seats: still a majority
        seat(swapped.key, C.BOTH, position=0),
        seat(swapped.key, None, position=1),  # 1 of 2: no majority
        seat("not-an-item|ie_availability_absent|full", C.AGREE),
    ]
    answers = [
        Answer(item_key=uncoded.key, model="m1", status="ok", text="..."),
        Answer(item_key=failed.key, model="m1", status="error", error="timeout"),
        Answer(item_key=coded.key, model="m1", status="ok", text="..."),
    ]
    result = coded_answers([coded, uncoded, failed, swapped], majority_codes(records), answers)
    assert result.unknown_items == 1
    rows = {row.item_key: row for row in result.frame.itertuples()}
    assert set(rows) == {coded.key, uncoded.key, swapped.key}
    assert (rows[coded.key].status, rows[coded.key].code, rows[coded.key].committed) == (
        "ok",
        "agree",
        "Agree",
    )
    assert rows[uncoded.key].status == "not_coded"
    assert rows[swapped.key].status == "no_majority" and rows[swapped.key].code is None
    assert swapped.key.endswith("|swapped") and rows[swapped.key].chunk_order == "swapped"
    assert (rows[swapped.key].first_stance, rows[swapped.key].target_stance) == (
        "Disagree",
        "Agree",
    )


def test_a_swapped_item_missing_from_the_exports_is_derived_from_its_original():
    original = contradictory("p1", 1, A)
    key = original.key + "|swapped"
    records = [seat(key, C.DISAGREE), seat("x|ie_availability_absent|full|swapped", C.AGREE)]
    result = coded_answers([original], majority_codes(records))
    (row,) = result.frame.itertuples()
    assert (row.item_key, row.chunk_order) == (key, "swapped")
    assert (row.first_stance, row.second_stance, row.target_stance) == (
        "Disagree",
        "Agree",
        "Agree",
    )
    assert result.unknown_items == 1
