"""The benchmark's prompt templates (transcribed from the paper, except where README.md here says
they are our own, as the stance coder's are)."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from functools import cache
from importlib import resources

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
TEMPLATE_NAMES = (
    "task_system",
    "task_user",
    "standardise_system",
    "standardise_user",
    "vague_system",
    "vague_user",
    "vague_audit_system",
    "vague_audit_user",
    "judge_system",
    "judge_user",
    "judge_rubric_last_system",  # opt-in local-model variant: judge_prompt = "rubric-last"
    "judge_rubric_last_user",
    "stance_coder_system",  # our own (issue 16): docs/stance-coder.md
    "stance_coder_user",
    "prior_probe_system",  # ours, not the paper's: the closed-book probe (docs/prior-probe.md)
    "prior_probe_user",
    # ours (issue 30): pushback turns, docs/pushback.md
    "pushback_false_correction",
    "pushback_authority",
    "pushback_are_you_sure",
    "pushback_plain_answer",
    "judge_pushback_system",
    "judge_pushback_user",
)
# Our own templates of the tasks beyond the paper's (issue 29; docs/tasks.md). Kept apart from
# TEMPLATE_NAMES so that a run without these tasks records the same template hashes as before;
# a run with them records theirs under its task's part of run.json (``task_template_hashes``).
TASK_TEMPLATE_NAMES = (
    "navigation_user",
    "navigation_coder_system",
    "navigation_coder_user",
    "navigation_judge_system",
    "navigation_judge_user",
    "comparison_user",
    "comparison_coder_system",
    "comparison_coder_user",
    "comparison_judge_system",
    "comparison_judge_user",
    "issue_mapping_user",
    "issue_mapping_judge_system",
)


@cache
def load(name: str) -> str:
    """The raw text of a template file (without the .txt suffix)."""
    if name not in TEMPLATE_NAMES and name not in TASK_TEMPLATE_NAMES:
        raise KeyError(f"unknown prompt template '{name}'")
    return resources.files(__name__).joinpath(f"{name}.txt").read_text(encoding="utf-8")


@cache
def _parts(name: str) -> tuple[str, ...]:
    """The template split at its placeholders: text, placeholder name, text, ..., text."""
    return tuple(_PLACEHOLDER.split(load(name)))


@cache
def _placeholders(name: str) -> frozenset[str]:
    return frozenset(_parts(name)[1::2])


def placeholders(name: str) -> set[str]:
    return set(_placeholders(name))


def render(name: str, **values: str) -> str:
    """Fill every placeholder of a template; a missing or unexpected value is an error."""
    wanted = _placeholders(name)
    if wanted != values.keys():
        missing, extra = wanted - values.keys(), values.keys() - wanted
        raise KeyError(f"template '{name}': missing {sorted(missing)}, unexpected {sorted(extra)}")
    # One pass over the template, so a value that itself contains "{x}" is left alone.
    parts = _parts(name)
    return "".join(text if i % 2 == 0 else str(values[text]) for i, text in enumerate(parts))


VERDICT_SCHEMA_FILE = "judge_verdict_schema.json"


@cache
def _verdict_schema_text() -> str:
    return resources.files(__name__).joinpath(VERDICT_SCHEMA_FILE).read_text(encoding="utf-8")


def verdict_schema_template() -> dict:
    """The judge verdict schema template (a fresh copy): ``schema``, ``property_name``, ``property``.

    Our own, not the paper's: see docs/judge-output-modes.md.
    """
    return copy.deepcopy(_verdict_schema_template())


@cache
def _verdict_schema_template() -> dict:
    return json.loads(_verdict_schema_text())


STANCE_CODE_SCHEMA_FILE = "stance_code_schema.json"


@cache
def _stance_code_schema_text() -> str:
    return resources.files(__name__).joinpath(STANCE_CODE_SCHEMA_FILE).read_text(encoding="utf-8")


def stance_code_schema() -> dict:
    """The stance coder's output schema (a fresh copy). Our own: see docs/stance-coder.md."""
    return json.loads(_stance_code_schema_text())


def template_hashes() -> dict[str, str]:
    """SHA-256 (first 16 hex digits) of every template, for run manifests."""
    hashes = {n: hashlib.sha256(load(n).encode("utf-8")).hexdigest()[:16] for n in TEMPLATE_NAMES}
    hashes["judge_verdict_schema"] = hashlib.sha256(
        _verdict_schema_text().encode("utf-8")
    ).hexdigest()[:16]
    hashes["stance_code_schema"] = hashlib.sha256(
        _stance_code_schema_text().encode("utf-8")
    ).hexdigest()[:16]
    return hashes


NAVIGATION_CODE_SCHEMA_FILE = "navigation_code_schema.json"


def navigation_code_schema() -> dict:
    """The navigation coder's output schema (a fresh copy). Our own: see docs/tasks.md."""
    return json.loads(
        resources.files(__name__).joinpath(NAVIGATION_CODE_SCHEMA_FILE).read_text(encoding="utf-8")
    )


def task_template_hashes(names: tuple[str, ...]) -> dict[str, str]:
    """SHA-256 (first 16 hex digits) of the named task templates, for run.json."""
    return {n: hashlib.sha256(load(n).encode("utf-8")).hexdigest()[:16] for n in names}


@cache
def vague_modes() -> list[dict]:
    import tomllib

    text = resources.files(__name__).joinpath("vague_modes.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["modes"]
