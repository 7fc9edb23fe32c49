"""A study's calls run by an offline engine: ``polistemics batch export`` and ``batch import``.

Both find the calls a run would make now the same way: the run's stages run as a rerun would
(every stored call answered from the store) against ``llm.offline_batch.DeferringClient``, which
records every other call instead of making it. What a stage can only ask once an earlier stage's
calls are in (judging needs answers) appears once those are imported: export, run, import, then
export the next stage.

- ``export_calls`` writes the pending calls of one call stage and endpoint as the batch input
  file vLLM's ``vllm run-batch`` reads (``custom_id`` = store key, the body the online call
  would post).
- ``import_results`` reads an output file and commits each result to the run store under its
  key, as the online call would have been stored, so a later ``polistemics run`` finds it done.
  A line is refused and counted when it is malformed, names a key twice, names a key no pending
  call has (unknown, or a call whose prompt has changed since it was exported: its key is no
  longer one the run would ask for, and it is never stored under another), is for another model
  than its call's endpoint, or reports no usable reply. A reply that came but is an empty,
  filtered or cut-off answer is stored as the failed call an online run would store.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from polistemics.llm.client import reply_result
from polistemics.llm.offline_batch import DeferringClient, Keep, PendingCall, read_output
from polistemics.llm.registry import ModelEndpoint, default_registry
from polistemics.llm.store import FinishedCall, RunStore
from polistemics.run.config import ConfigError, RunConfig, load_config
from polistemics.run.lock import RunLock
from polistemics.run.pipeline import load_elections, resolve_endpoints
from polistemics.run.stages import STAGES
from polistemics.run.stages.base import ElectionRun, Log, StudyState, run_stages
from polistemics.run.stages.planning import endpoint_identity
from polistemics.runlog import RunDir

# The call stages (as the store names them) and the names ``--stage`` also takes for them.
CALL_STAGES = (
    "standardise",
    "vague",
    "vague_audit",
    "answer",
    "judge",
    "judge_repeat",
    "prior_probe",
    "stance_code",
)
STAGE_ALIASES = {"answers": "answer", "judges": "judge", "stance_codes": "stance_code"}


class OfflineBatchError(ValueError):
    """A stage, endpoint, config or file the command cannot work with; the message says which."""


def call_stage(name: str) -> str:
    """The store's name of a call stage given as ``--stage`` (``answers`` is ``answer``)."""
    stage = STAGE_ALIASES.get(name, name)
    if stage not in CALL_STAGES:
        known = ", ".join([*CALL_STAGES, *STAGE_ALIASES])
        raise OfflineBatchError(f"unknown stage '{name}' (known: {known})")
    return stage


def study_config(run_dir: Path, config: str | None) -> RunConfig:
    """The config given, else the one the run directory's ``run.json`` records (in full: the
    typed ``RunManifest`` keeps only the parts its readers use)."""
    if config is not None:
        return load_config(config)
    path = RunDir(run_dir).manifest
    if not path.is_file():
        raise OfflineBatchError(
            f"{run_dir}: no run.json yet: give the study's config with --config"
        )
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise OfflineBatchError(
            f"{path}: unreadable ({type(exc).__name__}); give --config"
        ) from None
    raw = recorded.get("config") if isinstance(recorded, dict) else None
    try:
        return RunConfig.model_validate(raw)
    except ValidationError:
        raise ConfigError(f"{path}: its config is not a valid run config; give --config") from None


def existing_store(run_dir: Path) -> Path:
    """The run directory's store, which must exist (an import adds to a run, never starts one)."""
    store = RunDir(run_dir).store
    if not store.is_file():
        raise OfflineBatchError(
            f"{run_dir}: no run store here ({store.name}); nothing to import into"
        )
    return store


async def pending_calls(
    config: RunConfig, run_dir: Path, log: Log, keep: Keep | None = None
) -> dict[str, PendingCall]:
    """Every call a run of ``config`` in ``run_dir`` would make now, by key; with ``keep``,
    only those it keeps."""
    client = await _deferring_run(config, run_dir, log, keep)
    return client.deferred


async def _deferring_run(
    config: RunConfig, run_dir: Path, log: Log, keep: Keep | None
) -> DeferringClient:
    endpoints = resolve_endpoints(config, default_registry(config.models_file))
    elections = [ElectionRun(scoped) for scoped in load_elections(config)]
    with RunStore(RunDir(run_dir).store) as store:
        client = DeferringClient(store=store, keep=keep)
        state = StudyState(config, endpoints, run_dir, elections, log=log, client=client)
        try:
            await run_stages(STAGES, state, lambda name: contextlib.nullcontext())
        finally:
            await client.aclose()
    return client


# ---- export -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exported:
    path: Path
    lines: int
    other_pending: dict[str, int]  # calls of other stages or endpoints a run would make now


