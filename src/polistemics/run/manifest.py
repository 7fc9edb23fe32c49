"""``run.json``: what a run was (config, code, prompts, models, seeds) and what it cost."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from polistemics import __version__
from polistemics.llm.registry import ModelEndpoint
from polistemics.prompts import template_hashes
from polistemics.results.layout import MANIFEST_FILE
from polistemics.run.config import RunConfig


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
    """Model identity and parameters; the key variable's name only, never its value."""
    return {
        "model": endpoint.model,
        "provider": endpoint.provider,
        "base_url": endpoint.resolved_base_url,
        "api_key_env": endpoint.api_key_env,
        "params": endpoint.generation_params(),
        "structured_output": endpoint.structured_output,
    }


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
    extra: dict,
) -> Path:
    """``run.json``; ``calls`` are the run store's ``call_stats()``."""
    manifest = {
        "polistemics_version": __version__,
        "git_revision": git_revision(),
        "started": started,
        "finished": now(),
        "config": config.model_dump(mode="json"),
        "prompt_template_sha256": template_hashes(),
        "models": {name: endpoint_record(ep) for name, ep in endpoints.items()},
        "seed": config.seed,
        "stage_seconds": {k: round(v, 3) for k, v in stage_seconds.items()},
        "calls": calls,
        "totals": {
            "calls": sum(c["calls"] for c in calls),
            "errors": sum(c["errors"] or 0 for c in calls),
            "input_tokens": sum(c["input_tokens"] or 0 for c in calls),
            "output_tokens": sum(c["output_tokens"] or 0 for c in calls),
            "reasoning_tokens": sum(c["reasoning_tokens"] or 0 for c in calls),
            "cost_usd": round(sum(c["cost"] or 0 for c in calls), 6),
        },
        **extra,
    }
    path = run_dir / MANIFEST_FILE
    _write(path, manifest)
    return path


def _write(path: Path, manifest: dict) -> None:
    path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
