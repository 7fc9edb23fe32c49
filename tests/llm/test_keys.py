"""Cache keys: the spliced key equals the canonical JSON of the whole call, and varies with it."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from polistemics.llm.keys import (
    LONG_TEXT,
    CallIdentity,
    call_key,
    canonical_json,
    messages_hash,
    messages_json,
    params_json,
    request_params,
)
from polistemics.llm.registry import ModelEndpoint

MESSAGES = [
    {"role": "system", "content": "Antworte kurz. «Zitat» — ü"},
    {"role": "user", "content": 'Was sagt "Partei A"?\nZeile 2'},
]


def endpoint(**overrides) -> ModelEndpoint:
    fields = {"name": "m", "model": "org/model-1", "base_url": "http://127.0.0.1:9/v1"}
    return ModelEndpoint(**(fields | overrides))


def plain_key(ep: ModelEndpoint, messages: list[dict], params: dict, sample_index: int) -> str:
    material = {
        "endpoint": ep.resolved_base_url,
        "model": ep.model,
        "messages": messages,
        "params": params,
        "sample_index": sample_index,
    }
    return hashlib.sha256(canonical_json(material).encode("utf-8")).hexdigest()


def test_spliced_key_equals_the_canonical_json_of_the_whole_call() -> None:
    params = {"temperature": 0.3, "max_tokens": 99, "json_schema": {"type": "object", "b": [1]}}
    for sample in (0, 7):
        identity = CallIdentity.of(endpoint(), MESSAGES, params, sample)
        assert identity.key == plain_key(endpoint(), MESSAGES, params, sample)
        assert identity.key == call_key(endpoint(), MESSAGES, params, sample)
    identity = CallIdentity.of(endpoint(), MESSAGES, params, 0)
    assert identity.messages_hash == messages_hash(MESSAGES)
    assert identity.messages_json == canonical_json(MESSAGES)


def test_key_changes_with_every_part_but_not_the_registry_name() -> None:
    params = {"temperature": 0.0}
    base = call_key(endpoint(), MESSAGES, params, 0)
    assert call_key(endpoint(name="other-name"), MESSAGES, params, 0) == base
    named = endpoint(display_name="Model One")  # how figures name it: not part of the call
    assert call_key(named, MESSAGES, request_params(named), 0) == call_key(
        endpoint(), MESSAGES, request_params(endpoint()), 0
    )
    changed = [
        call_key(endpoint(model="org/model-2"), MESSAGES, params, 0),
        call_key(endpoint(base_url="http://127.0.0.1:10/v1"), MESSAGES, params, 0),
        call_key(endpoint(), MESSAGES[:1], params, 0),
        call_key(endpoint(), MESSAGES, {"temperature": 0.1}, 0),
        call_key(endpoint(), MESSAGES, params, 1),
    ]
    assert len({base, *changed}) == 6


def test_messages_json_is_the_canonical_json_of_any_messages() -> None:
    long = 'Rubrik — «lang» "zitiert"\n\\ \u2028 😀 ' * 20
    cases = [
        MESSAGES,
        [{"role": "system", "content": long}, {"role": "user", "content": long + "x"}],
        [{"role": "user", "content": long}, {"role": "user", "content": long}],  # remembered
        [{"content": "", "role": "user", "name": "b"}],
        [{}],
        [],
        [{"role": "user", "content": ["parts", {"type": "text"}]}],  # not text: the general path
        [{"role": "user", "content": None, "n": 1.5}],
        [{1: "x"}],
        ({"role": "user", "content": "a tuple"},),
        ["not a dict"],
    ]
    for messages in cases:
        assert messages_json(messages) == canonical_json(messages)
    identity = CallIdentity.of(endpoint(), cases[1], {"temperature": 0.0}, 0)
    assert identity.messages_json == canonical_json(cases[1])
    assert identity.key == plain_key(endpoint(), cases[1], {"temperature": 0.0}, 0)


@given(
    st.lists(
        st.dictionaries(
            st.text(max_size=8),
            st.one_of(st.text(max_size=LONG_TEXT + 40), st.integers(), st.none()),
            max_size=4,
        ),
        max_size=4,
    )
)
def test_messages_json_matches_canonical_json(messages: list[dict]) -> None:
    assert messages_json(messages) == canonical_json(messages)
    # The hash the store and the test server name a prompt by: that of the canonical JSON.
    expected = hashlib.sha256(canonical_json(messages).encode("utf-8")).hexdigest()
    assert messages_hash(messages) == expected


def test_params_json_is_the_canonical_json_of_the_params_and_tells_equal_numbers_apart() -> None:
    cases = [
        {"temperature": 0.0, "max_tokens": 99},
        {"temperature": 0, "max_tokens": 99},
        {"temperature": False, "max_tokens": 99},
        {"temperature": -0.0, "max_tokens": 99},
        {"temperature": float("nan")},
        {"max_tokens": 99, "temperature": 0.0, "seed": None, "model": "m"},
        {"json_schema": {"type": "object"}, "structured_output": "tool"},
        {"stop": ["a", "b"]},
        {1: "not a text key"},
    ]
    for _ in range(2):  # the second time from what was remembered
        for params in cases:
            assert params_json(params) == canonical_json(params)


def test_one_prompt_sent_to_several_endpoints_gets_each_its_own_key() -> None:
    """A panel's judges send one prompt list (its JSON and hash made once): every key is still
    the canonical JSON's of its own call, however the calls come in turn."""
    long_messages = [
        {"role": "system", "content": "Beurteile — " * LONG_TEXT},
        {"role": "user", "content": "Antwort «A»"},
    ]
    endpoints = [
        endpoint(),
        endpoint(name="j2", model="org/model-2"),
        endpoint(name="j3", model="org/model-1", base_url="http://127.0.0.1:10/v1"),
    ]
    params = {"temperature": 0.0, "max_tokens": 20}
    for _ in range(2):
        for sample in (0, 1):
            for ep in endpoints:
                identity = CallIdentity.of(ep, long_messages, params, sample)
                assert identity.key == plain_key(ep, long_messages, params, sample)
                assert identity.messages_json == canonical_json(long_messages)


def test_a_prompt_changed_in_place_gets_the_key_of_what_it_holds_now() -> None:
    messages = [dict(m) for m in MESSAGES]
    params = {"temperature": 0.0}
    before = CallIdentity.of(endpoint(), messages, params, 0)
    messages[1]["content"] = "Und Partei B?"
    after = CallIdentity.of(endpoint(), messages, params, 0)
    assert after.key == plain_key(endpoint(), messages, params, 0) != before.key
    messages.append({"role": "assistant", "content": "Ja."})
    assert CallIdentity.of(endpoint(), messages, params, 0).key == plain_key(
        endpoint(), messages, params, 0
    )
    # Content as parts (not text): its inner list changed in place is seen too.
    parts = [{"role": "user", "content": [{"type": "text", "text": "eins"}]}]
    first = CallIdentity.of(endpoint(), parts, params, 0)
    parts[0]["content"][0]["text"] = "zwei"
    second = CallIdentity.of(endpoint(), parts, params, 0)
    assert second.key == plain_key(endpoint(), parts, params, 0) != first.key
