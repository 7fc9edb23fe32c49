"""Cache keys: what makes two calls "the same call"."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from polistemics.llm.registry import ModelEndpoint


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def messages_hash(messages: list[dict]) -> str:
    return hashlib.sha256(canonical_json(messages).encode("utf-8")).hexdigest()


def request_params(
    endpoint: ModelEndpoint, *, json_schema: dict | None = None, grammar: str | None = None
) -> dict:
    """All parameters that shape the output: generation settings plus output constraints."""
    params = endpoint.generation_params()
    if json_schema is not None:
        params["json_schema"] = json_schema
        params["structured_output"] = endpoint.structured_output
    if grammar is not None:
        params["grammar"] = grammar
    return params


def call_key(endpoint: ModelEndpoint, messages: list[dict], params: dict, sample_index: int) -> str:
    """Same endpoint location, model, messages, parameters and sample -> same key.

    The endpoint is identified by where it is served (not by its registry name), so judges that
    are the same model with the same parameters share cached calls.
    """
    return CallIdentity.of(endpoint, messages, params, sample_index).key


@dataclass(frozen=True)
class CallIdentity:
    """A call's cache key with the canonical messages JSON and hash it was built from.

    The key is the SHA-256 of the canonical JSON of {endpoint, messages, model, params,
    sample_index}; the messages' canonical JSON is serialised once and spliced in (keys in sorted
    order, as ``canonical_json`` would write them), since judge prompts are long and every call
    needs both the key and the stored messages.
    """

    key: str
    messages_json: str
    messages_hash: str
    params_json: str

    @classmethod
    def of(
        cls, endpoint: ModelEndpoint, messages: list[dict], params: dict, sample_index: int
    ) -> CallIdentity:
        messages_json = canonical_json(messages)
        params_json = canonical_json(params)
        messages_bytes = messages_json.encode("utf-8")  # encoded once, hashed twice
        key = hashlib.sha256(
            f'{{"endpoint":{canonical_json(endpoint.resolved_base_url)},"messages":'.encode()
        )
        key.update(messages_bytes)
        key.update(
            f',"model":{canonical_json(endpoint.model)},"params":{params_json},'
            f'"sample_index":{canonical_json(sample_index)}}}'.encode()
        )
        return cls(
            key=key.hexdigest(),
            messages_json=messages_json,
            messages_hash=hashlib.sha256(messages_bytes).hexdigest(),
            params_json=params_json,
        )
