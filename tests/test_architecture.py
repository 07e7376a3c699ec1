"""The package's shape, read from its imports: layers import downwards only, commands
import the core and never each other, renderers never touch a tokenizer, no cycles."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tokbench"

#: each top-level part of the package and its layer; a module imports only from its own
#: layer or below (the package root's lazy public API may import anything)
LAYERS = {
    "version": 0, "constants": 0, "errors": 0, "paths": 0, "environment": 0, "atomic": 0,
    "registry": 0, "record": 0, "results": 0,
    "adapters": 1, "suites": 1,
    "metrics": 2, "loading": 2,
    "engine": 3, "speed": 3, "vocab": 3, "parity": 3,
    "ci": 4,
    "render": 5,
    "cli": 6,
    "commands": 7,
    "__main__": 8,
}
#: what renderers may never import: anything that loads or runs a tokenizer
NOT_FOR_RENDERERS = ("adapters", "loading", "engine", "speed")


def _modules() -> dict[str, set[str]]:
    """module -> the tokbench modules it imports (at any depth of the code)."""
    out: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(("tokbench", *parts)).removesuffix(".__init__")
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.split(".")[0] == "tokbench":
                    found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.split(".")[0] == "tokbench")
        out[name] = found
    return out


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


MODULES = _modules()


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {_part(m) for m in MODULES} - {""}
    assert parts <= set(LAYERS), sorted(parts - set(LAYERS))


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _part(m)))
def test_imports_go_downwards(module: str) -> None:
    layer = LAYERS[_part(module)]
    upward = [m for m in MODULES[module] if m == "tokbench" or LAYERS[_part(m)] > layer]
    assert not upward, f"{module} imports {upward} from a higher layer"


def test_commands_never_import_each_other() -> None:
    bad = [(m, i) for m, imports in MODULES.items() if _part(m) == "commands"
           for i in imports if _part(i) == "commands" and i != "tokbench.commands"]
    assert not bad


def test_renderers_never_touch_a_tokenizer() -> None:
    bad = [(m, i) for m, imports in MODULES.items() if _part(m) == "render"
           for i in imports if _part(i) in NOT_FOR_RENDERERS]
    assert not bad


def test_no_import_cycles() -> None:
    graph = {m: {i for i in imports if i in MODULES} for m, imports in MODULES.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                raise AssertionError("import cycle: " + " -> ".join(
                    [*stack[stack.index(n):], n]))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_tests_import_helpers_one_way() -> None:
    """``from tests._toy import X``, never ``from _toy import X`` (see tests/conftest.py)."""
    tests = Path(__file__).resolve().parent
    helpers = {p.stem for p in tests.glob("_*.py")}
    bad = []
    for path in tests.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            bad += [f"{path.name}:{node.lineno}" for n in names if n.split(".")[0] in helpers]
            if isinstance(node, ast.ImportFrom) and node.module == "tests":
                bad += [f"{path.name}:{node.lineno}"]  # from tests import _toy
    assert helpers and not bad, bad
