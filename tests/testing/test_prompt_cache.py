"""The test server's prompt cache: a prefix an earlier request to the same model had is cached."""

from __future__ import annotations

from polistemics.testing.completions import approx_tokens
from polistemics.testing.prompt_cache import PromptCache


def request(model: str, *contents: str) -> dict:
    roles = ["system"] * (len(contents) - 1) + ["user"]
    return {
        "model": model,
        "messages": [{"role": r, "content": c} for r, c in zip(roles, contents, strict=True)],
    }


def test_the_first_request_with_a_prefix_reports_none_later_ones_its_tokens() -> None:
    cache = PromptCache()
    shared = "Rubric text that every call of a rubric repeats."
    assert cache.cached_tokens(request("m", shared, "answer one")) == 0
    assert cache.cached_tokens(request("m", shared, "answer two")) == approx_tokens(shared)
    assert cache.hits == 1


def test_prefixes_are_per_model_and_a_single_message_has_none() -> None:
    cache = PromptCache()
    cache.cached_tokens(request("m", "same prefix", "a"))
    assert cache.cached_tokens(request("other", "same prefix", "a")) == 0
    assert cache.cached_tokens(request("m", "only a user turn")) == 0
    assert cache.cached_tokens(request("m", "only a user turn")) == 0
    assert cache.cached_tokens({"model": "m", "messages": "not a list"}) == 0
