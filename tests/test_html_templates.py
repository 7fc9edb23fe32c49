"""The shared page skeleton (``templates/base.html``): every page extends it, text stays text,
the Content-Security-Policy meta is there exactly when a page states one."""

from __future__ import annotations

import jinja2
import pytest
from jinja2 import nodes

from polistemics.html_templates import BASE_TEMPLATE, page_environment

PAGES = [
    ("polistemics.report", "page.html"),
    ("polistemics.report", "compare.html"),
    ("polistemics.annotate", "app.html"),
]
HOSTILE = '<script>alert(1)</script>"&'


@pytest.mark.parametrize(("package", "name"), PAGES)
def test_every_page_extends_the_skeleton(package: str, name: str) -> None:
    env = page_environment(package)
    source, _, _ = env.loader.get_source(env, name)  # type: ignore[union-attr]
    extends = list(env.parse(source).find_all(nodes.Extends))
    assert [e.template.value for e in extends] == [BASE_TEMPLATE]  # type: ignore[attr-defined]


def _child(env: jinja2.Environment) -> jinja2.Template:
    return env.from_string(
        '{% extends "base.html" %}{% block title %}T {{ name }}{% endblock %}'
        "{% block body %}<p>{{ name }}</p>\n{% endblock %}"
    )


def test_text_is_escaped_and_the_policy_is_optional() -> None:
    env = page_environment("polistemics.report")
    with_policy = _child(env).render(name=HOSTILE, csp="default-src 'none'")
    assert HOSTILE not in with_policy and "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&amp;" in (
        with_policy
    )
    assert '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;">' in (
        with_policy
    )
    without = _child(env).render(name="x", csp=None)
    assert "Content-Security-Policy" not in without
    assert without.startswith('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n')
    assert without.endswith("<p>x</p>\n</body></html>")


def test_a_missing_value_is_an_error() -> None:
    with pytest.raises(jinja2.UndefinedError):
        _child(page_environment("polistemics.annotate")).render(name="x")  # no csp
