"""Gathers the calls of batch endpoints into batches, sends them, polls them and hands each
call its result.

The client layer calls ``submit`` for each request of a batch endpoint; nothing awaits it. Each
request's line goes straight into its endpoint's next batch file on disk (``spool``; the
collector keeps only the request's key), until none has joined it for ``batch_flush_seconds``,
or one more line would pass the provider's limits (``batch_max_requests``, ``batch_max_bytes``).
The file is then uploaded from disk, made a batch, and recorded in the run's ledger at once,
before it is polled. When a batch ends, its output and error files are downloaded to disk and
read a line at a time (``wire.read_lines``), and the requests' replies go to the client's
``deliver`` a few thousand at a time (``HANDED_AT_ONCE``), which stores them and goes on from them
before more are read; a request without a usable line (expired, cancelled, refused line) gets a
*missing* reply, and the client sends it again in a later batch. When a batch cannot be sent or
polled, its waiting requests go to the client's ``fail``.

A request whose key is in an open batch of the ledger (a run killed while its batches ran)
awaits that batch instead of being sent again. Results read for keys no call has asked for yet
are kept until asked for; a result is only ever handed to the call with the key it was sent
under, so a prompt that has changed since (another key) never receives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from itertools import count
from pathlib import Path

from polistemics.llm.batch import spool
from polistemics.llm.batch.anthropic import parse_line as anthropic_line
from polistemics.llm.batch.api import AnthropicBatchAPI, BatchAPI
from polistemics.llm.batch.journal import Journal
from polistemics.llm.batch.ledger import TERMINAL, Ledger
from polistemics.llm.batch.wire import CHAT_PATH, LineResult, parse_line, read_lines
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.transport import HttpStatusError, TransportError

MAX_POLL_SECONDS = 300.0
POLL_FAILURES = 5  # rounds of ``API_ATTEMPTS`` failed polls (or downloads) before the run stops
POLL_GROWTH = 1.5
HOLD_FACTOR = 30  # a queue that keeps growing is sent after this many flush periods anyway
API_ATTEMPTS = 6  # tries of one upload, create, retrieve or download
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
HANDED_AT_ONCE = 2000  # results handed to their calls before the next ones are read
_ANTHROPIC_STATUS = {"in_progress": "in_progress", "canceling": "cancelling", "ended": "completed"}


class BatchUnavailable(RuntimeError):
    """The batch API could not be reached for long: the run stops, its batches stay open in
    the ledger, and a rerun polls them again."""


@dataclass(frozen=True)
class BatchReply:
    """What a batch said about one request: its line (``result``), or why there is none.

    ``sent`` says whether this reply's request was sent by this process (False: it was found in
    an open batch of an earlier, killed run)."""

    result: LineResult | None = None
    why: str = ""
    retryable: bool = True
    batch_id: str = ""
    sent: bool = True


@dataclass
class BatchCounters:
    batches: int = 0
    requests_sent: int = 0
    resubmitted: int = 0
    awaited_open: int = 0  # requests found in an open batch of an earlier run, not sent again
    refused_lines: Counter[str] = field(default_factory=Counter)
    missing: int = 0


@dataclass
class _Queue:
    """An endpoint's next batch: its file being written, and the keys of its lines."""

    endpoint: ModelEndpoint
    file: spool.SpoolFile | None = None
    keys: list[str] = field(default_factory=list)
    first: float = 0.0
    last: float = 0.0
    task: asyncio.Task | None = None


ApiFactory = Callable[[ModelEndpoint, str, float], BatchAPI]
Deliver = Callable[[list[tuple[str, BatchReply]]], Awaitable[None]]
Fail = Callable[[list[str], BaseException], None]


def _default_api(endpoint: ModelEndpoint, api_key: str, timeout: float) -> BatchAPI:
    kind = AnthropicBatchAPI if endpoint.batch_api == "anthropic" else BatchAPI
    return kind(endpoint.resolved_base_url, api_key, timeout=timeout)


