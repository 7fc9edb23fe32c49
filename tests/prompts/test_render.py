from __future__ import annotations

import re

import pytest

from polistemics.prompts import TEMPLATE_NAMES, load, placeholders, render


def test_render_fills_every_placeholder_once() -> None:
    text = render("judge_user", query="Q {context}", context="C", answer="A {answer}")
    assert text == load("judge_user").format(query="Q {context}", context="C", answer="A {answer}")
    assert "Q {context}" in text and "A {answer}" in text  # values are not filled again


def test_render_rejects_missing_and_unexpected_values() -> None:
    with pytest.raises(KeyError, match=r"missing \['answer'\], unexpected \['extra'\]"):
        render("judge_user", query="q", context="c", extra="x")


def test_placeholders_of_every_template() -> None:
    for name in TEMPLATE_NAMES:
        names = placeholders(name)
        assert names == set(re.findall(r"\{([a-z_]+)\}", load(name)))
        names.add("mine")  # a caller's set: the template's own names do not change
        assert "mine" not in placeholders(name)
