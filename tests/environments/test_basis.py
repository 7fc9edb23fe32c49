"""The item skeleton every builder shares (``environments.basis.make_item``)."""

from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import make_item, target_chunk
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
