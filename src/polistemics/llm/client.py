"""The one client layer every model call goes through.

It looks a call up in the run store first, coalesces identical calls in flight, bounds and adapts
concurrency per endpoint, retries transient faults with exponential backoff and jitter (honouring
``Retry-After``), enforces the run's cost cap, and commits each finished call (success or final
failure) to the store as it completes. Failures are returned as values, never raised.

Structured output (``ModelEndpoint.structured_output``) travels as the endpoint expects it:
``json_schema`` a strict ``response_format``, ``json_object`` a JSON response format carrying the
schema (llama.cpp), ``grammar`` a GBNF grammar, ``tool`` a single function tool whose parameters
are the schema, forced by ``tool_choice``; the call's text is then the tool call's arguments.
A reply without that tool call, or with arguments that are not a JSON object, is a content fault.

An endpoint with ``execution = "batch"`` sends the same request bodies through its provider's
batch API (``llm.batch``): a call waits for its batch's line, read by the same rules as an online
reply, retried in a later batch where an online call would be retried, and stored alike. A stage
can hand such calls over as data (``defer``): they then wait as records on disk, not as tasks.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from polistemics.llm.batch.anthropic import request_line as anthropic_line
from polistemics.llm.batch.collector import BatchCollector, BatchReply
from polistemics.llm.batch.deferred import BatchWaiter, FutureWaiter, Waiting
from polistemics.llm.batch.ledger import Ledger
from polistemics.llm.batch.wire import error_message, request_line
from polistemics.llm.call_writer import CallWriter
from polistemics.llm.grammar import schema_to_gbnf, strict_mode_schema, without_extensions
from polistemics.llm.keys import CallIdentity, request_params
from polistemics.llm.keys import messages_json as prompt_json
from polistemics.llm.limiter import AdaptiveLimiter
from polistemics.llm.redact import Redactor
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.replies import decode_json
from polistemics.llm.store import FinishedCall, RunStore
from polistemics.llm.stored_keys import StoredKeys
from polistemics.llm.transport import (
    ChatTransport,
    ConnectionFailed,
    HttpStatusError,
    MalformedBody,
    ReplyTooLarge,
    RequestTimeout,
    request_head,
)
from polistemics.llm.types import BudgetExceeded, CallResult, Message

ERROR_LIMIT = 600  # characters of an error message kept, after redaction
DEFAULT_SCHEMA_NAME = "output"
_SCHEMA_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # what OpenAI accepts as a function name


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6  # transient faults (429, 5xx, timeouts, connection, malformed bodies)
    content_attempts: int = 2  # empty / filtered / truncated answers: deterministic, so few
    base_delay: float = 1.0
    max_delay: float = 60.0
    max_retry_after: float = 300.0


@dataclass
class StageCounters:
    done: int = 0
    cached: int = 0
    errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0


@dataclass
class _Outcome:
    """What one HTTP attempt produced."""

    text: str | None = None
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_input_tokens: int = 0
    cost: float | None = None
    error: str | None = None
    retryable: bool = False
    content_fault: bool = False
    retry_after: float | None = None
    rate_limited: bool = False


ResultListener = Callable[[str, CallResult], None]


class LocalServers(Protocol):
    """The managed servers of the bundled local models (``local_server.LocalServerPool``)."""

    def calls_at_once(self, endpoint: ModelEndpoint) -> int: ...

    def checkout(self, endpoint: ModelEndpoint, prompt: str) -> str: ...

    def checkin(self, base_url: str) -> None: ...


@dataclass
class LLMClient:
    """Implements the ``Completer`` protocol of ``polistemics.llm.types``."""

    store: RunStore | None = None
    max_cost: float | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    local_servers: LocalServers | None = None  # for endpoints with provider "local"
    listeners: list[ResultListener] = field(default_factory=list)
    spent: float = 0.0
    counters: dict[str, StageCounters] = field(default_factory=dict)
    network_calls: int = 0

    def __post_init__(self) -> None:
        self._limiters: dict[str, AdaptiveLimiter] = {}
        self._transports: dict[tuple[str, str, str], ChatTransport] = {}
        self._inflight: dict[str, asyncio.Future[CallResult]] = {}
        self._redact = Redactor()  # the keys of the endpoints called, and their fragments
        self._writer = CallWriter(self.store.path) if self.store is not None else None
        # Keys the store holds (read once, then kept up to date by this client), so that a new
        # call costs no database read. Calls another process stores meanwhile are not seen.
        self._stored_keys = StoredKeys()
        if self.store is not None:
            self.spent = self.store.total_cost()
            self._stored_keys = StoredKeys.read(self.store)
        # Stored results asked for and not read yet: read together, one query at a time.
        self._lookups: list[tuple[str, asyncio.Future[CallResult | None]]] = []
        self._batches: BatchCollector | None = None  # made on the first call of a batch endpoint
        self._batch_waits: dict[str, Waiting] = {}  # key -> a call waiting for its batch
        # (id(endpoint), sample index) -> (endpoint, body, its JSON): see ``_request_body``.
        self._bodies: dict[tuple[int, int], tuple[ModelEndpoint, dict, str]] = {}

    # -- public ------------------------------------------------------------------------------

    async def complete(
        self,
        endpoint: ModelEndpoint,
        messages: list[Message],
        *,
        stage: str,
        sample_index: int = 0,
        json_schema: dict | None = None,
        grammar: str | None = None,
    ) -> CallResult:
        params = request_params(endpoint, json_schema=json_schema, grammar=grammar)
        identity = CallIdentity.of(endpoint, messages, params, sample_index)
        key = identity.key
        known = await self._known_result(key, stage)
        if known is not None:
            return known
        if endpoint.is_batch:  # it waits for its batch without its prompt's JSON (made again)
            identity = replace(identity, messages_json="")
        future: asyncio.Future[CallResult] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            result = await self._call(
                endpoint, identity, json_schema, grammar, sample_index, stage, messages
            )
            self.spent += self._cost_for_budget(endpoint, result)
            future.set_result(result)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._inflight[key]
        self._account(stage, result)
        return result

    async def _known_result(self, key: str, stage: str) -> CallResult | None:
        """The call's result, counted for ``stage``, when the store holds it or the same call is
        in flight (then shared, marked cached); None for a call to make."""
        if self.store is not None and key in self._stored_keys:
            stored = await self._stored(key)  # None: another call's key shares its prefix
            if stored is not None:
                self._account(stage, stored)
                return stored
        if key in self._inflight:
            result = replace(await asyncio.shield(self._inflight[key]), cached=True)
            self._account(stage, result)
            return result
        return None

    async def _stored(self, key: str) -> CallResult | None:
        """The stored result of a call, read in one query with those the other calls ask for at
        the same moment (a rerun looks up every call: a query each cost 3-4 times as much, and
        reading a stage's results at once held them all in memory, issue 32)."""
        loop = asyncio.get_running_loop()
        if not self._lookups:
            loop.call_soon(self._look_up)
        future: asyncio.Future[CallResult | None] = loop.create_future()
        self._lookups.append((key, future))
        return await future

    def _look_up(self) -> None:
        """Read the stored results asked for since the last lookup, and hand each out."""
        assert self.store is not None
        lookups, self._lookups = self._lookups, []
        try:
            found = self.store.get_calls(list(dict.fromkeys(key for key, _ in lookups)))
        except Exception as exc:  # every waiting call sees the store's error
            for _, future in lookups:
                if not future.done():
                    future.set_exception(exc)
            return
        for key, future in lookups:
            if not future.done():  # a cancelled call's is done already
                future.set_result(found.get(key))

    def limiter(self, endpoint: ModelEndpoint) -> AdaptiveLimiter:
        base = endpoint.resolved_base_url
        if base not in self._limiters:
            self._limiters[base] = AdaptiveLimiter(self.calls_at_once(endpoint))
        return self._limiters[base]

    def calls_at_once(self, endpoint: ModelEndpoint) -> int:
        """How many calls to the endpoint run at once: its ``max_concurrency``, or for a local
        model the number of servers it gets."""
        if endpoint.is_local and self.local_servers is not None:
            return self.local_servers.calls_at_once(endpoint)
        if endpoint.is_batch:  # a batch's worth wait together
            return endpoint.batch_max_requests
        return endpoint.max_concurrency

    @property
    def batches(self) -> BatchCollector | None:
        """The batch collector, once a batch endpoint has been called."""
        return self._batches

    async def aclose(self) -> None:
        if self._batches is not None:
            await self._batches.aclose()
        for transport in self._transports.values():
            await transport.close()
        self._transports.clear()
        if self._writer is not None:
            self._writer.close()

    # -- one call with retries ---------------------------------------------------------------

    async def _call(
        self,
        endpoint: ModelEndpoint,
        identity: CallIdentity,
        json_schema: dict | None,
        grammar: str | None,
        sample_index: int,
        stage: str,
        messages: list[Message],
    ) -> CallResult:
        self._check_budget()
        if endpoint.is_batch:
            return await self._batch_call(
                endpoint, identity, messages, json_schema, grammar, sample_index, stage
            )
        transport = self._transport(endpoint)  # raises MissingApiKey before any call
        local = self._local_servers(endpoint)
        limiter = self.limiter(endpoint)
        body, head = self._request_body(endpoint, json_schema, grammar, sample_index)
        # What is sent; the cache key and the stored prompt keep the messages as they are.
        wire_messages = (
            cache_marked(identity.messages_json)
            if endpoint.cache_control
            else identity.messages_json
        )
        attempts = content_attempts = 0
        started = time.monotonic()
        while True:
            attempts += 1
            async with limiter:
                if local is None:
                    t0 = time.monotonic()
                    outcome = await self._attempt(transport, endpoint, body, wire_messages, head)
                    latency_ms = (time.monotonic() - t0) * 1000
                else:
                    with self._server_for(local, endpoint, identity.messages_json) as base_url:
                        transport = self._transport_at(base_url, endpoint.api_key(), endpoint)
                        t0 = time.monotonic()
                        outcome = await self._attempt(
                            transport, endpoint, body, wire_messages, head
                        )
                        latency_ms = (time.monotonic() - t0) * 1000
                if outcome.rate_limited:
                    limiter.on_rate_limited()
                elif outcome.error is None:
                    limiter.on_success()
                content_attempts += outcome.content_fault
                if self._final(outcome, attempts, content_attempts):
                    result = self._result(
                        endpoint, identity, outcome, attempts, latency_ms, started
                    )
                    # Committed while the call still holds its slot: a SIGKILL loses only calls
                    # that hold slots, so a resumed run repeats no more calls than were in flight.
                    await self._commit(result, stage, identity, sample_index)
                    return result
            await asyncio.sleep(self._delay(attempts, outcome.retry_after))

    async def _batch_call(
        self,
        endpoint: ModelEndpoint,
        identity: CallIdentity,
        messages: list[Message],
        json_schema: dict | None,
        grammar: str | None,
        sample_index: int,
        stage: str,
    ) -> CallResult:
        """One awaited call of a batch endpoint: handed over as data like a deferred one, its
        result awaited. While it waits its line and prompt's JSON are on disk only
        (``identity`` comes without the JSON: it is made from ``messages`` for the record)."""
        future: asyncio.Future[CallResult] = asyncio.get_running_loop().create_future()
        await self._wait_in_batch(
            endpoint,
            replace(identity, messages_json=prompt_json(messages)),
            json_schema,
            grammar,
            sample_index,
            stage,
            FutureWaiter(future),
            None,
        )
        return await future

    # -- calls handed over as data (batch endpoints) -------------------------------------------

    async def defer(
        self,
        endpoint: ModelEndpoint,
        messages: list[Message],
        *,
        stage: str,
        waiter: BatchWaiter,
        context: Any = None,
        sample_index: int = 0,
        json_schema: dict | None = None,
        grammar: str | None = None,
    ) -> None:
        """A call of a batch endpoint handed over as data: returns once it is queued (or, when
        its result is stored already, once ``waiter.done`` has run). The call and ``context``
        (JSON) wait on disk (``llm.batch.journal``), not as a task: when its batch's line comes,
        the result is read as ``complete`` reads it (retried in a later batch where that would
        retry), stored, counted, and handed to ``waiter.done(result, context)``."""
        if not endpoint.is_batch:
            raise ValueError(f"model '{endpoint.name}' does not run in batches")
        params = request_params(endpoint, json_schema=json_schema, grammar=grammar)
        identity = CallIdentity.of(endpoint, messages, params, sample_index)
        # Stored, or awaited by ``complete`` already (its result is shared).
        known = await self._known_result(identity.key, stage)
        if known is not None:
            await waiter.done(known, context)
            return
        self._check_budget()
        await self._wait_in_batch(
            endpoint, identity, json_schema, grammar, sample_index, stage, waiter, context
        )

    def _batch_collector(self) -> BatchCollector:
        if self._batches is None:
            ledger = Ledger(self.store.path) if self.store is not None else None
            self._batches = BatchCollector(
                ledger, deliver=self._batch_replies, fail=self._batch_failed
            )
        return self._batches

    async def _wait_in_batch(
        self,
        endpoint: ModelEndpoint,
        identity: CallIdentity,
        json_schema: dict | None,
        grammar: str | None,
        sample_index: int,
        stage: str,
        waiter: BatchWaiter,
        context: Any,
    ) -> None:
        """Write the call's record to the journal and its line to its batch."""
        self._redact.add(endpoint.api_key())  # raises MissingApiKey before any batch
        journal = self._batch_collector().journal
        header: dict = {"stage": stage, "context": context}
        waiting = self._batch_waits.get(identity.key)
        if waiting is not None:  # the same call waits already: this waiter waits with it
            waiting.more = [*(waiting.more or ()), (waiter, journal.write(header, ""))]
            return
        header.update(
            endpoint=endpoint.name,
            sample=sample_index,
            schema=json_schema,
            grammar=grammar,
            params=identity.params_json,
            attempts=0,
            content_attempts=0,
            started=time.monotonic(),
        )
        place = journal.write(header, identity.messages_json)
        self._batch_waits[identity.key] = Waiting(place, endpoint, waiter)
        await self._send_in_batch(endpoint, identity.key, header, identity.messages_json)

    async def _send_in_batch(
        self, endpoint: ModelEndpoint, key: str, header: dict, messages_json: str
    ) -> None:
        body = self._body(endpoint, header["schema"], header["grammar"], header["sample"])
        line = _batch_line(endpoint, key, body, messages_json)
        assert self._batches is not None
        ready = self._batches.submit(endpoint, key, line)
        if ready is not None:  # read from an earlier run's batch before it was asked for
            await self._batch_replies([(key, ready)])

    async def _batch_replies(self, replies: list[tuple[str, BatchReply]]) -> None:
        """The replies of a batch, a few thousand at a time (``BatchCollector``): each call's
        result stored and handed on, or the call sent again."""
        await asyncio.gather(*(self._batch_reply(key, reply) for key, reply in replies))

    async def _batch_reply(self, key: str, reply: BatchReply) -> None:
        waiting = self._batch_waits.get(key)
        if waiting is None or self._batches is None:
            return
        journal = self._batches.journal
        endpoint = waiting.endpoint
        try:
            header, messages_json = journal.read(waiting.place)
            body = self._body(endpoint, header["schema"], header["grammar"], header["sample"])
            self.network_calls += reply.sent
            outcome = _batch_outcome(reply, endpoint, forced_tool(body))
            del reply
            header["attempts"] += 1
            header["content_attempts"] += outcome.content_fault
            if not self._final(outcome, header["attempts"], header["content_attempts"]):
                journal.release(waiting.place)  # sent again, with its attempts so far
                waiting.place = journal.write(header, messages_json)
                await self._send_in_batch(endpoint, key, header, messages_json)
                return
            identity = CallIdentity(key, messages_json, header["params"])
            started = header["started"]
            latency_ms = (time.monotonic() - started) * 1000
            result = self._result(
                endpoint, identity, outcome, header["attempts"], latency_ms, started
            )
            del outcome, body
            await self._commit(result, header["stage"], identity, header["sample"])
            self._batches.stored(key)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # the store's error, say: every waiter of the call sees it
            self._batch_failed([key], exc)
            return
        del self._batch_waits[key]
        journal.release(waiting.place)
        waiters = [(waiting.waiter, header["stage"], header["context"])]
        for waiter, place in waiting.more or ():
            more, _ = journal.read(place)
            journal.release(place)
            waiters.append((waiter, more["stage"], more["context"]))
        for number, (waiter, stage, context) in enumerate(waiters):
            handed = result if number == 0 else replace(result, cached=True)
            if not getattr(waiter, "accounts_itself", False):
                if number == 0:
                    self.spent += self._cost_for_budget(endpoint, result)
                self._account(stage, handed)
            try:
                await waiter.done(handed, context)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # what the waiter does next failed: it is told
                waiter.failed(exc, context)

    def _batch_failed(self, keys: list[str], exc: BaseException) -> None:
        """The calls of ``keys`` will get no result (the batch API is lost): their waiters
        are told."""
        journal = self._batches.journal if self._batches is not None else None
        for key in keys:
            waiting = self._batch_waits.pop(key, None)
            if waiting is None or journal is None:
                continue
            places = [(waiting.waiter, waiting.place), *(waiting.more or ())]
            for waiter, place in places:
                header, _ = journal.read(place)
                journal.release(place)
                waiter.failed(exc, header["context"])

    def _check_budget(self) -> None:
        if self.max_cost is not None and self.spent >= self.max_cost:
            raise BudgetExceeded(
                f"cost cap of ${self.max_cost:.2f} reached (spent ${self.spent:.4f}); "
                "finished calls are stored: rerun with a higher --max-cost to continue"
            )

    def _final(self, outcome: _Outcome, attempts: int, content_attempts: int) -> bool:
        """Whether this attempt's outcome is the call's result (no retry follows)."""
        if outcome.error is None:
            return True
        if outcome.content_fault:
            return content_attempts >= self.retry.content_attempts
        return not outcome.retryable or attempts >= self.retry.max_attempts

    async def _commit(
        self, result: CallResult, stage: str, identity: CallIdentity, sample_index: int
    ) -> None:
        if self._writer is None:
            return
        await self._writer.put(
            FinishedCall(
                result,
                stage,
                None,  # the messages' hash: made by the writer's thread
                identity.params_json,
                sample_index,
                identity.messages_json,
            )
        )
        self._stored_keys.add(identity.key)

    def _result(
        self,
        endpoint: ModelEndpoint,
        identity: CallIdentity,
        outcome: _Outcome,
        attempts: int,
        latency_ms: float,
        started: float,
    ) -> CallResult:
        status = "ok" if outcome.error is None else "error"
        return CallResult(
            key=identity.key,
            endpoint=endpoint.name,
            model=endpoint.model,
            status=status,
            # Redacted before anything is cut: a cut must not leave a piece of a key behind.
            text=self._redact(outcome.text) if outcome.text else outcome.text,
            finish_reason=_clip(self._redact(outcome.finish_reason))
            if outcome.finish_reason
            else outcome.finish_reason,
            error=_clip(self._redact(outcome.error)) if outcome.error else None,
            input_tokens=outcome.input_tokens,
            output_tokens=outcome.output_tokens,
            reasoning_tokens=outcome.reasoning_tokens,
            cached_input_tokens=outcome.cached_input_tokens,
            cost=outcome.cost,
            latency_ms=latency_ms if status == "ok" else (time.monotonic() - started) * 1000,
            attempts=attempts,
        )

    async def _attempt(
        self,
        transport: ChatTransport,
        endpoint: ModelEndpoint,
        body: dict,
        messages_json: str,
        head: str,
    ) -> _Outcome:
        self.network_calls += 1
        try:
            response = await transport.post(body, messages_json, head=head)
        except HttpStatusError as exc:
            code = exc.status
            if code == 429:
                return _Outcome(
                    error=f"rate limited (HTTP 429): {exc.message}",
                    retryable=True,
                    rate_limited=True,
                    retry_after=_retry_after(exc.headers),
                )
            return _Outcome(
                error=str(exc),
                retryable=code >= 500 or code in (408, 409, 425),
                retry_after=_retry_after(exc.headers),
            )
        except RequestTimeout as exc:
            return _Outcome(error=str(exc), retryable=True)
        except ConnectionFailed as exc:
            return _Outcome(error=f"connection error: {exc}", retryable=True)
        except MalformedBody as exc:
            return _Outcome(error=f"malformed response body: {exc}", retryable=True)
        except ReplyTooLarge as exc:  # not retried: the provider would send it again
            return _Outcome(error=str(exc))
        return _read_response(response, endpoint, forced_tool(body))

    def _request_body(
        self,
        endpoint: ModelEndpoint,
        json_schema: dict | None,
        grammar: str | None,
        sample_index: int,
    ) -> tuple[dict, str]:
        """The request body without its messages, and its JSON. Every call of an endpoint and
        sample index without an output constraint (every answer, every free-text judge call)
        sends the same: made once and remembered (the endpoint is kept with it, so that its
        ``id`` cannot name another endpoint meanwhile). Not to be changed by the caller."""
        if json_schema is not None or grammar is not None:
            body = self._body(endpoint, json_schema, grammar, sample_index)
            return body, request_head(body)
        known = self._bodies.get((id(endpoint), sample_index))
        if known is None or known[0] is not endpoint:
            body = self._body(endpoint, None, None, sample_index)
            known = (endpoint, body, request_head(body))
            self._bodies[(id(endpoint), sample_index)] = known
        return known[1], known[2]

    def _body(
        self,
        endpoint: ModelEndpoint,
        json_schema: dict | None,
        grammar: str | None,
        sample_index: int = 0,
    ) -> dict:
        """The request body without its messages (the transport adds them, already as JSON)."""
        body: dict = {
            "model": endpoint.model,
            "temperature": endpoint.temperature,
            "max_tokens": endpoint.max_tokens,
        }
        if endpoint.top_p is not None:
            body["top_p"] = endpoint.top_p
        if endpoint.seed is not None:
            # Each sample (and each retry of a rejected output) draws with its own seed, so
            # sampling at temperature > 0 is reproducible yet retries can differ.
            body["seed"] = endpoint.seed + sample_index
        extra: dict = dict(endpoint.extra_body)
        if endpoint.reasoning and endpoint.reasoning.to_body():
            extra["reasoning"] = endpoint.reasoning.to_body()
        if endpoint.provider == "openrouter":
            extra.setdefault("usage", {"include": True})  # OpenRouter's cost accounting
        if endpoint.is_local:
            # llama.cpp's default repeat penalty (1.1) makes repeated prompts differ.
            extra.setdefault("repeat_penalty", 1.0)
        if json_schema is not None and endpoint.structured_output != "grammar":
            json_schema = without_extensions(json_schema)
            if endpoint.structured_output == "json_schema":
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {
                        "name": schema_name(json_schema),
                        "schema": strict_mode_schema(json_schema),
                        "strict": True,
                    },
                }
            elif endpoint.structured_output == "tool":
                body.update(tool_request(json_schema))
            elif endpoint.structured_output == "json_object":
                # llama.cpp enforces the schema given inside a json_object response format.
                body["response_format"] = {"type": "json_object", "schema": json_schema}
        elif endpoint.structured_output == "grammar" and (grammar or json_schema):
            extra["grammar"] = grammar or schema_to_gbnf(json_schema)
        body.update(extra)  # provider-specific fields travel at the top level of the JSON body
        return body

    def _transport(self, endpoint: ModelEndpoint) -> ChatTransport | None:
        """The endpoint's transport; None for a local model, whose server is picked per call."""
        api_key = endpoint.api_key()
        if endpoint.is_local:
            return None
        self._redact.add(api_key)
        return self._transport_at(endpoint.resolved_base_url, api_key, endpoint)

    def _transport_at(self, base_url: str, api_key: str, endpoint: ModelEndpoint) -> ChatTransport:
        # One transport (and connection pool) per server and endpoint entry.
        cache_key = (base_url, api_key, endpoint.name)
        if cache_key not in self._transports:
            self._transports[cache_key] = ChatTransport(
                base_url,
                api_key,
                timeout=endpoint.timeout,
                connections=endpoint.max_concurrency,
            )
        return self._transports[cache_key]

    def _local_servers(self, endpoint: ModelEndpoint) -> LocalServers | None:
        if not endpoint.is_local:
            return None
        if self.local_servers is None:
            raise RuntimeError(
                f"model '{endpoint.name}' is local but no local server manager is set"
            )
        return self.local_servers

    @staticmethod
    @contextmanager
    def _server_for(local: LocalServers, endpoint: ModelEndpoint, prompt: str) -> Iterator[str]:
        """A local model's server for one attempt."""
        base_url = local.checkout(endpoint, prompt)
        try:
            yield base_url
        finally:
            local.checkin(base_url)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = min(self.retry.max_delay, self.retry.base_delay * 2 ** (attempt - 1))
        jittered = random.uniform(0, backoff)  # full jitter spreads retries of many callers
        if retry_after is not None:
            return min(self.retry.max_retry_after, retry_after) + jittered * 0.1
        return jittered

    def _cost_for_budget(self, endpoint: ModelEndpoint, result: CallResult) -> float:
        if result.cost is not None:
            return result.cost
        return (
            endpoint.estimate_cost(
                result.input_tokens, result.output_tokens, result.cached_input_tokens
            )
            or 0.0
        )

    def _account(self, stage: str, result: CallResult) -> None:
        counters = self.counters.setdefault(stage, StageCounters())
        counters.done += 1
        counters.cached += result.cached
        counters.errors += not result.ok
        counters.input_tokens += result.input_tokens
        counters.output_tokens += result.output_tokens
        counters.cost += result.cost or 0.0
        for listener in self.listeners:
            listener(stage, result)


