"""The model layer's layering, checked on the source: `model` imports neither `runner` nor
`multiturn`; `multiturn` (the conversation loop) sits on `model`, never on `runner`; and
no import cycle runs through the three. (import-linter contracts in `nox -s lint` state
the same for the whole package; this test names the modules when it fails.)"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2] / "bfcl_action"
PACKAGES = ("bfcl_action.model", "bfcl_action.multiturn", "bfcl_action.runner")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, known: set[str]) -> set[str]:
    """Every bfcl_action module `path` imports, lazy and TYPE_CHECKING imports included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in known else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in known}


def graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in ROOT.rglob("*.py")}
    known = set(files)
    inside = {n: p for n, p in files.items() if n.startswith(PACKAGES)}
    return {n: imports_of(p, known) - {n} for n, p in inside.items()}


def test_the_model_layer_imports_nothing_above_it() -> None:
    upward = {
        (m, t)
        for m, targets in graph().items()
        if m.startswith("bfcl_action.model")
        for t in targets
        if t.startswith(("bfcl_action.runner", "bfcl_action.multiturn"))
    }
    assert upward == set()


def test_the_conversation_loop_sits_on_the_model_layer_not_on_the_runner() -> None:
    upward = {
        (m, t)
        for m, targets in graph().items()
        if m.startswith("bfcl_action.multiturn")
        for t in targets
        if t.startswith("bfcl_action.runner")
    }
    assert upward == set()


def test_no_import_cycle_among_model_multiturn_and_runner() -> None:
    edges = graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if target not in edges:
                continue
            if state.get(target) == 1:
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert cycles == []
