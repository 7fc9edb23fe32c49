"""``polistemics.scoring``'s public names: each resolves to the object its module defines."""

from __future__ import annotations

import importlib

import pytest

import polistemics.scoring as scoring


@pytest.mark.parametrize("name", scoring.__all__)
def test_each_public_name_is_its_modules_object(name: str) -> None:
    module = importlib.import_module(f"polistemics.scoring.{scoring._EXPORTS[name]}")
    assert getattr(scoring, name) is getattr(module, name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        scoring.nothing_here  # noqa: B018


def test_all_lists_exactly_the_lazy_exports() -> None:
    assert sorted(scoring.__all__) == sorted(scoring._EXPORTS)
