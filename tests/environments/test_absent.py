from polistemics.conditions import Environment
from polistemics.environments.absent import build_absent_items

from .helpers import evidence


def test_absent_items_have_no_chunk():
    items = build_absent_items([evidence("a", 1, "Agree"), evidence("b", 1, "Neutral")])
    assert [i.environment for i in items] == [Environment.ABSENT] * 2
    assert all(i.chunks == [] and i.evidence_index is None for i in items)