def reply_result(key: str, endpoint: ModelEndpoint, reply: dict, body: dict) -> ReadReply:
    """A reply that came by another road than this client (an offline batch's output line),
    read exactly as an online reply to ``body`` is: its result as one attempt, and whether a
    run would store it (a usable reply, or a content fault: empty, filtered, cut off, no tool
    call). A malformed reply, which an online call would ask again, is not to be stored."""
    outcome = _read_response(reply, endpoint, forced_tool(body))
    result = CallResult(
        key=key,
        endpoint=endpoint.name,
        model=endpoint.model,
        status="ok" if outcome.error is None else "error",
        text=outcome.text,
        finish_reason=_clip(outcome.finish_reason) if outcome.finish_reason else None,
        error=_clip(outcome.error) if outcome.error else None,
        input_tokens=outcome.input_tokens,
        output_tokens=outcome.output_tokens,
        reasoning_tokens=outcome.reasoning_tokens,
        cached_input_tokens=outcome.cached_input_tokens,
        cost=outcome.cost,
        attempts=1,
    )
    return ReadReply(result, outcome.error is None or outcome.content_fault)


@dataclass(frozen=True)
class ReadReply:
    """``reply_result``'s answer: the call's result and whether a run would store it."""

    result: CallResult
    storable: bool


