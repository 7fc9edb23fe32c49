"""Reference tables generated from the code when the docs site is built, so they cannot drift.

An MkDocs hook (``mkdocs.yml``: ``hooks``). A page asks for a table with a marker line,
``<!-- generated: NAME -->``, which ``on_page_markdown`` replaces with ``GENERATORS[NAME]()``:

- ``cli``: every command of the built ``polistemics`` app, with Click's own usage line and help
  records (the same text as ``--help``, hidden options left out);
- ``run-config`` / ``election`` / ``judge-repeats`` / ``pushback-config``: the run config's keys, from its pydantic
  models (``polistemics.run.config``);
- ``model-endpoint`` / ``reasoning``: the model registry's keys (``polistemics.llm.registry``);
- ``run-json`` and one per run file record (``answers``, ``judges``, ...): the fields of the
  run log's models (``polistemics.runlog``).

A key with no ``description`` in its model takes one from ``NOTES`` below;
``tests/docs/test_reference_pages.py`` checks that every key has one and every command is listed.
``python docs/hooks/reference_pages.py NAME`` prints a table to read it without building the site.
"""

from __future__ import annotations

import enum
import json
import re
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

# The checkout being documented, not whatever polistemics the Python running MkDocs has installed.
SRC = Path(__file__).resolve().parents[2] / "src"
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from pydantic import BaseModel  # noqa: E402
from pydantic_core import PydanticUndefined  # noqa: E402

MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)

