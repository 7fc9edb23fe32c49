"""No import cycle anywhere in ``src/polistemics``.

The graph is read from the source with ``ast``, so an import inside a function counts: a lazy
import only hides a cycle, it does not remove it. Imports under ``if TYPE_CHECKING:`` are left
out (they never run). An edge goes to the module imported (``from a.b import c`` goes to
``a.b.c`` when that is a module, else to ``a.b``); a package's ``__init__`` running before its
submodules is how Python works, not a cycle.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

import polistemics

SRC = Path(polistemics.__file__).resolve().parent.parent


def _modules(src: Path) -> dict[str, Path]:
    found = {}
    for path in sorted((src / "polistemics").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    targets: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                visit_else(child)
                continue
            if isinstance(child, ast.Import):
                targets.update(a.name for a in child.names if a.name in modules)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package[: len(package) - (child.level - 1)]
                    source = ".".join([*base, *([child.module] if child.module else [])])
                else:
                    source = child.module or ""
                for alias in child.names:
                    submodule = f"{source}.{alias.name}"
                    if submodule in modules:
                        targets.add(submodule)
                    elif source in modules:
                        targets.add(source)
            visit(child)

    def visit_else(node: ast.If) -> None:
        for child in node.orelse:
            visit(ast.Module(body=[child], type_ignores=[]))

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    targets.discard(name)
    return targets


def import_graph(src: Path) -> dict[str, set[str]]:
    """Module -> the polistemics modules it imports (anywhere in the file)."""
    modules = _modules(src)
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return list(error.args[1])
    return None


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph(SRC)
    assert "polistemics.report.sections" in graph and len(graph) > 100
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("lazy", [False, True])
def test_a_cycle_is_found_even_through_a_lazy_import(tmp_path: Path, lazy: bool) -> None:
    package = tmp_path / "polistemics"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from polistemics.b import thing\n")
    inner = "def f():\n    from polistemics import a\n" if lazy else "import polistemics.a\n"
    (package / "b.py").write_text(inner + "thing = 1\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from polistemics import d\n"
    )
    (package / "d.py").write_text("from . import c\n")  # c -> d only for typing: no cycle
    graph = import_graph(tmp_path)
    assert graph["polistemics.d"] == {"polistemics.c"} and graph["polistemics.c"] == set()
    assert set(find_cycle(graph) or []) == {"polistemics.a", "polistemics.b"}