class BatchCollector:
    """See the module doc. ``ledger`` None: nothing is recorded (a client without a store).
    The batches' files go to ``folder``: by default the run directory's ``batches/`` (beside
    the ledger's store), or a temporary folder without a ledger."""

    def __init__(
        self,
        ledger: Ledger | None,
        deliver: Deliver,
        fail: Fail,
        api_factory: ApiFactory = _default_api,
        folder: Path | None = None,
    ):
        self.ledger = ledger
        self._deliver_replies = deliver
        self._fail_keys = fail
        if folder is None and ledger is not None:
            folder = ledger.path.parent / spool.BATCH_FOLDER
        self._own_folder = folder is None  # a temporary folder, removed at the end
        self._folder = folder
        self._files = count(1)
        self._cleared = False
        self.counters = BatchCounters()
        self._api_factory = api_factory
        self._apis: dict[tuple[str, str, str], BatchAPI] = {}
        self._queues: dict[str, _Queue] = {}
        self._waiting: set[str] = set()  # keys submitted whose reply is not delivered yet
        self._journal: Journal | None = None
        self._ready: dict[str, BatchReply] = {}  # read, not yet asked for
        self._open: dict[str, str] | None = None  # key -> open batch not yet read (lazy)
        self._sent: set[str] = set()  # keys ever sent in a batch
        self._pending: dict[str, set[str]] = {}  # batch id -> keys whose result is not stored
        self._batch_of: dict[str, str] = {}  # key -> the batch its result came from
        self._polling: dict[str, asyncio.Task] = {}
        self._created: set[str] = set()  # batches this process created
        self._handing = 0  # replies being handed to the client now
        self._tasks: set[asyncio.Task] = set()

    # -- the client's side ---------------------------------------------------------------------

    def submit(self, endpoint: ModelEndpoint, key: str, line: bytes) -> BatchReply | None:
        """Send one request (``line``, whose ``custom_id`` is ``key``) in a batch: its reply
        goes to ``deliver`` when its batch ends. A reply that is here already (read from an
        earlier run's batch before this request was made) is returned instead."""
        self._load()
        assert self._open is not None
        if key in self._ready:  # read from an earlier run's batch before this call asked
            self.counters.awaited_open += 1
            return replace(self._ready.pop(key), sent=False)
        self._waiting.add(key)
        batch_id = self._open.get(key)
        if batch_id is not None:
            self.counters.awaited_open += 1
            self._poll_stored(batch_id, endpoint)
            return None
        self._enqueue(endpoint, key, line)
        return None

    @property
    def journal(self) -> Journal:
        """Where the client keeps its waiting calls' records: beside the batches' files."""
        if self._journal is None:
            self._journal = Journal(self._path("journal").parent)
        return self._journal

    def stored(self, key: str) -> None:
        """The result of ``key`` is in the store: its batch closes once all of its are."""
        batch_id = self._batch_of.pop(key, None)
        if batch_id is not None:
            self._settle(batch_id, key)

    async def aclose(self) -> None:
        tasks = [*self._tasks, *self._polling.values()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        for api in self._apis.values():
            await api.close()
        self._apis.clear()
        for queue in self._queues.values():
            if queue.file is not None:
                queue.file.discard()
                queue.file = None
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        if self._own_folder and self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
        if self.ledger is not None:
            self.ledger.close()

    # -- queueing ------------------------------------------------------------------------------

    def _load(self) -> None:
        if self._open is not None:
            return
        if self.ledger is None:
            self._open = {}
            return
        self.ledger.close_stored()
        self._open = self.ledger.open_requests()
        self._sent = self.ledger.sent_keys()

    def _path(self, kind: str, suffix: str = "") -> Path:
        """A new file name in the batches' folder (made, and emptied of a killed run's files,
        on first use)."""
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="polistemics-batches-"))
        elif not self._cleared:
            spool.clear(self._folder)
            self._folder.mkdir(parents=True, exist_ok=True)
        self._cleared = True
        return self._folder / f"{kind}-{os.getpid()}-{next(self._files)}{suffix}"

    def _enqueue(self, endpoint: ModelEndpoint, key: str, line: bytes) -> None:
        if key in self._sent:
            self.counters.resubmitted += 1
        earlier = self._batch_of.pop(key, None)
        if earlier is not None:  # its result there was not used: it no longer holds that batch
            self._settle(earlier, key)
        now = asyncio.get_running_loop().time()
        queue = self._queues.setdefault(endpoint.name, _Queue(endpoint))
        if queue.file is not None and queue.file.size + len(line) > endpoint.batch_max_bytes:
            self._flush(queue)  # the file is a batch's worth: it goes before this line joins
        if queue.file is None:
            anthropic = endpoint.batch_api == "anthropic"
            queue.file = spool.SpoolFile(self._path("input"), anthropic=anthropic)
            queue.first = now
        queue.file.add(line)
        queue.keys.append(key)
        queue.last = now
        if queue.file.lines >= endpoint.batch_max_requests:
            self._flush(queue)
        elif queue.task is None or queue.task.done():
            queue.task = self._spawn(self._flush_when_idle(queue))

    async def _flush_when_idle(self, queue: _Queue) -> None:
        loop = asyncio.get_running_loop()
        period = queue.endpoint.batch_flush_seconds
        while queue.file is not None:
            due = min(queue.last + period, queue.first + period * HOLD_FACTOR)
            wait = due - loop.time()
            if wait <= 0 and self._handing and loop.time() < queue.first + period * HOLD_FACTOR:
                # A batch's results are being stored and gone on from: the requests they make
                # (judge calls on answers just in) join this batch rather than a batch each.
                wait = period
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            self._flush(queue)

    def _flush(self, queue: _Queue) -> None:
        file, keys = queue.file, queue.keys
        queue.file, queue.keys = None, []
        if file is not None:
            self._spawn(self._send(queue.endpoint, keys, file.finish()))

    def _spawn(self, coroutine) -> asyncio.Task:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- one batch -----------------------------------------------------------------------------

    async def _send(self, endpoint: ModelEndpoint, keys: list[str], path: Path) -> None:
        """Upload the batch file at ``path`` (removed once sent), create the batch, record it,
        and poll it until its results are handed out."""
        try:
            api = self._api(endpoint)
            try:
                base = _base_delay(endpoint)
                if isinstance(api, AnthropicBatchAPI):  # no file: the requests go in the body
                    file_id = ""
                    batch = await _retried(lambda: api.create_messages(path), base)
                else:
                    file_id = await _retried(
                        lambda: api.upload(path, "polistemics-batch.jsonl"), base
                    )
                    batch = await _retried(
                        lambda: api.create(
                            file_id, CHAT_PATH, endpoint.batch_window, {"source": "polistemics"}
                        ),
                        base,
                    )
            except HttpStatusError as exc:
                if _retryable(exc.status):
                    raise _unavailable(endpoint, exc) from exc
                # The provider refuses the batch itself (too large, malformed): the calls' error.
                reply = BatchReply(why=f"batch not created: {exc}", retryable=False)
                await self._hand((key, reply) for key in keys)
                return
            except TransportError as exc:
                raise _unavailable(endpoint, exc) from exc
            finally:
                path.unlink(missing_ok=True)
            batch_id = batch["id"]
            # Recorded before anything else: a run killed from here on polls this batch again.
            if self.ledger is not None:
                self.ledger.record(
                    batch_id,
                    endpoint=endpoint.name,
                    base_url=endpoint.resolved_base_url,
                    model=endpoint.model,
                    input_file_id=file_id,
                    status=_status(batch),
                    keys=keys,
                )
            self._sent.update(keys)
            self._created.add(batch_id)
            self.counters.batches += 1
            self.counters.requests_sent += len(keys)
            self._pending[batch_id] = set(keys)
            await self._poll(api, endpoint, batch_id, keys, batch)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # a bug must not leave calls waiting for ever
            self._fail(keys, exc)

    def _poll_stored(self, batch_id: str, endpoint: ModelEndpoint) -> None:
        """Poll a batch of an earlier run (once, however many calls await it)."""
        running = self._polling.get(batch_id)
        if running is not None and not running.done():
            return
        assert self.ledger is not None
        keys = self.ledger.keys_of(batch_id)
        # Its requests whose results an earlier run stored are not handed out again.
        self._pending[batch_id] = self.ledger.unstored_keys_of(batch_id)
        api = self._api(endpoint)

        async def poll() -> None:
            try:
                await self._poll(api, endpoint, batch_id, keys, None)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:
                self._fail(keys, exc)

        self._polling[batch_id] = self._spawn(poll())

    async def _poll(
        self,
        api: BatchAPI,
        endpoint: ModelEndpoint,
        batch_id: str,
        keys: list[str],
        batch: dict | None,
    ) -> None:
        delay = endpoint.batch_poll_seconds
        while batch is None or _status(batch) not in TERMINAL:
            if batch is not None:
                await asyncio.sleep(delay)
                delay = min(MAX_POLL_SECONDS, delay * POLL_GROWTH)
            # Unreachable for long: BatchUnavailable stops the run, the batch stays open.
            batch = await _persistently(endpoint, lambda: api.retrieve(batch_id))
            if self.ledger is not None:
                self.ledger.set_status(batch_id, _status(batch))
        await self._read(api, endpoint, batch_id, keys, batch)

    async def _read(
        self, api: BatchAPI, endpoint: ModelEndpoint, batch_id: str, keys: list[str], batch: dict
    ) -> None:
        status = _status(batch)
        files: list[Path] = []
        try:
            if isinstance(api, AnthropicBatchAPI):
                parse = anthropic_line
                url = batch.get("results_url")
                if isinstance(url, str) and url:
                    dest = self._path("results", ".jsonl")
                    files.append(
                        await _persistently(endpoint, lambda: api.download_results(url, dest))
                    )
            else:
                parse = parse_line
                for name in ("output_file_id", "error_file_id"):
                    file_id = batch.get(name)
                    if isinstance(file_id, str) and file_id:
                        dest = self._path("output", ".jsonl")
                        files.append(
                            await _persistently(
                                endpoint, lambda f=file_id, d=dest: api.download(f, d)
                            )
                        )
            self._handing += 1  # while its files are read, their lines handed out
            try:
                await self._hand_out(batch_id, keys, status, batch, files, parse)
            finally:
                self._handing -= 1
        finally:
            for path in files:
                path.unlink(missing_ok=True)

    async def _hand_out(
        self,
        batch_id: str,
        keys: list[str],
        status: str,
        batch: dict,
        files: list[Path],
        parse,
    ) -> None:
        """Hand each request of the batch its result from ``files``, read a line at a time,
        ``HANDED_AT_ONCE`` results at a time to ``deliver``."""
        failed = status == "failed"
        why = f"batch {batch_id} {status}: " + (
            _batch_errors(batch) if failed else "no usable result line for this request"
        )
        missing = 0
        wanted = self._pending.get(batch_id, set())
        refused: Counter[str] = Counter()
        answered: set[str] = set()
        results = read_lines(
            lambda: (raw for path in files for _, raw in spool.lines(path)),
            set(keys),
            refused,
            parse,
        )
        replies: list[tuple[str, BatchReply]] = []
        for key, result in results:
            answered.add(key)
            if key not in wanted and key not in self._waiting:
                continue  # stored by an earlier run
            if not result.ran:
                missing += 1
                text = f"batch {batch_id}: {result.error_code}"
                replies.append((key, BatchReply(why=text, retryable=not failed, batch_id=batch_id)))
            else:
                replies.append((key, BatchReply(result, batch_id=batch_id)))
            if len(replies) >= HANDED_AT_ONCE:
                await self._hand(replies)
                replies = []
        await self._hand(replies)
        replies = []
        unanswered = (
            key for key in keys if key not in answered and (key in wanted or key in self._waiting)
        )
        lost = BatchReply(why=why, retryable=not failed, batch_id=batch_id)
        for key in unanswered:
            missing += 1
            replies.append((key, lost))
            if len(replies) >= HANDED_AT_ONCE:
                await self._hand(replies)
                replies = []
        await self._hand(replies)
        self.counters.refused_lines.update(refused)
        self.counters.missing += missing
        if self.ledger is not None:
            self.ledger.record_read(batch_id, refused, missing)

    # -- handing results out -------------------------------------------------------------------

    async def _hand(self, replies: Iterable[tuple[str, BatchReply]]) -> None:
        """Hand ``replies`` to the requests waiting for them (``HANDED_AT_ONCE`` at a time);
        a reply nobody waits for yet is kept until its request is made."""
        chunk: list[tuple[str, BatchReply]] = []
        for key, reply in replies:
            if self._open is not None and self._open.get(key) == reply.batch_id:
                del self._open[key]
            if reply.result is not None and reply.batch_id:
                self._batch_of[key] = reply.batch_id
            elif reply.batch_id:  # missing: sent again, so it does not hold its batch open
                self._settle(reply.batch_id, key)
            if key in self._waiting:
                self._waiting.discard(key)
                # A batch of an earlier run: its request was not sent by this one.
                if reply.batch_id and reply.batch_id not in self._created:
                    reply = replace(reply, sent=False)
                chunk.append((key, reply))
            else:
                self._ready[key] = reply
            if len(chunk) >= HANDED_AT_ONCE:
                await self._deliver(chunk)
                chunk = []
        if chunk:
            await self._deliver(chunk)

    async def _deliver(self, chunk: list[tuple[str, BatchReply]]) -> None:
        self._handing += 1  # and while the client takes them
        try:
            await self._deliver_replies(chunk)
        finally:
            self._handing -= 1

    def _fail(self, keys: Iterable[str], exc: BaseException) -> None:
        failed = [key for key in keys if key in self._waiting]
        self._waiting.difference_update(failed)
        if failed:
            self._fail_keys(failed, exc)

    def _settle(self, batch_id: str, key: str) -> None:
        pending = self._pending.get(batch_id)
        if pending is None:
            return
        pending.discard(key)
        if not pending:
            del self._pending[batch_id]
            if self.ledger is not None:
                self.ledger.close_batch(batch_id)

    def _api(self, endpoint: ModelEndpoint) -> BatchAPI:
        api_key = endpoint.api_key()
        where = (endpoint.resolved_base_url, api_key, endpoint.batch_api)
        if where not in self._apis:
            self._apis[where] = self._api_factory(endpoint, api_key, max(endpoint.timeout, 600.0))
        return self._apis[where]


