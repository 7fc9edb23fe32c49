"""The test server's OpenAI batch API: ``/v1/files`` (upload, content) and ``/v1/batches``
(create, retrieve, cancel), with scripted faults.

Each line of a batch is answered by the server's own chat logic (``answer`` is
``FakeOpenAIServer.answer_offline``: the same rules, responder and per-prompt faults as online
calls), after the batch's latency. The service counts the requests it received per
``custom_id`` (``stats().requests_per_custom_id``), so tests can tell what was sent twice.

Scripted faults (``BatchFault``), by the order batches are created (``faults[i]`` for the i-th):
``expire`` (only ``fraction`` of the lines run, the rest are reported ``batch_expired``),
``partial_failure`` (a stable ``fraction`` of the lines fail with HTTP 500), ``slow`` (``delay``
seconds on top of the latency), ``fail`` (the batch fails validation and runs nothing), and the
bad output lines ``malformed_line`` (the first line cut in half), ``unknown_custom_id`` (an extra
line for a request never sent) and ``duplicate_custom_id`` (the first line twice, once with
another answer).

Message Batches (``/v1/messages/batches``) are kept as their requests came
(``message_requests``, for tests to read), then answered by the same chat logic. Their results
are in Anthropic's form: a request that asked for extended thinking gets a thinking block before
its text, and one whose system prompt carries a ``cache_control`` breakpoint reports the server's
cached prompt tokens as ``cache_read_input_tokens`` (left out of ``input_tokens``, as Anthropic
counts them); without a breakpoint nothing is reported cached.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Literal, get_args

from aiohttp import web
from pydantic import BaseModel, Field

from polistemics.testing.completions import error_body
from polistemics.testing.faults import ServerConfigError, stable_fraction

BatchFaultKind = Literal[
    "expire",
    "partial_failure",
    "slow",
    "fail",
    "malformed_line",
    "unknown_custom_id",
    "duplicate_custom_id",
]
BATCH_DISCOUNT = 0.5  # a reported usage cost is halved, as OpenAI bills batch calls
TERMINAL = ("completed", "failed", "expired", "cancelled")
_JSON = {"Content-Type": "application/json"}

Answer = Callable[[object], tuple[int, dict]]


@dataclass(frozen=True)
class BatchFault:
    """One scripted batch fault (see the module doc)."""

    kind: BatchFaultKind
    fraction: float = 0.5
    delay: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in get_args(BatchFaultKind):
            raise ServerConfigError(f"BatchFault.kind: {self.kind!r} is not a batch fault")
        if not 0.0 <= self.fraction <= 1.0:
            raise ServerConfigError(f"BatchFault.fraction: {self.fraction} is not within [0, 1]")
        if self.delay < 0:
            raise ServerConfigError(f"BatchFault.delay: {self.delay} is negative")


class BatchStats(BaseModel):
    """What the batch API counted."""

    files: int = 0
    batches: dict[str, int] = Field(default_factory=dict)  # by status
    requests_per_custom_id: dict[str, int] = Field(default_factory=dict)  # lines received
    lines_run: int = 0

    @property
    def requests(self) -> int:
        return sum(self.requests_per_custom_id.values())


class BatchService:
    """Serves the batch routes of one ``FakeOpenAIServer`` (on its event loop)."""

    def __init__(
        self, answer: Answer, *, latency: float = 0.0, faults: Sequence[BatchFault | None] = ()
    ):
        if latency < 0:
            raise ServerConfigError(f"batch_latency: {latency} is negative")
        self.answer = answer
        self.latency = latency
        self.faults = list(faults)
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict] = {}
        self.message_requests: list[dict] = []  # every Message Batch request, as received
        self._message_kinds: dict[str, dict[str, tuple[bool, bool]]] = {}  # (thinking, marked)
        self._received: Counter[str] = Counter()
        self._lines_run = 0
        self._ids = count(1)
        self._tasks: set[asyncio.Task] = set()

    def stats(self) -> BatchStats:
        return BatchStats(
            files=len(self.files),
            batches=dict(Counter(b["status"] for b in list(self.batches.values()))),
            requests_per_custom_id=dict(self._received),
            lines_run=self._lines_run,
        )

    @staticmethod
    def serves(path: str) -> bool:
        return path == "/v1/files" or path.startswith(
            ("/v1/files/", "/v1/batches", "/v1/messages/batches")
        )

    async def handle(self, request: web.BaseRequest) -> web.StreamResponse:
        parts = request.path.strip("/").split("/")[1:]  # without "v1"
        method = request.method
        if parts[:2] == ["messages", "batches"]:
            return await self._messages(request, method, parts[2:])
        if method == "POST" and parts == ["files"]:
            return await self._upload(request)
        if method == "GET" and len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
            data = self.files.get(parts[1])
            if data is None:
                return _error(404, f"no file {parts[1]}")
            return web.Response(status=200, body=data, content_type="application/octet-stream")
        if method == "POST" and parts == ["batches"]:
            return await self._create(request)
        if method == "GET" and len(parts) == 2 and parts[0] == "batches":
            batch = self.batches.get(parts[1])
            return _json(batch) if batch else _error(404, f"no batch {parts[1]}")
        if method == "POST" and len(parts) == 3 and parts[0] == "batches" and parts[2] == "cancel":
            batch = self.batches.get(parts[1])
            if batch is None:
                return _error(404, f"no batch {parts[1]}")
            if batch["status"] not in TERMINAL:
                batch["status"] = "cancelling"
            return _json(batch)
        return _error(404, f"unknown path: {method} {request.path}")

    # -- routes ----------------------------------------------------------------------------------

    async def _upload(self, request: web.BaseRequest) -> web.Response:
        purpose, data = None, None
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if part.name == "purpose":
                purpose = (await part.read()).decode()
            elif part.name == "file":  # in chunks: read() stops at aiohttp's 1 MB body limit
                chunks = bytearray()
                while chunk := await part.read_chunk():
                    chunks += chunk
                data = bytes(chunks)
        if purpose != "batch" or data is None:
            return _error(400, "a batch file needs purpose=batch and a file")
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = data
        return _json({"id": file_id, "object": "file", "bytes": len(data), "purpose": "batch"})

    async def _create(self, request: web.BaseRequest) -> web.Response:
        try:
            body = json.loads(await request.read())
        except ValueError:
            return _error(400, "body is not JSON")
        file_id = body.get("input_file_id") if isinstance(body, dict) else None
        if file_id not in self.files:
            return _error(400, f"no input file {file_id!r}")
        if body.get("endpoint") != "/v1/chat/completions":
            return _error(400, "only /v1/chat/completions is served")
        batch = self._new_batch(file_id, self.files[file_id].splitlines(), body)
        return _json(batch)

    def _new_batch(
        self, file_id: str, lines: list[bytes], body: dict, *, anthropic: bool = False
    ) -> dict:
        number = len(self.batches)
        batch_id = f"{'msgbatch' if anthropic else 'batch'}_{next(self._ids)}"
        batch = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body["endpoint"],
            "input_file_id": file_id,
            "completion_window": body.get("completion_window", "24h"),
            "status": "in_progress",
            "output_file_id": None,
            "error_file_id": None,
            "errors": None,
            "created_at": int(time.time()),
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
        }
        self.batches[batch_id] = batch
        for line in lines:
            custom_id = _custom_id(line)
            if custom_id is not None:
                self._received[custom_id] += 1
        fault = self.faults[number] if number < len(self.faults) else None
        task = asyncio.ensure_future(self._run(batch, lines, fault, anthropic))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return batch

    # -- Anthropic's Message Batches ---------------------------------------------------------

    async def _messages(
        self, request: web.BaseRequest, method: str, parts: list[str]
    ) -> web.StreamResponse:
        if method == "POST" and parts == []:
            return await self._create_messages(request)
        batch = self.batches.get(parts[0]) if parts else None
        if batch is None:
            return _error(404, f"unknown path: {method} {request.path}")
        base = f"http://{request.host}/v1"
        if method == "GET" and len(parts) == 1:
            return _json(_message_batch(batch, base))
        if method == "POST" and parts[1:] == ["cancel"]:
            if batch["status"] not in TERMINAL:
                batch["status"] = "cancelling"
            return _json(_message_batch(batch, base))
        if method == "GET" and parts[1:] == ["results"] and batch["output_file_id"]:
            return web.Response(status=200, body=self.files[batch["output_file_id"]])
        return _error(404, f"unknown path: {method} {request.path}")

    async def _create_messages(self, request: web.BaseRequest) -> web.Response:
        if request.headers.get("anthropic-version") is None:
            return _error(400, "anthropic-version header required")
        try:
            # Read in chunks: request.read() stops at aiohttp's 1 MB body limit.
            data = bytearray()
            while chunk := await request.content.read(2**16):
                data += chunk
            body = json.loads(data)
        except ValueError:
            return _error(400, "body is not JSON")
        requests = body.get("requests") if isinstance(body, dict) else None
        if not isinstance(requests, list) or not requests:
            return _error(400, "requests must be a non-empty list")
        requests = [r for r in requests if isinstance(r, dict)]
        self.message_requests.extend(requests)
        kinds = {
            r["custom_id"]: _message_kind(r.get("params"))
            for r in requests
            if isinstance(r.get("custom_id"), str)
        }
        # Kept as OpenAI batch lines (the chat body made from the message params), so that the
        # same runner answers them; the results are written back in Anthropic's form.
        lines = [
            json.dumps(
                {"custom_id": r.get("custom_id"), "body": _chat_body(r.get("params"))}
            ).encode()
            for r in requests
            if isinstance(r, dict)
        ]
        file_id = self._file(b"\n".join(lines) + b"\n")
        batch = self._new_batch(file_id, lines, {"endpoint": "/v1/messages"}, anthropic=True)
        self._message_kinds[batch["id"]] = kinds
        return _json(_message_batch(batch, f"http://{request.host}/v1"))

    # -- running a batch -------------------------------------------------------------------------

    async def _run(
        self, batch: dict, lines: list[bytes], fault: BatchFault | None, anthropic: bool = False
    ) -> None:
        kind = fault.kind if fault else None
        await asyncio.sleep(self.latency + (fault.delay if kind == "slow" else 0.0))
        if batch["status"] == "cancelling":
            batch["status"] = "cancelled"
            return
        if kind == "fail":
            batch["status"] = "failed"
            batch["errors"] = {
                "object": "list",
                "data": [{"code": "invalid_request", "message": "scripted validation failure"}],
            }
            return
        run = len(lines) if kind != "expire" else int(len(lines) * fault.fraction)
        output: list[bytes] = []
        errors: list[bytes] = []
        for index, line in enumerate(lines):
            custom_id = _custom_id(line)
            if index >= run:
                errors.append(_line(custom_id, None, "batch_expired"))
                continue
            status, body = self._answer_line(line)
            if kind == "partial_failure" and stable_fraction(0, "batch", str(custom_id)) < (
                fault.fraction
            ):
                status, body = 500, error_body(500, "scripted batch line failure")
            target = output if status == 200 else errors
            target.append(_line(custom_id, (status, body), None))
        self._lines_run += run
        if anthropic:  # one results file, every line in Anthropic's form
            kinds = self._message_kinds.pop(batch["id"], {})
            output = [_message_result(json.loads(line), kinds) for line in output + errors]
            errors = []
        output = _bad_lines(kind, output)
        counts = batch["request_counts"]
        counts["completed"], counts["failed"] = len(output), len(errors)
        if output:
            batch["output_file_id"] = self._file(b"".join(output))
        if errors:
            batch["error_file_id"] = self._file(b"".join(errors))
        batch["status"] = "expired" if kind == "expire" else "completed"

    def _answer_line(self, line: bytes) -> tuple[int, dict]:
        try:
            request = json.loads(line)
        except ValueError:
            return 400, error_body(400, "line is not JSON")
        body = request.get("body") if isinstance(request, dict) else None
        status, reply = self.answer(body)
        usage = reply.get("usage")
        if isinstance(usage, dict) and isinstance(usage.get("cost"), float | int):
            usage["cost"] = usage["cost"] * (1 - BATCH_DISCOUNT)
        return status, reply

    def _file(self, data: bytes) -> str:
        file_id = f"file-{next(self._ids)}"
        self.files[file_id] = data
        return file_id


def _chat_body(params: object) -> dict | None:
    """Anthropic message params as the chat request the server's responders read."""
    if not isinstance(params, dict) or not isinstance(params.get("messages"), list):
        return None
    messages = list(params["messages"])
    system = params.get("system")
    if isinstance(system, list):  # text blocks (a cache breakpoint): their text
        system = "\n\n".join(b["text"] for b in system if isinstance(b, dict) and "text" in b)
    if isinstance(system, str):
        messages.insert(0, {"role": "system", "content": system})
    body = {"model": params.get("model"), "messages": messages}
    for name in ("max_tokens", "temperature", "top_p"):
        if name in params:
            body[name] = params[name]
    tools = params.get("tools")
    if isinstance(tools, list) and tools:
        body["tools"] = [
            {"type": "function", "function": {"name": t["name"], "parameters": t["input_schema"]}}
            for t in tools
        ]
        choice = params.get("tool_choice") or {}
        if choice.get("type") == "tool":
            body["tool_choice"] = {"type": "function", "function": {"name": choice["name"]}}
    return body


