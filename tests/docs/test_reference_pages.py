"""The docs site's generated reference (docs/hooks/reference_pages.py) matches the code: every
command and visible option of the CLI with its help text, every config and registry key with a
meaning, every marker of the pages known, and every page of docs/ in the site's menu."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
import typer.main
import yaml

from polistemics.cli import build_app

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def load_hook():
    spec = importlib.util.spec_from_file_location(
        "reference_pages", DOCS / "hooks" / "reference_pages.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = load_hook()


def every_command() -> dict[str, object]:
    found = {}

    def walk(command, path):
        found[path] = command
        for name, sub in getattr(command, "commands", {}).items():
            if not getattr(sub, "hidden", False):
                walk(sub, f"{path} {name}")

    walk(typer.main.get_command(build_app()), "polistemics")
    return found


def test_the_cli_page_lists_every_command_option_and_help_text():
    page = hook.cli_page()
    headings = re.findall(r"^#+ `(polistemics[^`]*)`$", page, re.M)
    commands = every_command()
    assert headings == list(dict.fromkeys(headings)), "a command is listed twice"
    assert set(headings) == set(commands)
    for path, command in commands.items():
        section = page.split(f"`{path}`\n", 1)[1].split("\n#", 1)[0]
        assert f"Usage: {path}" in section, path
        for param in command.params:
            if getattr(param, "hidden", False):
                assert not any(
                    f"{opt} " in section or f"{opt}`" in section for opt in param.opts
                ), f"{path}: hidden {param.opts} shown"
                continue
            names = param.opts if any(o.startswith("-") for o in param.opts) else [param.name]
            assert all(name in section for name in names), (path, names)
            if param.help:
                assert " ".join(param.help.split()).replace("|", "\\|") in section, (
                    path,
                    param.name,
                )


def test_flags_are_shown_without_a_type():
    # The root group blanks flags' metavars as --help does ("--dry-run", not "--dry-run <bool>").
    assert "| `--dry-run` |" in hook.cli_page()


@pytest.mark.parametrize(
    "marker", ["run-config", "election", "judge-repeats", "model-endpoint", "reasoning", "run-json"]
)
def test_every_user_facing_key_has_a_meaning(marker):
    model, _ = hook.documented_models()[marker]
    missing = [key for key in model.model_fields if not hook.description(model, key)]
    assert not missing, f"{model.__name__}: describe {missing} in its model or NOTES"
    table = hook.fields_table(model)
    for key, field in model.model_fields.items():
        assert f"| `{field.alias or key}` |" in table


def test_notes_name_only_existing_keys():
    models = {model.__name__: model for model, _ in hook.documented_models().values()}
    stale = [(m, k) for m, k in hook.NOTES if m not in models or k not in models[m].model_fields]
    assert not stale


def test_types_and_defaults_read_as_toml():
    from polistemics.run.config import RunConfig

    table = hook.fields_table(RunConfig)
    assert '| `ablations` | list of "anon" \\| "en" | `[]` |' in table
    assert "| `max_cost` | number \\| unset | `unset` |" in table
    assert "| `name` | string | `required` |" in table


def test_every_marker_in_the_docs_is_known_and_expands():
    known = hook.generators()
    used = set()
    for page in DOCS.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        used |= set(hook.MARKER.findall(text))
        assert not hook.MARKER.findall(hook.expand(text)), page
    assert used <= set(known)
    assert used == set(known), f"generated but on no page: {set(known) - used}"
    with pytest.raises(KeyError, match="unknown generated table"):
        hook.expand("<!-- generated: no-such-table -->")


def nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [p for value in node.values() for p in nav_pages(value)]
    return [p for item in node for p in nav_pages(item)]


def test_every_docs_page_is_in_the_menu_and_exists():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    in_nav = nav_pages(config["nav"])
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert set(in_nav) == pages
    # The paths other code and tests name stay where they are.
    assert {"cli.md", "analysis-tables.md"} <= pages
