"""The test server's token count of a prompt: counted per message, the same as over the joined text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from polistemics.testing.completions import (
    LONG_TEXT,
    approx_tokens,
    completion_body,
    count_prompt_tokens,
    messages_text,
)

_TEXT = st.text(
    alphabet=st.sampled_from(["a", "b", " ", "\n", "\t", "\u2028", "\u3000", "é", "😀"]),
    max_size=LONG_TEXT + 60,
)
_CONTENT = st.one_of(
    _TEXT,
    st.lists(
        st.one_of(
            st.fixed_dictionaries({"type": st.just("text"), "text": _TEXT}),
            st.fixed_dictionaries({"type": st.just("image_url")}),
        ),
        max_size=3,
    ),
    st.none(),
    st.integers(),
)
_MESSAGES = st.lists(
    st.one_of(
        st.fixed_dictionaries({"role": st.sampled_from(["system", "user"]), "content": _CONTENT}),
        st.just("not a message"),
    ),
    max_size=4,
)


@given(_MESSAGES)
def test_count_prompt_tokens_is_approx_tokens_of_the_joined_text(messages: list) -> None:
    assert count_prompt_tokens(messages) == approx_tokens(messages_text(messages))


def test_a_long_text_seen_before_counts_the_same() -> None:
    long = "word " * (LONG_TEXT // 2)
    messages = [{"role": "system", "content": long}, {"role": "user", "content": "two words"}]
    first = count_prompt_tokens(messages)
    assert first == count_prompt_tokens(messages) == approx_tokens(messages_text(messages))
    # Words never join across the newline between two messages.
    glued = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    assert count_prompt_tokens(glued) == approx_tokens("a b") == 3


def test_completion_usage_counts_the_prompt_as_before() -> None:
    request = {
        "messages": [{"role": "system", "content": "x " * 300}, {"role": "user", "content": "q"}]
    }
    body = completion_body(request, completion_id="c", content="yes")
    assert body["usage"]["prompt_tokens"] == approx_tokens(messages_text(request["messages"]))