_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}


def _message_kind(params: object) -> tuple[bool, bool]:
    """Whether a Message Batch request asks for extended thinking, and whether its system
    prompt carries a cache breakpoint."""
    if not isinstance(params, dict):
        return False, False
    thinking = params.get("thinking")
    system = params.get("system")
    marked = isinstance(system, list) and any(
        isinstance(b, dict) and "cache_control" in b for b in system
    )
    return isinstance(thinking, dict) and thinking.get("type") == "enabled", marked


def _message_result(line: dict, kinds: dict[str, tuple[bool, bool]]) -> bytes:
    """An OpenAI batch output line as a Message Batch result line."""
    custom_id = line.get("custom_id")
    thinking, marked = kinds.get(custom_id, (False, False))
    error, response = line.get("error"), line.get("response")
    if error and error.get("code") == "batch_expired":
        result: dict = {"type": "expired"}
    elif response is None or response["status_code"] != 200:
        status = response["status_code"] if response else 500
        kind = "api_error" if status >= 500 else "invalid_request_error"
        message = f"HTTP {status}"
        result = {
            "type": "errored",
            "error": {"type": "error", "error": {"type": kind, "message": message}},
        }
    else:
        body = response["body"]
        choice = body["choices"][0]
        message = choice["message"]
        content: list[dict] = []
        if thinking:
            content.append(
                {"type": "thinking", "thinking": "Scripted reasoning.", "signature": "sig-fake"}
            )
        if message.get("content"):
            content.append({"type": "text", "text": message["content"]})
        for call in message.get("tool_calls") or []:
            try:
                arguments = json.loads(call["function"]["arguments"])
            except ValueError:  # cut arguments (a scripted fault): sent as text
                content.append({"type": "text", "text": call["function"]["arguments"]})
                continue
            content.append(
                {
                    "type": "tool_use",
                    "id": call["id"],
                    "name": call["function"]["name"],
                    "input": arguments,
                }
            )
        usage = body["usage"]
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
        counts = {
            "input_tokens": usage["prompt_tokens"] - (cached if marked else 0),
            "output_tokens": usage["completion_tokens"],
        }
        if marked:
            counts.update(cache_read_input_tokens=cached, cache_creation_input_tokens=0)
        result = {
            "type": "succeeded",
            "message": {
                "id": body["id"],
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": content,
                "stop_reason": _STOP_REASONS.get(choice["finish_reason"], "refusal"),
                "usage": counts,
            },
        }
    return json.dumps({"custom_id": custom_id, "result": result}).encode() + b"\n"