def _clip(text: str) -> str:
    return text if len(text) <= ERROR_LIMIT else text[: ERROR_LIMIT - 1] + "…"


def _retry_after(headers: Mapping[str, str] | None) -> float | None:
    if not headers:
        return None
    if value := headers.get("retry-after-ms"):
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def schema_name(schema: dict) -> str:
    """The schema's ``title`` when it is usable as a function name, else ``"output"``."""
    title = schema.get("title")
    return title if isinstance(title, str) and _SCHEMA_NAME.match(title) else DEFAULT_SCHEMA_NAME


def tool_request(schema: dict) -> dict:
    """``tools`` with one function whose parameters are ``schema``, and ``tool_choice`` forcing it."""
    name = schema_name(schema)
    function: dict = {"name": name, "parameters": schema}
    if isinstance(schema.get("description"), str):
        function["description"] = schema["description"]
    return {
        "tools": [{"type": "function", "function": function}],
        "tool_choice": {"type": "function", "function": {"name": name}},
    }


CACHE_BREAKPOINT = {"type": "ephemeral"}


def cache_marked(messages_json: str) -> str:
    """The messages with their system message marked as a prompt-cache breakpoint, the way
    Anthropic's API (and OpenRouter, passing it on to Anthropic and Gemini models) takes one:
    its text as a single content part carrying ``cache_control``. Every call of a stage that
    shares the system message then reads it from the provider's cache. Messages without a
    system message of plain text are sent as they are."""
    messages = json.loads(messages_json)
    for message in messages:
        if message.get("role") == "system" and isinstance(message.get("content"), str):
            message["content"] = [
                {"type": "text", "text": message["content"], "cache_control": CACHE_BREAKPOINT}
            ]
            return json.dumps(messages, ensure_ascii=False)
    return messages_json


