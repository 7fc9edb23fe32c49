"""A valid example for every run-config key, shown when a value fails validation.

``statements = 3`` fails with "Input should be a valid list"; the message then adds
"(for example: statements = [1, 2, 3])". Keys of an ``[[elections]]`` table are looked up under
``elections``, those of ``[judge_repeats]`` under ``judge_repeats`` (``[pushback]`` likewise). Every example is a TOML
line that validates in its place (tests/run/test_config_examples.py checks each against the
config model), so the examples cannot drift from the schema unnoticed.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

# key path (list indices dropped) -> a TOML line that is valid for it
EXAMPLES: dict[tuple[str, ...], str] = {
    ("name",): 'name = "my-study"',
    ("elections",): '[[elections]] with source = "wahlomat:bundestagswahl2025"',
    ("elections", "source"): 'source = "wahlomat:bundestagswahl2025"',
    ("elections", "scope"): 'scope = "de-btw2025"',
    ("elections", "id"): 'id = "de_btw2025"',
    ("elections", "statements"): "statements = [1, 2, 3]",
    ("elections", "parties"): 'parties = ["SPD", "CDU / CSU"]',
    ("targets",): 'targets = ["gpt-5.4", "claude-sonnet-4.6"]',
    ("judges",): (
        'judges = ["gemini-3-flash-judge", "deepseek-v4-flash-judge", "mimo-v2.5-judge"]'
    ),
    ("standardiser",): 'standardiser = "gemini-3-flash-standardiser"',
    ("vague_generator",): 'vague_generator = "gemini-3-flash-vague"',
    ("vague_auditor",): 'vague_auditor = "gemini-3-flash-audit"',
    ("environments",): 'environments = ["baseline", "absent", "vague"]',
    ("ablations",): 'ablations = ["anon", "en"]',
    ("samples",): "samples = 1",
    ("overlap_judging",): "overlap_judging = true",
    ("seed",): "seed = 0",
    ("embeddings",): 'embeddings = "use"',
    ("vague_max_tries",): "vague_max_tries = 3",
    ("standardise_retries",): "standardise_retries = 2",
    ("max_cost",): "max_cost = 50.0",
    ("check_disk_space",): "check_disk_space = false",
    ("concurrency",): "concurrency = 8",
    ("models_file",): 'models_file = "models.toml"',
    ("output_dir",): 'output_dir = "runs/my-study"',
    ("loo_min_items",): "loo_min_items = 5",
    ("judge_repeats",): "[judge_repeats] with items = 50",
    ("judge_repeats", "judges"): 'judges = "all"',
    ("judge_repeats", "items"): "items = 50",
    ("judge_repeats", "repeats"): "repeats = 2",
    ("stance_coder",): 'stance_coder = ["gemini-3-flash-coder"]',
    ("coding_environments",): 'coding_environments = ["absent", "contradictory"]',
    ("prior_probe",): "prior_probe = false",
    ("contradictory_swapped",): 'contradictory_swapped = "half"',
    ("tasks",): 'tasks = ["party_position", "navigation", "comparison"]',
    ("navigation",): "[navigation] with parties = 4",
    ("navigation", "parties"): "parties = 4",
    ("navigation", "context_tokens"): "context_tokens = 6000",
    ("navigation", "over_budget"): 'over_budget = "refuse"',
    ("comparison",): "[comparison] with differing = 2",
    ("comparison", "differing"): "differing = 2",
    ("comparison", "agreeing"): "agreeing = 1",
    ("pushback",): "[pushback] with share = 0.25",
    ("pushback", "environments"): 'environments = ["baseline", "vague"]',
    ("pushback", "share"): "share = 0.25",
    ("pushback", "pressures"): 'pressures = ["false_correction", "are_you_sure"]',
    ("pushback", "seed"): "seed = 7",
    ("compositions",): 'compositions = ["ie_clarity_vague+ie_noise"]',
}


def key_path(loc: Sequence[str | int]) -> tuple[str, ...]:
    """('elections', 'statements') for pydantic's ('elections', 0, 'statements', 2)."""
    return tuple(part for part in loc if isinstance(part, str))


def example_for(loc: Sequence[str | int]) -> str | None:
    """The example for the key an error points at (or the nearest key above it)."""
    path = key_path(loc)
    while path:
        if path in EXAMPLES:
            return EXAMPLES[path]
        path = path[:-1]
    return None


def similar_key(loc: Sequence[str | int]) -> str | None:
    """For an unknown key, the known key of that table it most resembles ('statments')."""
    path = key_path(loc)
    if not path:
        return None
    siblings = [key[-1] for key in EXAMPLES if key[:-1] == path[:-1]]
    matches = difflib.get_close_matches(path[-1], siblings, n=1, cutoff=0.7)
    return matches[0] if matches else None
