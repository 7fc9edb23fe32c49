"""Cache keys: what makes two calls "the same call"."""

from __future__ import annotations

import hashlib
import json

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
    material = {
        "endpoint": endpoint.resolved_base_url,
        "model": endpoint.model,
        "messages": messages,
        "params": params,
        "sample_index": sample_index,
    }
    return hashlib.sha256(canonical_json(material).encode("utf-8")).hexdigest()