def forced_tool(body: dict) -> str | None:
    """The function name a request's ``tool_choice`` forces, if any."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and isinstance(choice.get("function"), dict):
        name = choice["function"].get("name")
        return name if isinstance(name, str) else None
    return None


def _tool_arguments(message: dict, tool: str) -> tuple[str | None, str | None]:
    """(arguments as JSON text, None) from the forced tool call, or (None, why it is unusable)."""
    calls = message.get("tool_calls")
    functions = [
        call.get("function")
        for call in (calls if isinstance(calls, list) else [])
        if isinstance(call, dict) and isinstance(call.get("function"), dict)
    ]
    if not functions:
        return None, f"no tool call in the reply (tool_choice forced '{tool}')"
    chosen = [f for f in functions if f.get("name") == tool]
    if not chosen:
        return None, f"the reply calls another tool than the forced '{tool}'"
    if len(chosen) > 1:
        return None, f"the reply calls '{tool}' {len(chosen)} times"
    arguments = chosen[0].get("arguments")
    if isinstance(arguments, dict):  # some providers send the object itself
        return json.dumps(arguments, ensure_ascii=False), None
    # The replies leaf's decoder: depth-limited, so arguments nested too deeply are not an object.
    if isinstance(arguments, str) and isinstance(decode_json(arguments), dict):
        return arguments, None
    return None, f"the arguments of the '{tool}' tool call are not a JSON object"


def _object(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _token_count(value: object) -> int:
    """A reply's token count; anything but a whole number of at least 0 counts as 0.

    Never ``int()`` of what the provider sent: a text there may be anything, a key included,
    and the error would print it.
    """
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value if 0 <= value < 2**63 else 0
    if isinstance(value, float) and math.isfinite(value) and 0 <= value < 2**63:
        return int(value)
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 19:
        return int(value)
    return 0


def cached_prompt_tokens(data: dict, prompt_tokens: int) -> int:
    """The prompt tokens a reply says came from the provider's prompt cache, at most
    ``prompt_tokens``: OpenAI's and OpenRouter's ``usage.prompt_tokens_details.cached_tokens``,
    else llama.cpp's ``timings.cache_n`` (prompt tokens its server reused from the slot's
    cache); 0 when the reply says nothing."""
    details = _object(_object(data.get("usage")).get("prompt_tokens_details"))
    cached = _token_count(details.get("cached_tokens"))
    if not cached and "cached_tokens" not in details:
        cached = _token_count(_object(data.get("timings")).get("cache_n"))
    return min(cached, prompt_tokens)


def _usable_cost(value: object) -> float | None:
    """A reported cost when it is a finite number of at least 0, else None (then estimated).

    A NaN or negative cost would switch the cost cap off and corrupt the totals.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    cost = float(value) if not isinstance(value, int) or abs(value) < 2**63 else math.inf
    return cost if math.isfinite(cost) and cost >= 0 else None


