"""A commented study TOML for any election, as ``polistemics new`` writes it.

The file lists every party of the election with its counts; the parties with enough rationales
are kept (``parties = [...]``, an inline scope), the others are there commented out, to be
uncommented by hand. Models come from a run preset (``paper-de``: the paper's targets, judge
panel and helper models; ``demo``: the bundled local model, no key), so the file names only
models the registry knows. The text is checked before it is returned: it must parse as a run
config, or this module has a bug.
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from polistemics.conditions import ALL_ENVIRONMENTS
from polistemics.records import Election
from polistemics.run.config import RunConfig, load_config, parse_config
from polistemics.sources.load import parse_spec

# A party is kept when it gave a rationale for at least this share of the election's statements.
# Observations are the positions with a rationale, so a party below it adds few items, and its
# few items cover few statements (Contradictory and Counterfactual then find few opposing
# partners for it, and its leave-one-out deviations rest on a handful of items). 0.4 keeps a
# party that explained two answers in five: in the Bundestag election 2025 it keeps BSW (17 of
# 38), which the paper's scope has, and drops BP (10 of 38) and Bündnis C (0 of 38).
DEFAULT_MIN_RATIONALE_SHARE = 0.4

# models preset -> the run preset whose models it copies
MODEL_PRESETS = {"paper": "paper-de", "local": "demo"}


@dataclass(frozen=True)
class PartyRow:
    name: str
    positions: int
    observations: int
    kept: bool


@dataclass(frozen=True)
class StudyFile:
    text: str
    config: RunConfig
    parties: list[PartyRow]
    statements: int

    @property
    def observations(self) -> int:
        """Observations of the kept parties: what the study asks about."""
        return sum(row.observations for row in self.parties if row.kept)


def portable_spec(spec: str) -> str:
    """The spec as the config should hold it: a path relative to here becomes absolute (a
    config's paths are read from wherever ``run`` is started); a data-directory name stays."""
    kind, ref = parse_spec(spec)
    if kind == "demo":
        return f"demo:{ref}"
    path = Path(ref).expanduser()
    return f"{kind}:{path.resolve()}" if path.exists() else f"{kind}:{ref}"


def party_rows(election: Election, min_share: float) -> tuple[list[PartyRow], int]:
    """One row per party (sorted by name) and the election's statement count."""
    statements = len({p.statement.id for p in election.positions})
    positions = Counter(p.party.name for p in election.positions)
    observations = Counter(p.party.name for p in election.positions if p.has_rationale)
    rows = [
        PartyRow(
            name=name,
            positions=positions[name],
            observations=observations[name],
            kept=statements > 0 and observations[name] >= min_share * statements,
        )
        for name in sorted(positions, key=lambda n: (n.casefold(), n))
    ]
    return rows, statements


def study_file(
    election: Election,
    spec: str,
    *,
    models: str = "paper",
    min_share: float = DEFAULT_MIN_RATIONALE_SHARE,
    name: str | None = None,
    election_id: str | None = None,
) -> StudyFile:
    """The commented TOML for ``election`` (loaded from ``spec``, with ``election_id`` when
    the id was overridden)."""
    if models not in MODEL_PRESETS:
        raise ValueError(f"unknown models preset {models!r} (known: {', '.join(MODEL_PRESETS)})")
    preset = load_config(MODEL_PRESETS[models])
    rows, statements = party_rows(election, min_share)
    if not any(row.kept for row in rows):
        raise ValueError(
            f"no party of {election.id} gave rationales for {min_share:.0%} of its "
            f"{statements} statements, so the study would have no observations; lower "
            "--min-rationales (0 keeps every party with any rationale)"
            if rows
            else f"election {election.id} has no positions"
        )
    study_name = name or election.id
    lines = [
        *_header(election, spec, models, min_share, rows, statements),
        *_models(preset, models),
        *_design(election, models),
        *_election(election, spec, rows, statements, min_share, election_id),
    ]
    text = "\n".join(lines).replace("@NAME@", _string(study_name)) + "\n"
    config = parse_config(tomllib.loads(text), "<new study>")
    return StudyFile(text=text, config=config, parties=rows, statements=statements)


def _header(election, spec, models, min_share, rows, statements) -> list[str]:
    kept = [row for row in rows if row.kept]
    return [
        f"# A study of {_comment(election.title or election.id)} ({_comment(election.source)}),",
        f"# written by `polistemics new {_comment(spec)}`. Every key is explained above it;",
        "# docs/guides/new-election.md walks through the file, docs/cli.md lists the commands.",
        f"# {len(kept)} of {len(rows)} parties are kept: those with a rationale for at least "
        f"{min_share:.0%} of the",
        f"# {statements} statements ({sum(r.observations for r in kept)} observations). "
        "Check the plan and its cost first:",
        "#   polistemics run THIS_FILE --dry-run",
        "",
        "# The study's name: its run directory is runs/<name> unless output_dir is set.",
        "name = @NAME@",
        "",
    ]


def _models(preset: RunConfig, models: str) -> list[str]:
    source = MODEL_PRESETS[models]
    why = (
        ["# The paper's models (Table 3), all through OpenRouter: set OPENROUTER_API_KEY."]
        if models == "paper"
        else [
            "# The bundled local model (SmolLM2-135M via llama.cpp) in every role: no key needed,",
            "# but its scores prove that the pipeline works, they do not measure anything.",
        ]
    )
    return [
        *why,
        f"# Copied from the `{source}` preset; names are entries of the model registry",
        "# (polistemics/llm/presets/*.toml, or your own file named in models_file).",
        "# The models whose answers are scored:",
        f"targets = {_array(preset.targets)}",
        "# The judge panel: three seats, each answer's verdict is their strict majority.",
        f"judges = {_array(preset.judges)}",
        "# Rewrites each rationale into the standardised evidence the environments are built from.",
        f"standardiser = {_string(preset.standardiser)}",
        "# Writes the Vague environment's hedged passages.",
        f"vague_generator = {_string(preset.vague_generator)}",
        "# Checks that each Vague passage keeps the party's stance (failed ones are retried).",
        f"vague_auditor = {_string(preset.vague_auditor)}",
        "",
    ]


def _design(election: Election, models: str) -> list[str]:
    environments = [env.value for env in ALL_ENVIRONMENTS]
    if models == "local":
        ablations: list[str] = []
        why = "none with the local model: each doubles a share of the calls"
    elif election.language_code == "en":
        ablations, why = ["anon"], "an English election has no separate English variant"
    else:
        ablations, why = ["anon", "en"], "as in the paper"
    lines = [
        "# The information environments (paper Sec. 3); all six by default.",
        f"environments = {_array(environments)}",
        "# Variants besides the full one: 'anon' hides party names behind labels (Party A...),",
        f"# 'en' asks in English ({why}).",
        f"ablations = {_array(ablations)}",
        "# Seeds every draw (Noisy distractors, Vague modes, samples), so a rerun is identical.",
        "seed = 0",
    ]
    if models == "local":
        lines += [
            "# The local server is serial: judge after all answers, reusing shared prompt prefixes.",
            "overlap_judging = false",
            "# One Vague try per observation (the paper's three cost minutes on a small machine).",
            "vague_max_tries = 1",
        ]
    lines += [
        "# Stop cleanly once this many USD are spent (also: run --max-cost).",
        "# max_cost = 50.0",
        "# Mechanisms (docs/mechanisms.md; not in the paper): a stance-coder panel, the closed-book",
        "# prior probe, and every Contradictory item with the opposing chunk first as well.",
        "# stance_coder = ["
        + (
            '"gemini-3-flash-coder", "deepseek-v4-flash-coder", "mimo-v2.5-coder"]'
            if models == "paper"
            else '"local-coder"]'
        ),
        "# prior_probe = true",
        '# contradictory_swapped = "all"',
        "",
    ]
    return lines


def _election(election, spec, rows, statements, min_share, election_id) -> list[str]:
    lines = [
        "[[elections]]",
        "# The election, as KIND:PATH (`polistemics data list` shows the ones at hand).",
        f"source = {_string(spec)}",
    ]
    if election_id is not None:
        lines += [
            "# The election id (the source's own is replaced; names exports/<id>/).",
            f"id = {_string(election_id)}",
        ]
    lines += [
        f"# Only these statement numbers (1-based); all {statements} when unset.",
        "# statements = [1, 2, 3]",
        "# The parties asked about, named as the source names them. Kept: a rationale for at least",
        f"# {min_share:.0%} of the statements (`polistemics new --min-rationales`). Uncomment a line",
        "# to add a party, comment one out to drop it. Observations are a party's answers with a",
        "# rationale: the benchmark builds its items from those only.",
        "parties = [",
    ]
    width = max(len(_string(row.name)) for row in rows) + 1
    for row in rows:
        entry = f"{_string(row.name)},".ljust(width)
        missing = row.positions - row.observations
        counts = f"{row.observations} observations ({row.positions} answers, {missing} without a rationale)"
        lines.append(f"  {entry}  # {counts}" if row.kept else f"  # {entry}  # {counts}")
    lines.append("]")
    return lines


def _string(value: str) -> str:
    """A TOML basic string; JSON's escapes are all valid TOML, so control characters and
    quotes in a source's names cannot end the string or the line."""
    return json.dumps(value, ensure_ascii=False)


def _array(values: list[str]) -> str:
    return "[" + ", ".join(_string(v) for v in values) + "]"


def _comment(text: str) -> str:
    """Source text inside a comment: on one line, no control characters."""
    return " ".join("".join(c if c.isprintable() else " " for c in str(text)).split())
