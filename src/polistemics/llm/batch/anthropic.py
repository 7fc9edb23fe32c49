"""Anthropic's Message Batches format (``/v1/messages/batches``): our request bodies as Anthropic
message parameters, and its result lines read back as chat completions.

A request is ``{"custom_id", "params"}``, the params in Anthropic's message format: system
messages become ``system``, the rest ``messages``; ``model``, ``max_tokens``, ``temperature`` and
``top_p`` carry over. Structured output takes Anthropic's tool form: a forced function tool
(``structured_output = "tool"``) becomes a tool with that ``input_schema`` and
``tool_choice = {"type": "tool"}``; a ``json_schema`` response format becomes such a tool too,
whose input is then read back as the reply's text. Parameters Anthropic has no place for
(``seed``, other extra keys) are not sent.

Prompt caching: a system message whose content is a list of text parts (``LLMClient`` marks it so
with ``cache_control = true``, ``client.cache_marked``) becomes ``system`` as Anthropic's list of
text blocks, each part's ``cache_control`` kept; a plain system message stays a string.

Reasoning (``reasoning`` in the body, OpenRouter's form) becomes Anthropic's extended thinking,
``thinking = {"type": "enabled", "budget_tokens"}``: ``reasoning.max_tokens`` is the budget, and
an ``effort`` takes OpenRouter's share of ``max_tokens`` (``registry.thinking_budget``, at least
1,024 tokens). Anthropic refuses thinking together with a set ``temperature`` or a forced tool, so
with thinking neither ``temperature`` nor ``top_p`` is sent and a structured-output tool is
offered with ``tool_choice = {"type": "auto"}``. The budget must stay below ``max_tokens``
(the registry says so when it is read).

A result line is ``{"custom_id", "result": {"type": "succeeded", "message"} | {"type":
"errored", "error"} | {"type": "canceled"} | {"type": "expired"}}``. A succeeded message is
turned into a chat completion body (text, tool call, ``finish_reason``, ``usage``), so the client
reads it by the same rules as any reply (its thinking blocks as the message's ``reasoning``, and
``cache_read_input_tokens`` as cached prompt tokens: Anthropic's ``input_tokens`` leaves out the
tokens read from or written to its cache, so the prompt tokens are the three summed); canceled
and expired requests are missing (sent again).
Refusals follow ``wire.read_output``: unknown, duplicate or malformed lines are counted, never
used.
"""

from __future__ import annotations

import json
from collections.abc import Container

from polistemics.llm.batch.wire import LineResult, ReadOutput, read_output
from polistemics.llm.registry import thinking_budget

JSON_TOOL = "json_output"  # the tool a json_schema response format is sent as
_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
_NOT_RUN = {"canceled": "batch_cancelled", "expired": "batch_expired"}


def request_line(custom_id: str, body: dict, messages_json: str) -> bytes:
    """One request of a Message Batch, as a JSON line (joined into ``{"requests": [...]}``)."""
    return (
        json.dumps(
            {"custom_id": custom_id, "params": message_params(body, json.loads(messages_json))},
            ensure_ascii=False,
        ).encode()
        + b"\n"
    )


def requests_body(lines: list[bytes]) -> bytes:
    """The create request's body for ``request_line`` lines."""
    return b'{"requests": [' + b",".join(line.rstrip(b"\n") for line in lines) + b"]}"


def message_params(body: dict, messages: list[dict]) -> dict:
    system = _system([m["content"] for m in messages if m.get("role") == "system"])
    params: dict = {
        "model": body["model"],
        "max_tokens": body["max_tokens"],
        "messages": [
            {"role": m["role"], "content": m["content"]}
            for m in messages
            if m.get("role") != "system"
        ],
    }
    if system:
        params["system"] = system
    budget = thinking_budget(body.get("reasoning"), body["max_tokens"])
    if budget is not None:
        params["thinking"] = {"type": "enabled", "budget_tokens": budget}
    else:
        for name in ("temperature", "top_p"):
            if name in body:
                params[name] = body[name]
    tool = _tool(body)
    if tool is not None:
        params["tools"] = [tool]
        params["tool_choice"] = (
            {"type": "auto"} if budget is not None else {"type": "tool", "name": tool["name"]}
        )
    return params