def _batch_line(endpoint: ModelEndpoint, key: str, body: dict, messages_json: str) -> bytes:
    """A call's line in its endpoint's batch format; Anthropic's with its cache markers in
    Anthropic's own form (``batch.anthropic``) when ``cache_control`` is on."""
    if endpoint.batch_api != "anthropic":
        return request_line(key, body, messages_json)
    return anthropic_line(
        key, body, cache_marked(messages_json) if endpoint.cache_control else messages_json
    )


def _batch_outcome(reply: BatchReply, endpoint: ModelEndpoint, tool: str | None) -> _Outcome:
    """A batch's reply read as an online attempt's outcome; the cost, when the reply reports
    none, estimated at the batch price."""
    line = reply.result
    if line is None:
        return _Outcome(error=reply.why, retryable=reply.retryable)
    status = line.status_code
    retryable = status is None or status >= 500 or status in (408, 409, 425, 429)
    if line.error is not None:
        reason = line.error_code or f"HTTP {status}"
        return _Outcome(error=f"batch request failed ({reason}): {line.error}", retryable=retryable)
    assert line.body is not None
    if status is None or status >= 300:
        return _Outcome(
            error=f"HTTP {status}: {error_message(line.body)}",
            retryable=retryable,
            rate_limited=status == 429,
        )
    outcome = _read_response(line.body, endpoint, tool)
    if _usable_cost(_object(line.body.get("usage")).get("cost")) is None:
        outcome.cost = endpoint.estimate_batch_cost(outcome.input_tokens, outcome.output_tokens)
    return outcome


