"""The item skeleton every builder shares (``environments.basis.make_item``) and the one string
of each passage text its chunks show (``shared_text``)."""

from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import make_item, shared_text, target_chunk
from polistemics.environments.conflict import borrowed_chunk
from polistemics.environments.noisy import distractor_chunk
from polistemics.runlog.items import EnvironmentItem

from .helpers import evidence


def _item(pid: str, number: int) -> EnvironmentItem:
    ev = evidence(pid, number, "Agree")
    return make_item(ev, Environment.BASELINE, Variant.FULL, [target_chunk(ev, "X")])


def test_items_share_one_record_of_their_given_fields_and_stay_what_pydantic_makes():
    a, b = _item("a", 1), _item("b", 2)
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    assert a.chunks[0].__pydantic_fields_set__ is b.chunks[0].__pydantic_fields_set__
    plain = EnvironmentItem(**{name: getattr(a, name) for name in a.model_fields_set})
    assert plain == a and plain.model_fields_set == a.model_fields_set
    assert plain.model_dump_json() == a.model_dump_json()
    assert plain.model_dump_json(exclude_unset=True) == a.model_dump_json(exclude_unset=True)


def test_a_copy_with_changes_leaves_the_shared_record_alone():
    a, b = _item("a", 1), _item("b", 2)
    before = set(b.model_fields_set)
    swapped = a.model_copy(update={"chunk_order": "swapped"})
    assert "chunk_order" in swapped.model_fields_set
    assert b.model_fields_set == a.model_fields_set == before


def test_a_passage_shown_in_many_items_is_one_string_however_many_items_show_it():
    # Issue 32: each filling of a passage's label made a new copy of its text (16 MB of chunk
    # text at 8 times the paper's study); the items now share one string per text.
    passages = [evidence(pid, n, "Agree") for pid in "abc" for n in (1, 2)]
    chunks = [
        make_chunk(ev, label)
        for _ in range(5)  # the same passage in five environments or variants
        for make_chunk in (target_chunk, distractor_chunk, borrowed_chunk)
        for ev in passages
        for label in ("X", "Party A")
    ]
    texts = {chunk.text for chunk in chunks}
    assert len(texts) == len(passages) * 2  # each passage under two labels
    assert len({id(chunk.text) for chunk in chunks}) == len(texts)
    assert shared_text("".join(["Party", " A"])) is shared_text("Party A")


def test_vague_and_borrowed_chunks_show_their_texts_as_before():
    ev = evidence("a", 1, "Agree")
    assert target_chunk(ev, "X").text == ev.text.replace("[PARTY]", "X")
    assert borrowed_chunk(ev, "Y").text == ev.text.replace("[PARTY]", "Y")
    assert distractor_chunk(ev, "Z").text == ev.text.replace("[PARTY]", "Z")