# Descriptions of keys whose model carries none (model name, key) -> text.
NOTES: dict[tuple[str, str], str] = {
    ("RunConfig", "name"): "The study's name: the run directory is `runs/<name>` by default.",
    ("RunConfig", "elections"): "One `[[elections]]` table per election (keys below).",
    ("RunConfig", "targets"): "Registry names of the models under test.",
    ("RunConfig", "judges"): "Registry names of the judge panel (the paper: three, majority vote).",
    ("RunConfig", "standardiser"): "Registry name of the model that standardises the VAA "
    "rationales into evidence.",
    ("RunConfig", "vague_generator"): "Registry name of the model that writes Vague evidence.",
    ("RunConfig", "vague_auditor"): "Registry name of the model that checks Vague evidence "
    "still hides the stance.",
    ("RunConfig", "environments"): "Information environments to build (`baseline`, "
    "`ie_availability_absent`, `ie_clarity_vague`, `ie_consistency_contradiction`, `ie_noise`, "
    "`ie_prior_conflict`).",
    ("RunConfig", "ablations"): "`anon`: anonymised party labels (Baseline, Vague); `en`: "
    "English output (Baseline).",
    ("RunConfig", "samples"): "Answers per item; more than 1 keeps repeated samples apart "
    "(use a temperature above 0).",
    ("RunConfig", "seed"): "Seed of every sampled choice (Noisy distractors, Vague, judge "
    "repeats, the report's bootstrap).",
    ("RunConfig", "embeddings"): "Sentence similarity for Noisy distractors: `use` (the "
    "multilingual Universal Sentence Encoder) or `tfidf`.",
    ("RunConfig", "vague_max_tries"): "Tries per Vague item before it is excluded (the paper: 3).",
    ("RunConfig", "standardise_retries"): "Retries of a standardisation whose output fails "
    "its checks.",
    ("RunConfig", "max_cost"): "USD; the run stops cleanly when it is reached.",
    ("ModelEndpoint", "name"): "The registry name (the TOML table's key: `[models.<name>]`).",
    ("ModelEndpoint", "model"): "The model string the endpoint expects.",
    ("ModelEndpoint", "provider"): "`openrouter` and `openai` know their API base; "
    "`openai-compatible` needs `base_url`; `local` is the bundled llama.cpp model.",
    ("ModelEndpoint", "base_url"): "The API base, e.g. `http://localhost:8000/v1` (no "
    "credentials in it).",
    ("ModelEndpoint", "api_key_env"): "The name of the environment variable holding the key "
    "(never the key).",
    ("ModelEndpoint", "temperature"): "Sampling temperature.",
    ("ModelEndpoint", "max_tokens"): "Most tokens per reply.",
    ("ModelEndpoint", "top_p"): "Nucleus sampling, when set.",
    ("ModelEndpoint", "seed"): "Sent as the request's seed, when set.",
    ("ModelEndpoint", "reasoning"): "Reasoning settings, as OpenRouter takes them (keys below).",
    ("ModelEndpoint", "timeout"): "Seconds per request.",
    ("ModelEndpoint", "max_concurrency"): "Calls in flight at once (for `local`: servers).",
    ("ModelEndpoint", "structured_output"): "How JSON is requested: `none` (the prompt asks), "
    "`json_object`, `json_schema`, `grammar` (llama.cpp GBNF) or `tool` (a forced function call).",
    ("ModelEndpoint", "extra_body"): "Extra keys merged into every request body.",
    ("ModelEndpoint", "price_input_per_mtok"): "USD per million input tokens, for `--dry-run` "
    "estimates when the price list does not know the model.",
    ("ModelEndpoint", "price_output_per_mtok"): "USD per million output tokens (as above).",
    ("RunManifest", "polistemics_version"): "Package version of the latest invocation.",
    ("RunManifest", "git_revision"): "Git revision of the checkout that ran it, when known.",
    ("RunManifest", "started"): "When the latest invocation started (ISO 8601).",
    ("RunManifest", "finished"): "When it finished.",
    ("RunManifest", "config"): "The run config as loaded.",
    ("RunManifest", "prompt_template_sha256"): "SHA-256 of every prompt template used.",
    ("RunManifest", "models"): "Per registry name: `model`, `provider`, `base_url`, "
    "`api_key_env` (the variable's name, never its value), `params`, `structured_output`, "
    "and `execution` for a batch endpoint.",
    ("RunManifest", "seed"): "The run's seed.",
    ("RunManifest", "stage_seconds"): "Seconds per stage of the latest invocation.",
    ("RunManifest", "calls_made_this_run"): "Model calls the latest invocation made (0 on a "
    "rerun from the cache).",
    ("RunManifest", "invocations"): "Every invocation that finished, oldest first: `started`, "
    "`finished`, `polistemics_version`, `git_revision`, `calls_made`, `stage_seconds`.",
    ("RunManifest", "calls"): "Per stage and endpoint, from the store: calls, errors, tokens, "
    "cost, latency, attempts.",
    ("RunManifest", "totals"): "The same over the whole store.",
    ("RunManifest", "elections"): "Per election: source counts, standardisation, environments "
    "kept and dropped (a composition's drops also per part rule, `dropped_*`), Vague generation.",
    ("RunManifest", "judging"): "The panel, unjudged answers, exclusions, ties.",
    ("RunManifest", "judge_parsing"): "Per judge and output mode: verdict sets, calls, HTTP "
    "attempts, second asks, retries, failures, unreadable outputs, missing verdicts.",
    ("RunManifest", "judge_repeats"): "Repeat judging's flip rates with CIs (null when off).",
    ("RunManifest", "execution"): "Runs with a batch endpoint only: per execution mode "
    "(`online`, `batch`), the stored calls, their cost and tokens (a call sent in a batch counts "
    "as batch).",
    ("RunManifest", "batches"): "Runs with a batch endpoint only: batches `created`, "
    "`requests_sent`, `resubmitted` (requests sent again after an expired, cancelled or partly "
    "failed batch), `refused_lines` (`unknown`, `duplicate`, `malformed` custom_ids), "
    "`missing_results`, `open`.",
    ("RunManifest", "stance_coding"): "Counts of stance codes, missing codes and majorities.",
    ("Reasoning", "effort"): "Reasoning effort (or set `max_tokens`, not both).",
    ("Reasoning", "max_tokens"): "Reasoning token budget.",
    ("Reasoning", "exclude"): "Ask the provider not to return the reasoning text.",
}


# --- the command line -------------------------------------------------------------------------