def _read_response(data: dict, endpoint: ModelEndpoint, tool: str | None = None) -> _Outcome:
    choices = data.get("choices")
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        return _Outcome(error="malformed response: no choices", retryable=True)
    choice = choices[0]
    message = choice.get("message") or {}
    if not isinstance(message, dict):
        return _Outcome(error="malformed response: message is not an object", retryable=True)
    text = message.get("content")
    finish = choice.get("finish_reason")
    finish = finish if isinstance(finish, str) else None  # an object here is not a reason
    outcome = _Outcome(text=text if isinstance(text, str) else None, finish_reason=finish)
    usage = _object(data.get("usage"))
    outcome.input_tokens = _token_count(usage.get("prompt_tokens"))
    outcome.output_tokens = _token_count(usage.get("completion_tokens"))
    details = _object(usage.get("completion_tokens_details"))
    outcome.reasoning_tokens = _token_count(details.get("reasoning_tokens"))
    outcome.cached_input_tokens = cached_prompt_tokens(data, outcome.input_tokens)
    outcome.cost = _usable_cost(usage.get("cost"))
    if outcome.cost is None:
        outcome.cost = endpoint.estimate_cost(
            outcome.input_tokens, outcome.output_tokens, outcome.cached_input_tokens
        )
    if tool is not None:
        arguments, fault = _tool_arguments(message, tool)
        if fault is not None:
            if finish == "length":
                fault += f" (cut off at max_tokens={endpoint.max_tokens}, finish_reason=length)"
            outcome.error, outcome.content_fault = fault, True
            return outcome  # the reply's text, if any, is kept for the record
        outcome.text = arguments
        return outcome
    if not (outcome.text or "").strip():
        reasoning = message.get("reasoning") or message.get("reasoning_content")
        if finish == "content_filter":
            outcome.error = (
                "refused by the provider's content filter (finish_reason=content_filter)"
            )
        elif reasoning:
            outcome.error = (
                "reasoning only, no answer content (raise max_tokens or lower reasoning)"
            )
        elif finish == "length":
            outcome.error = "no content before max_tokens was reached (finish_reason=length)"
        else:
            outcome.error = "empty content"
        outcome.content_fault = True
    elif finish == "length" and not endpoint.accept_truncated:
        outcome.error = f"answer cut off at max_tokens={endpoint.max_tokens} (finish_reason=length)"
        outcome.content_fault = True
    return outcome