async def _persistently(endpoint: ModelEndpoint, call):
    """``call()`` retried for longer (a poll, or a download of a batch that exists); when the
    API stays unreachable, ``BatchUnavailable``."""
    for failures in range(1, POLL_FAILURES + 1):
        try:
            return await _retried(call, _base_delay(endpoint))
        except HttpStatusError as exc:
            if not _retryable(exc.status) or failures == POLL_FAILURES:
                raise _unavailable(endpoint, exc) from exc
        except TransportError as exc:
            if failures == POLL_FAILURES:
                raise _unavailable(endpoint, exc) from exc
        await asyncio.sleep(min(MAX_POLL_SECONDS, endpoint.batch_poll_seconds * 2**failures))
    raise AssertionError("unreachable")


def _base_delay(endpoint: ModelEndpoint) -> float:
    """The first retry's wait: a second, or less when the endpoint polls faster (tests)."""
    return min(1.0, endpoint.batch_poll_seconds)


def _unavailable(endpoint: ModelEndpoint, exc: Exception) -> BatchUnavailable:
    return BatchUnavailable(
        f"the batch API of '{endpoint.name}' failed: {exc}; finished calls are stored and open "
        "batches are kept: run the same command again to resume"
    )


async def _retried(call, base_delay: float = 1.0):
    """``call()`` with transient failures retried (exponential backoff with full jitter)."""
    for attempt in range(1, API_ATTEMPTS + 1):
        try:
            return await call()
        except HttpStatusError as exc:
            if attempt == API_ATTEMPTS or not _retryable(exc.status):
                raise
        except TransportError:
            if attempt == API_ATTEMPTS:
                raise
        await asyncio.sleep(random.uniform(0, min(60.0, base_delay * 2 ** (attempt - 1))))
    raise AssertionError("unreachable")


def _retryable(status: int) -> bool:
    return status >= 500 or status in RETRYABLE_STATUS


def _status(batch: dict) -> str:
    """OpenAI's batch ``status``, or Anthropic's ``processing_status`` in OpenAI's words (an
    ended Message Batch is ``completed``: its lines say which requests expired or were
    canceled)."""
    status = batch.get("status")
    if status is None and "processing_status" in batch:
        status = _ANTHROPIC_STATUS.get(batch["processing_status"], "unknown")
    return status if isinstance(status, str) and len(status) < 40 else "unknown"


def _batch_errors(batch: dict) -> str:
    errors = batch.get("errors")
    data = errors.get("data") if isinstance(errors, dict) else None
    messages = [
        e["message"]
        for e in data or []
        if isinstance(e, dict) and isinstance(e.get("message"), str)
    ]
    return "; ".join(messages[:3]) or "the provider gives no reason"