def commands() -> Iterator[tuple[str, Any, Any]]:
    """(path, command, context) of every command, depth first, in ``--help`` order."""
    import typer.main

    from polistemics.cli import build_app

    root = typer.main.get_command(build_app())

    def walk(command: Any, ctx: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
        yield path, command, ctx
        for name in getattr(command, "list_commands", lambda _: [])(ctx):
            sub = command.get_command(ctx, name)  # the root group blanks flags' metavars here
            if sub is None or getattr(sub, "hidden", False):
                continue
            sub_ctx = sub.make_context(name, [], parent=ctx, resilient_parsing=True)
            yield from walk(sub, sub_ctx, f"{path} {name}")

    ctx = root.make_context("polistemics", [], resilient_parsing=True)
    yield from walk(root, ctx, "polistemics")


def cli_page() -> str:
    lines = []
    for path, command, ctx in commands():
        level = "#" * min(2 + path.count(" "), 4)
        lines += [f"{level} `{path}`", "", _inline(command.help or ""), ""]
        lines += ["```text", command.get_usage(ctx), "```", ""]
        records = [
            param.get_help_record(ctx)
            for param in command.get_params(ctx)
            if not getattr(param, "hidden", False)
        ]
        rows = [r for r in records if r is not None]
        if rows:
            lines += ["| Argument or option | Meaning |", "|---|---|"]
            lines += [f"| `{_cell(names)}` | {_cell(text)} |" for names, text in rows]
            lines.append("")
    return "\n".join(lines)


# --- pydantic models ----------------------------------------------------------------------------

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", Any: "any"}


def type_name(annotation: Any) -> str:
    """A field's type in words: ``list of string``, ``'none' | 'all'``, ``integer | unset``."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is type(None):
        return "unset"
    if origin is Annotated:
        return type_name(args[0])
    if origin in (Union, types.UnionType):
        return " | ".join(dict.fromkeys(type_name(a) for a in args))
    if origin is Literal:
        return " | ".join(json.dumps(a) for a in args)
    if origin in (list, tuple, set, frozenset):
        return f"list of {type_name(args[0])}" if args else "list"
    if origin is dict or annotation is dict:
        return "table"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return " | ".join(json.dumps(m.value) for m in annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation.__name__
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    return getattr(annotation, "__name__", str(annotation))


def default_text(field: Any) -> str:
    if field.default_factory is not None:
        value = field.default_factory()
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if value is None:
        return "unset"
    if isinstance(value, enum.Enum):
        value = value.value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except TypeError:
        return str(value)


def description(model: type[BaseModel], key: str) -> str:
    field = model.model_fields[key]
    return field.description or NOTES.get((model.__name__, key), "")


def fields_table(model: type[BaseModel], defaults: bool = True) -> str:
    """A Markdown table of the model's keys; the Meaning column only when some key has one."""
    meanings = any(description(model, key) for key in model.model_fields)
    head = ["Key", "Type"] + (["Default"] if defaults else []) + (["Meaning"] if meanings else [])
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, field in model.model_fields.items():
        cells = [f"`{field.alias or key}`", _cell(type_name(field.annotation))]
        if defaults:
            cells.append(f"`{_cell(default_text(field))}`")
        if meanings:
            cells.append(_cell(description(model, key)))
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join([*rows, ""])


def documented_models() -> dict[str, tuple[type[BaseModel], bool]]:
    """Marker name -> (model, whether its defaults are shown)."""
    from polistemics.llm.registry import ModelEndpoint, Reasoning
    from polistemics.records import Evidence
    from polistemics.run.config import (
        ComparisonConfig,
        ElectionConfig,
        JudgeRepeatsConfig,
        NavigationConfig,
        PushbackConfig,
        RunConfig,
    )
    from polistemics.runlog import (
        Answer,
        EnvironmentItem,
        JudgeVerdictRecord,
        ProbeAnswer,
        PushbackTurn,
        RepeatVerdictRecord,
        RunManifest,
        StanceCodeRecord,
    )

    return {
        "run-config": (RunConfig, True),
        "election": (ElectionConfig, True),
        "judge-repeats": (JudgeRepeatsConfig, True),
        "navigation": (NavigationConfig, True),
        "comparison": (ComparisonConfig, True),
        "pushback-config": (PushbackConfig, True),
        "model-endpoint": (ModelEndpoint, True),
        "reasoning": (Reasoning, True),
        "run-json": (RunManifest, False),
        "evidence": (Evidence, False),
        "environment-item": (EnvironmentItem, False),
        "answers": (Answer, False),
        "prior-probe": (ProbeAnswer, False),
        "judges": (JudgeVerdictRecord, False),
        "judge-repeats-record": (RepeatVerdictRecord, False),
        "stance-codes": (StanceCodeRecord, False),
        "pushback-turns": (PushbackTurn, False),
    }


def generators() -> dict[str, Callable[[], str]]:
    found: dict[str, Callable[[], str]] = {"cli": cli_page}
    for marker, (model, defaults) in documented_models().items():
        found[marker] = lambda model=model, defaults=defaults: fields_table(model, defaults)
    return found


def _cell(text: str) -> str:
    return _inline(text).replace("|", "\\|")


def _inline(text: str) -> str:
    return " ".join(text.split())


def expand(markdown: str) -> str:
    """The page with every marker replaced by its table; an unknown marker is an error."""
    found = generators()

    def table(match: re.Match[str]) -> str:
        if match[1] not in found:
            raise KeyError(f"unknown generated table {match[1]!r} (known: {', '.join(found)})")
        return found[match[1]]()

    return MARKER.sub(table, markdown)


# --- the MkDocs hook -------------------------------------------------------------------------------


def on_page_markdown(markdown: str, **_: Any) -> str:
    return expand(markdown)


if __name__ == "__main__":
    print(generators()[sys.argv[1]]() if len(sys.argv) > 1 else "\n".join(generators()))
