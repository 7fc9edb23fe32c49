"""``runlog`` is the bottom of everything that reads or writes a run directory: it imports only
the bottom modules (not the environments whose items it persists, nor the model client layer),
and no package of polistemics imports another in a loop."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import polistemics

SOURCE = Path(polistemics.__file__).parent
# The bottom modules: the common records and the path and file helpers. runlog imports nothing
# else of polistemics (not the environments, whose items it persists, nor the model client layer).
BOTTOM = {
    "conditions",
    "csv_tables",
    "errors",
    "jsonl",
    "lazy_exports",
    "paths",
    "records",
    "rubrics",
}
ALLOWED = BOTTOM | {"runlog"}


def _imports(path: Path) -> set[str]:
    """The polistemics modules a file imports (``polistemics.`` stripped)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found.update(n.removeprefix("polistemics.") for n in names if n.startswith("polistemics."))
    return found


def _allowed(module: str) -> bool:
    return any(module == a or module.startswith(a + ".") for a in ALLOWED)


def test_runlog_imports_nothing_above_it() -> None:
    imported = {
        (path.name, module)
        for path in (SOURCE / "runlog").glob("*.py")
        for module in _imports(path)
    }
    assert imported, "runlog's imports were not found"
    assert sorted((name, m) for name, m in imported if not _allowed(m)) == []


def test_the_bottom_modules_runlog_uses_import_only_each_other() -> None:
    for name in BOTTOM:
        for module in _imports(SOURCE / f"{name}.py"):
            assert module.split(".")[0] in BOTTOM, f"{name}.py imports {module}"


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in SOURCE.rglob("*.py"):
        source = path.relative_to(SOURCE).parts[0].removesuffix(".py")
        for module in _imports(path):
            target = module.split(".")[0]
            if target and target != source:
                graph[source].add(target)
    return graph


def test_no_package_imports_another_in_a_loop() -> None:
    graph = _package_graph()
    for start in list(graph):
        seen, stack = set(), list(graph[start])
        while stack:
            package = stack.pop()
            assert package != start, f"{start} imports itself through {sorted(seen)}"
            if package not in seen:
                seen.add(package)
                stack.extend(graph.get(package, ()))


def test_the_stages_point_down_the_pipeline() -> None:
    graph = _package_graph()
    order = ["runlog", "llm", "environments", "answers", "judging", "coding", "scoring"]
    for lower, package in enumerate(order):
        above = set(order[lower + 1 :])
        assert not graph[package] & above, f"{package} imports {graph[package] & above}"