def export_calls(
    config: RunConfig, run_dir: Path, stage: str, endpoint_name: str, out: Path, log: Log
) -> Exported:
    """Write the pending calls of ``stage`` on ``endpoint_name`` (or on a seat that is the same
    endpoint: identical seats share their calls) to ``out``, one request a line."""
    stage = call_stage(stage)
    endpoints = resolve_endpoints(config, default_registry(config.models_file))
    if endpoint_name not in endpoints:
        known = ", ".join(sorted(endpoints))
        raise OfflineBatchError(f"'{endpoint_name}' is not a model of this study (its: {known})")
    wanted = endpoint_identity(endpoints[endpoint_name])

    def keep(key: str, call_stage: str, endpoint: ModelEndpoint) -> bool:
        return call_stage == stage and endpoint_identity(endpoint) == wanted

    client = asyncio.run(_deferring_run(config, run_dir, log, keep))
    chosen = list(client.deferred.values())
    other = Counter({f"{s} on {name}": n for (s, name), n in client.skipped.items()})
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    with partial.open("w", encoding="utf-8") as handle:
        for call in chosen:
            handle.write(call.request_line() + "\n")
    partial.replace(out)
    return Exported(out, len(chosen), dict(sorted(other.items())))


def default_export_path(run_dir: Path, stage: str, endpoint_name: str) -> Path:
    """``RUN/offline/<stage>-<endpoint>.jsonl``, the endpoint name reduced to safe characters."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in endpoint_name)
    return run_dir / "offline" / f"{call_stage(stage)}-{safe.lstrip('.') or 'endpoint'}.jsonl"


# ---- import -------------------------------------------------------------------------------

REFUSED_MALFORMED = "malformed"
REFUSED_DUPLICATE = "custom_id duplicated in the file"
REFUSED_UNKNOWN = "custom_id of no call a run would make now (unknown, or its prompt changed)"
REFUSED_STORED = "already in the store"
REFUSED_MODEL = "reply from another model than its call's endpoint"
REFUSED_FAILED = "no usable reply (the call stays pending)"


@dataclass
class Imported:
    """What an import did: lines read, results stored (ok and as failures), lines refused."""

    lines: int = 0
    stored_ok: int = 0
    stored_failed: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[int]] = field(default_factory=dict)  # line numbers per reason

    @property
    def stored(self) -> int:
        return self.stored_ok + self.stored_failed

    def refuse(self, reason: str, line: int) -> None:
        self.refused[reason] += 1
        shown = self.examples.setdefault(reason, [])
        if len(shown) < 5:
            shown.append(line)


def import_results(config: RunConfig, run_dir: Path, path: Path, log: Log) -> Imported:
    """Commit the results of a batch output file to the run's store (see the module doc).

    The run directory's lock is held throughout, so no run changes the store meanwhile."""
    if not path.is_file():
        raise OfflineBatchError(f"{path}: no such file")
    existing_store(run_dir)
    named = {line.custom_id for line in read_output(path) if line.custom_id is not None}
    with RunLock(run_dir):
        # Only the calls the file names are held (the others are merely counted).
        pending = asyncio.run(pending_calls(config, run_dir, log, lambda key, *_: key in named))
        with RunStore(RunDir(run_dir).store) as store:
            stored_keys = store.call_keys()
            imported, calls = _read_results(path, pending, stored_keys)
            store.add_calls(calls)
    return imported


def _read_results(
    path: Path, pending: dict[str, PendingCall], stored_keys: set[str]
) -> tuple[Imported, list[FinishedCall]]:
    imported = Imported()
    seen = Counter(line.custom_id for line in read_output(path) if line.custom_id is not None)
    calls: list[FinishedCall] = []
    for line in read_output(path):
        imported.lines += 1
        if line.problem is not None or line.custom_id is None:
            imported.refuse(REFUSED_MALFORMED, line.number)
            continue
        key = line.custom_id
        if seen[key] > 1:
            imported.refuse(REFUSED_DUPLICATE, line.number)
            continue
        call = pending.get(key)
        if call is None:
            reason = REFUSED_STORED if key in stored_keys else REFUSED_UNKNOWN
            imported.refuse(reason, line.number)
            continue
        if line.reply is None:
            imported.refuse(REFUSED_FAILED, line.number)
            continue
        if not _same_model(line.reply, call.endpoint):
            imported.refuse(REFUSED_MODEL, line.number)
            continue
        read = reply_result(key, call.endpoint, line.reply, call.body)
        if not read.storable:
            imported.refuse(REFUSED_FAILED, line.number)
            continue
        calls.append(
            FinishedCall(
                read.result,
                call.stage,
                None,
                call.params_json,
                call.sample_index,
                call.messages_json,
            )
        )
        if read.result.ok:
            imported.stored_ok += 1
        else:
            imported.stored_failed += 1
    return imported, calls


def _same_model(reply: dict, endpoint: ModelEndpoint) -> bool:
    """A reply naming a model names the endpoint's (vLLM echoes the model it was asked for)."""
    model = reply.get("model")
    return model is None or model == endpoint.model


def refusal_lines(imported: Imported) -> Iterator[str]:
    """One line per refusal reason: how many, and the first few line numbers."""
    for reason, n in imported.refused.most_common():
        shown = ", ".join(str(i) for i in imported.examples.get(reason, []))
        more = ", ..." if n > len(imported.examples.get(reason, [])) else ""
        yield f"refused {n:,}: {reason} (lines {shown}{more})"
