"""OpenAI wire shapes the fake server sends: chat completions, errors, token approximations."""

from __future__ import annotations

import time
from functools import lru_cache

from polistemics.llm.keys import messages_hash

# The OpenAI error "type" a client sees for each status family.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


def approx_tokens(text: str | None) -> int:
    """A cheap deterministic token count: whitespace-separated words * 1.3, rounded."""
    return round(len(text.split()) * 1.3) if text else 0


LONG_TEXT = 256  # characters: a text this long has its words counted once (prompts repeat)


def count_prompt_tokens(messages: list) -> int:
    """``approx_tokens(messages_text(messages))``, each message's words counted apart (the
    newline between two messages never joins two words) and a long text's counted once: a
    study's prompts repeat their system messages and answers many times."""
    words = 0
    for message in messages:
        if isinstance(message, dict):
            text = content_text(message.get("content"))
            words += _long_text_words(text) if len(text) >= LONG_TEXT else len(text.split())
    return round(words * 1.3)


@lru_cache(maxsize=1024)
def _long_text_words(text: str) -> int:
    return len(text.split())


def content_text(content: object) -> str:
    """The text of a message's content, whether a string or a list of OpenAI content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def messages_text(messages: list) -> str:
    """The message contents joined by newlines: what rule patterns are searched in."""
    return "\n".join(content_text(m.get("content")) for m in messages if isinstance(m, dict))


def prompt_key(messages: list) -> str:
    """The client layer's hash of a prompt (``messages_hash``), so both sides name it alike."""
    return messages_hash(messages)


def completion_body(
    request: dict,
    *,
    completion_id: str,
    content: str | None,
    finish_reason: str = "stop",
    reasoning: str | None = None,
    cost_per_token: float | None = None,
    tool_call: tuple[str, str] | None = None,
    cached_tokens: int = 0,
) -> dict:
    """A non-streaming ``chat.completion`` object answering ``request``.

    With ``tool_call`` (function name, arguments text) the message carries that one tool call.
    ``cached_tokens`` of the prompt tokens are reported as served from the prompt cache
    (``usage.prompt_tokens_details.cached_tokens``, as OpenAI reports them).
    """
    message: dict = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning"] = reasoning
    if tool_call is not None:
        name, arguments = tool_call
        message["tool_calls"] = [
            {
                "id": f"call_{completion_id}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        ]
    messages = request.get("messages", [])
    prompt_tokens = (
        count_prompt_tokens(messages)
        if isinstance(messages, list)
        else approx_tokens(messages_text(messages))
    )
    reasoning_tokens = approx_tokens(reasoning)
    # As in OpenAI's usage, completion tokens include the reasoning tokens.
    completion_tokens = (
        approx_tokens(content)
        + approx_tokens(tool_call[1] if tool_call else None)
        + reasoning_tokens
    )
    usage: dict = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": min(cached_tokens, prompt_tokens)},
        "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
    }
    if cost_per_token is not None:
        usage["cost"] = round((prompt_tokens + completion_tokens) * cost_per_token, 12)
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model") or "fake-model",
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
        ],
        "usage": usage,
    }


def forced_tool_name(request: dict) -> str | None:
    """The function a request's ``tool_choice`` forces (``{"type": "function", ...}``), if any."""
    choice = request.get("tool_choice")
    function = choice.get("function") if isinstance(choice, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else None


def forced_tool_parameters(request: dict) -> dict | None:
    """The parameters schema of the tool a request forces, if it lists that tool."""
    name = forced_tool_name(request)
    tools = request.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name") == name:
            parameters = function.get("parameters")
            return parameters if isinstance(parameters, dict) else None
    return None


def error_body(status: int, message: str) -> dict:
    error_type = _ERROR_TYPES.get(
        status, "server_error" if status >= 500 else "invalid_request_error"
    )
    return {"error": {"message": message, "type": error_type, "param": None, "code": status}}


def models_body(model_ids: list[str]) -> dict:
    return {
        "object": "list",
        "data": [
            {"id": m, "object": "model", "created": 0, "owned_by": "polistemics"} for m in model_ids
        ],
    }
