"""Cache keys: the spliced key equals the canonical JSON of the whole call, and varies with it."""

from __future__ import annotations

import hashlib

from polistemics.llm.keys import CallIdentity, call_key, canonical_json, messages_hash
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
    changed = [
        call_key(endpoint(model="org/model-2"), MESSAGES, params, 0),
        call_key(endpoint(base_url="http://127.0.0.1:10/v1"), MESSAGES, params, 0),
        call_key(endpoint(), MESSAGES[:1], params, 0),
        call_key(endpoint(), MESSAGES, {"temperature": 0.1}, 0),
        call_key(endpoint(), MESSAGES, params, 1),
    ]
    assert len({base, *changed}) == 6