def _message_batch(batch: dict, base: str) -> dict:
    """The batch as Anthropic's Message Batch object."""
    status = {"cancelling": "canceling", "in_progress": "in_progress"}.get(batch["status"], "ended")
    ended = status == "ended" and batch["output_file_id"] is not None
    return {
        "id": batch["id"],
        "type": "message_batch",
        "processing_status": status,
        "request_counts": batch["request_counts"],
        "created_at": batch["created_at"],
        "results_url": f"{base}/messages/batches/{batch['id']}/results" if ended else None,
    }


def _bad_lines(kind: str | None, output: list[bytes]) -> list[bytes]:
    """The output file's lines with the scripted bad line, if any."""
    if not output or kind not in ("malformed_line", "unknown_custom_id", "duplicate_custom_id"):
        return output
    first = output[0]
    if kind == "malformed_line":
        return [first[: len(first) // 2] + b"\n", *output[1:]]
    if kind == "unknown_custom_id":
        line = json.loads(first)
        line["custom_id"] = "f" * 64  # a well-formed key this batch was never sent
        return [*output, json.dumps(line).encode() + b"\n"]
    line = json.loads(first)
    other = "an answer for another request"
    if "result" in line:  # a Message Batch's line
        line["result"]["message"]["content"] = [{"type": "text", "text": other}]
    else:
        line["response"]["body"]["choices"][0]["message"]["content"] = other
    return [*output, json.dumps(line).encode() + b"\n"]


def _custom_id(line: bytes) -> str | None:
    try:
        request = json.loads(line)
    except ValueError:
        return None
    value = request.get("custom_id") if isinstance(request, dict) else None
    return value if isinstance(value, str) else None


def _line(custom_id: str | None, response: tuple[int, dict] | None, error: str | None) -> bytes:
    record: dict = {"id": f"batch_req_{custom_id}", "custom_id": custom_id}
    if response is not None:
        status, body = response
        record["response"] = {"status_code": status, "request_id": "req-fake", "body": body}
    else:
        record["response"] = None
    record["error"] = (
        {"code": error, "message": "This request could not be executed before the window ended."}
        if error
        else None
    )
    return json.dumps(record, ensure_ascii=False).encode() + b"\n"


def _json(body: dict) -> web.Response:
    return web.Response(status=200, body=json.dumps(body).encode(), headers=_JSON)


def _error(status: int, message: str) -> web.Response:
    return web.Response(
        status=status, body=json.dumps(error_body(status, message)).encode(), headers=_JSON
    )
