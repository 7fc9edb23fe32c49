"""A valid example for every run-config key, shown when its value fails (issue 28)."""

from __future__ import annotations

import tomllib

import pytest

from polistemics.llm.registry import default_registry
from polistemics.run.config import (
    ComparisonConfig,
    ConfigError,
    ElectionConfig,
    JudgeRepeatsConfig,
    NavigationConfig,
    PushbackConfig,
    RunConfig,
    parse_config,
)
from polistemics.run.config_examples import EXAMPLES, example_for

BASE = {
    "name": "x",
    "targets": ["local"],
    "judges": ["local", "local", "local"],
    "standardiser": "local",
    "vague_generator": "local",
    "vague_auditor": "local",
    "elections": [{"source": "demo"}],
}
TABLES = {
    (): RunConfig,
    ("elections",): ElectionConfig,
    ("judge_repeats",): JudgeRepeatsConfig,
    ("navigation",): NavigationConfig,
    ("comparison",): ComparisonConfig,
    ("pushback",): PushbackConfig,
}


def test_every_key_has_an_example() -> None:
    keys = {(*table, field) for table, model in TABLES.items() for field in model.model_fields}
    assert keys == set(EXAMPLES)


def _config_with(path: tuple[str, ...], example: str) -> dict:
    """BASE with the example's value set at its key (tables: a minimal valid table)."""
    data = {key: value for key, value in BASE.items()}
    data["elections"] = [dict(BASE["elections"][0])]
    if example.startswith("[["):
        data[path[0]] = [{"source": "wahlomat:bundestagswahl2025"}]
        return data
    if example.startswith("[navigation]"):
        data["navigation"] = {"parties": 4}
        return data
    if example.startswith("[comparison]"):
        data["comparison"] = {"differing": 2}
        return data
    if example.startswith("["):
        data[path[0]] = {"share": 0.25} if path[0] == "pushback" else {"items": 50}
        return data
    value = tomllib.loads(example)[path[-1]]
    if path[0] == "elections":
        data["elections"][0][path[-1]] = value
    elif path[0] == "judge_repeats":
        data["judge_repeats"] = {"items": 50, path[-1]: value}
    elif path[0] in ("navigation", "comparison") and len(path) == 2:
        data[path[0]] = {path[-1]: value}
    elif path[0] == "pushback":
        data["pushback"] = {path[-1]: value}
    else:
        data[path[0]] = value
    return data


@pytest.mark.parametrize(("path", "example"), sorted(EXAMPLES.items()))
def test_every_example_is_valid_where_it_stands(path: tuple[str, ...], example: str) -> None:
    data = _config_with(path, example)
    if path == ("elections", "scope"):
        data["elections"][0]["source"] = "wahlomat:bundestagswahl2025"
    if path in (("prior_probe",), ("coding_environments",), ("tasks",)) or path[0] == "pushback":
        data["stance_coder"] = ["local"]
    parse_config(data, "<example>")


def test_example_model_names_are_in_the_registry() -> None:
    known = set(default_registry().models)
    for key in ("targets", "judges", "stance_coder"):
        names = tomllib.loads(EXAMPLES[(key,)])[key]
        assert set(names) <= known, key
    for key in ("standardiser", "vague_generator", "vague_auditor"):
        assert tomllib.loads(EXAMPLES[(key,)])[key] in known, key


def test_a_wrong_value_shows_the_example_for_its_key() -> None:
    data = _config_with(("elections", "source"), 'source = "demo"')
    data["elections"][0]["statements"] = 3
    data["samples"] = "two"
    with pytest.raises(ConfigError) as caught:
        parse_config(data, "study.toml")
    message = str(caught.value)
    assert (
        "elections.0.statements: Input should be a valid list "
        "(for example: statements = [1, 2, 3])" in message
    )
    assert "samples: Input should be a valid integer" in message
    assert "(for example: samples = 1)" in message


def test_an_item_of_a_list_points_to_the_list_example() -> None:
    assert example_for(("elections", 0, "statements", 2)) == EXAMPLES[("elections", "statements")]
    assert example_for(("ablations", 1)) == EXAMPLES[("ablations",)]
    assert example_for(()) is None


def test_an_unknown_key_names_the_key_it_resembles() -> None:
    data = _config_with(("elections", "source"), 'source = "demo"')
    data["elections"][0]["statments"] = [1]
    data["vague_max_try"] = 2
    data["colour"] = "red"
    with pytest.raises(ConfigError) as caught:
        parse_config(data, "study.toml")
    message = str(caught.value)
    assert "elections.0.statments: Extra inputs are not permitted; did you mean 'statements'?" in (
        message
    )
    assert "vague_max_try: Extra inputs are not permitted; did you mean 'vague_max_tries'?" in (
        message
    )
    assert "colour: Extra inputs are not permitted (not a config key)" in message


def test_inline_parties_and_a_scope_exclude_each_other() -> None:
    data = _config_with(("elections", "parties"), 'parties = ["SPD"]')
    config = parse_config(data, "<x>")
    scope = config.elections[0].party_scope()
    assert [party.name for party in scope.parties] == ["SPD"]
    data["elections"][0]["scope"] = "demo"
    with pytest.raises(ConfigError, match="set scope or parties, not both"):
        parse_config(data, "<x>")
    for bad, reason in ((["SPD", " SPD"], "listed twice"), ([" "], "empty"), ([], "at least 1")):
        data["elections"][0] = {"source": "demo", "parties": bad}
        with pytest.raises(ConfigError, match=reason):
            parse_config(data, "<x>")
