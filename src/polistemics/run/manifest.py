"""``run.json``: what a run was (config, code, prompts, models, seeds) and what it cost.

A run directory may be run many times (resumed, rerun from cache). ``invocations`` keeps one
entry per finished invocation, oldest first, each with its own times, calls made and version;
a rerun appends to it instead of overwriting the record of the one that made the calls. The
top-level ``started``, ``finished``, ``stage_seconds``, ``calls_made_this_run``,
``polistemics_version`` and ``git_revision`` describe the latest invocation (the one that wrote
the file).
"""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from polistemics import __version__
from polistemics.llm.registry import ModelEndpoint
from polistemics.prompts import template_hashes
from polistemics.run.config import RunConfig
from polistemics.runlog import Invocation, RunDir, RunFileError
from polistemics.runlog.read import read_manifest


def git_revision() -> str | None:
    """The source checkout's commit, when the package runs from one."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def endpoint_record(endpoint: ModelEndpoint) -> dict:
    """Model identity and parameters; the key variable's name only, never its value. The
    display name only when the registry gives one (run.json is otherwise as before)."""
    record = {
        "model": endpoint.model,
        "provider": endpoint.provider,
        "base_url": endpoint.resolved_base_url,
        "api_key_env": endpoint.api_key_env,
        "params": endpoint.generation_params(),
        "structured_output": endpoint.structured_output,
        # Only a batch endpoint says how it runs: an online run's record stays as it was.
        **({"execution": endpoint.execution} if endpoint.is_batch else {}),
    }
    if endpoint.display_name:
        record["display_name"] = endpoint.display_name
    return record


def previous_invocations(path: Path) -> list[Invocation]:
    """The invocations an existing ``run.json`` records (none when it cannot be read)."""
    try:
        old = read_manifest(path)
    except (OSError, RunFileError):
        return []
    return old.invocations if old is not None else []


# The keys ``write_manifest`` writes itself; the others are its caller's ``extra``.
MANIFEST_OWN_KEYS = frozenset(
    {
        "polistemics_version",
        "git_revision",
        "started",
        "finished",
        "config",
        "prompt_template_sha256",
        "models",
        "seed",
        "stage_seconds",
        "calls_made_this_run",
        "invocations",
        "calls",
        "totals",
    }
)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_manifest(
    run_dir: Path,
    config: RunConfig,
    endpoints: dict[str, ModelEndpoint],
    calls: list[dict],
    *,
    started: str,
    stage_seconds: dict[str, float],
    calls_made: int,
    extra: dict,
) -> Path:
    """``run.json``; ``calls`` are the run store's ``call_stats()``, ``calls_made`` the model
    calls this invocation made (the rest came from the store)."""
    path = RunDir(run_dir).manifest
    stage_seconds = {k: round(v, 3) for k, v in stage_seconds.items()}
    this = Invocation(
        started=started,
        finished=now(),
        polistemics_version=__version__,
        git_revision=git_revision(),
        calls_made=calls_made,
        stage_seconds=stage_seconds,
    )
    invocations = [*previous_invocations(path), this]
    manifest = {
        "polistemics_version": this.polistemics_version,
        "git_revision": this.git_revision,
        "started": this.started,
        "finished": this.finished,
        "config": config.model_dump(mode="json"),
        "prompt_template_sha256": template_hashes(),
        "models": {name: endpoint_record(ep) for name, ep in endpoints.items()},
        "seed": config.seed,
        "stage_seconds": stage_seconds,
        "calls_made_this_run": calls_made,
        "invocations": [i.model_dump(mode="json") for i in invocations],
        "calls": calls,
        "totals": {
            "calls": sum(c["calls"] for c in calls),
            "errors": sum(c["errors"] or 0 for c in calls),
            "input_tokens": sum(c["input_tokens"] or 0 for c in calls),
            "cached_input_tokens": sum(c.get("cached_input_tokens") or 0 for c in calls),
            "output_tokens": sum(c["output_tokens"] or 0 for c in calls),
            "reasoning_tokens": sum(c["reasoning_tokens"] or 0 for c in calls),
            "cost_usd": round(sum(c["cost"] or 0 for c in calls), 6),
        },
        **extra,
    }
    _write(path, manifest)
    return path


def _write(path: Path, manifest: dict) -> None:
    """Whole or not at all: the file holds the run's history, so a crash must not truncate it."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
    partial.replace(path)
