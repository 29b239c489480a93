"""Budgets checked on raw contribution text before any recursive parser sees it.

`json.loads`, pydantic and jsonschema all recurse: a line nested a few thousand levels deep
raises `RecursionError` out of them, and an integer of more than 4,300 digits raises
`ValueError`. A single scan of the text (strings skipped) measures the nesting depth and
the longest run of digits, so such a line is rejected with a reason instead of aborting
the build. This is curation's own pre-check; the tool loaders keep their own budgets.
"""

from __future__ import annotations

import re
from typing import Any

MAX_LINE_BYTES = 8 * 1024 * 1024
"""A contribution line larger than this is refused unread (a 5 MB description still fits,
so the validate stage can name the field that is too long)."""
MAX_NESTING = 64
"""Deeper than any real tool schema plus its contribution envelope."""
MAX_DIGITS = 1_000

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")
_DIGITS = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")


class BudgetExceeded(ValueError):
    """Raw text over a budget; `reason` is the drop reason, the message says which budget."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def nesting_depth(text: str) -> int:
    """Deepest bracket nesting of JSON text, strings ignored (linear, no recursion)."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRING.sub("", text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def check_json_text(text: str, *, max_bytes: int = MAX_LINE_BYTES) -> None:
    """Raise `BudgetExceeded` when JSON text is too large, too deep or holds a huge number."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise BudgetExceeded("too_large", f"{size} bytes > {max_bytes}")
    if text.count("[") + text.count("{") > MAX_NESTING:
        depth = nesting_depth(text)
        if depth > MAX_NESTING:
            raise BudgetExceeded("too_deep", f"nested {depth} levels > {MAX_NESTING}")
    if _DIGITS.search(text) and _DIGITS.search(_STRING.sub("", text)):
        raise BudgetExceeded("number_too_large", f"a number has more than {MAX_DIGITS} digits")


MAX_NODES = 200_000
"""Values in one contribution (a 10,000-value enum fits; the validate stage judges it)."""
MAX_REF_EXPANSION = 20_000
"""Schema nodes one function may expand to once every `$ref` is inlined."""


def check_value(raw: Any) -> None:
    """The same budgets on an already-parsed value (issue forms, YAML), walked iteratively
    so that neither depth nor size can recurse or exhaust us; then the `$ref` budget."""
    stack: list[tuple[Any, int]] = [(raw, 0)]
    nodes = 0
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if depth > MAX_NESTING:
            raise BudgetExceeded("too_deep", f"nested more than {MAX_NESTING} levels")
        if nodes > MAX_NODES:
            raise BudgetExceeded("too_large", f"more than {MAX_NODES} values")
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
        elif isinstance(node, int) and not isinstance(node, bool) and node.bit_length() > 3_300:
            raise BudgetExceeded("number_too_large", f"a number has more than {MAX_DIGITS} digits")
    functions = raw.get("functions") if isinstance(raw, dict) else None
    if isinstance(functions, list):
        for fn in functions:
            for schema in _ref_roots(fn):
                check_refs(schema)


def _ref_roots(fn: Any) -> list[dict[str, Any]]:
    """The documents `#/...` pointers resolve against: every object holding definitions
    (`parameters`, `inputSchema`, `function.parameters`, whatever the tool format)."""
    roots: list[dict[str, Any]] = []
    stack = [fn]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "$defs" in node or "definitions" in node:
                roots.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return roots


def _resolve(ref: str, root: dict[str, Any]) -> Any:
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def check_refs(root: dict[str, Any]) -> None:
    """Reject a schema whose `$ref`s form a cycle or expand past `MAX_REF_EXPANSION` nodes
    (a 2.5 KB document doubling at each of 40 levels expands to 2^40). Sizes are memoised
    per reference, so the check is linear in the document however large the expansion."""
    memo: dict[str, int] = {}
    active: set[str] = set()

    def size(node: Any, depth: int) -> int:
        if depth > 4 * MAX_NESTING:
            raise BudgetExceeded("too_deep", "$ref chain nested too deeply")
        if isinstance(node, list):
            return 1 + sum(size(v, depth + 1) for v in node)
        if not isinstance(node, dict):
            return 1
        total = 1
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            if ref in active:
                raise BudgetExceeded("ref_cycle", f"$ref {ref!r} refers to itself")
            if ref not in memo:
                active.add(ref)
                memo[ref] = size(_resolve(ref, root), depth + 1)
                active.discard(ref)
            total += memo[ref]
        for key, value in node.items():
            if key in ("$defs", "definitions") or key == "$ref":
                continue
            total += size(value, depth + 1)
            if total > MAX_REF_EXPANSION:
                break
        if total > MAX_REF_EXPANSION:
            raise BudgetExceeded(
                "ref_expansion", f"$ref expansion exceeds {MAX_REF_EXPANSION} schema nodes"
            )
        return total

    size(root, 0)