def _system(contents: list) -> str | list[dict]:
    """The system messages as Anthropic's ``system``: one string, or, when one of them comes as
    text parts (a cache breakpoint), the list of text blocks."""
    if all(isinstance(content, str) for content in contents):
        return "\n\n".join(contents)
    blocks: list[dict] = []
    for content in contents:
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for part in parts:
            if isinstance(part, dict) and part.get("type") == "text":
                block = {"type": "text", "text": part.get("text", "")}
                if "cache_control" in part:
                    block["cache_control"] = part["cache_control"]
                blocks.append(block)
    return blocks


def _tool(body: dict) -> dict | None:
    """The one tool a request forces, in Anthropic's form, if it asks for structured output."""
    for entry in body.get("tools") or []:
        function = entry.get("function") if isinstance(entry, dict) else None
        if isinstance(function, dict):
            tool = {"name": function["name"], "input_schema": function.get("parameters", {})}
            if isinstance(function.get("description"), str):
                tool["description"] = function["description"]
            return tool
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema") or {}
        return {"name": JSON_TOOL, "input_schema": schema}
    return None


def read_results(files: list[bytes], sent: Container[str]) -> ReadOutput:
    """A Message Batch's results file (in memory) read against the ``custom_id``s it was
    ``sent`` with."""
    return read_output(files, sent, parse_line)


def parse_line(raw: bytes) -> tuple[str | None, LineResult | None]:
    """(custom_id, result) of one results line, as ``wire.parse_line`` reads OpenAI's."""
    try:
        line = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, None
    custom_id = line.get("custom_id") if isinstance(line, dict) else None
    if not isinstance(custom_id, str):
        return None, None
    return custom_id, _result(line.get("result"))


def _result(result: object) -> LineResult | None:
    if not isinstance(result, dict):
        return None
    kind = result.get("type")
    if kind in _NOT_RUN:
        return LineResult(error_code=_NOT_RUN[kind], error=f"request {kind}")
    if kind == "errored":
        error = result.get("error")
        error = error.get("error", error) if isinstance(error, dict) else {}
        error_type = error.get("type") if isinstance(error, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        transient = error_type in ("overloaded_error", "api_error", "rate_limit_error")
        return LineResult(
            status_code=500 if transient else 400,
            error_code=error_type if isinstance(error_type, str) else "errored",
            error=message if isinstance(message, str) else "request errored",
        )
    message = result.get("message")
    if kind != "succeeded" or not isinstance(message, dict):
        return None
    body = completion_body(message)
    return None if body is None else LineResult(status_code=200, body=body)


def completion_body(message: dict) -> dict | None:
    """An Anthropic message as a chat completion body (None when its content is no list)."""
    content = message.get("content")
    if not isinstance(content, list):
        return None
    texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"]
    uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
    thoughts = [
        b.get("thinking") for b in content if isinstance(b, dict) and b.get("type") == "thinking"
    ]
    thinking = "".join(t for t in thoughts if isinstance(t, str))
    reply: dict = {"role": "assistant", "content": "".join(t for t in texts if isinstance(t, str))}
    if thinking:
        reply["reasoning"] = thinking
    calls = []
    for use in uses:
        arguments = json.dumps(use.get("input"), ensure_ascii=False)
        if use.get("name") == JSON_TOOL:  # a json_schema response format: the text is the JSON
            reply["content"] = arguments
        else:
            calls.append(
                {
                    "id": str(use.get("id", "")),
                    "type": "function",
                    "function": {"name": use.get("name"), "arguments": arguments},
                }
            )
    if calls:
        reply["tool_calls"] = calls
    stop = message.get("stop_reason")
    finish = _STOP_REASONS.get(stop, "stop") if isinstance(stop, str) else "stop"
    if finish == "tool_calls" and not calls:
        finish = "stop"
    usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
    counts = {
        name: usage[name] if type(usage.get(name)) is int and usage[name] >= 0 else 0
        for name in ("cache_read_input_tokens", "cache_creation_input_tokens")
    }
    chat_usage: dict = {
        "prompt_tokens": usage.get("input_tokens", 0),
        "completion_tokens": usage.get("output_tokens", 0),
    }
    if any(name in usage for name in counts):  # Anthropic's input_tokens leave the cache out
        if type(chat_usage["prompt_tokens"]) is int:
            chat_usage["prompt_tokens"] += sum(counts.values())
        chat_usage["prompt_tokens_details"] = {"cached_tokens": counts["cache_read_input_tokens"]}
    return {
        "choices": [{"index": 0, "message": reply, "finish_reason": finish}],
        "usage": chat_usage,
    }
