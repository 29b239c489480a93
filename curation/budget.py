"""Budgets checked on contribution text before any recursive parser sees it.

The parsing budgets are the evaluation's own (`bfcl_action.safety.budget`, the one mechanism the
tool loaders use for PR files): `load_json` and `check_value` call it with curation's
limits and turn its `BudgetError` into a drop reason (`too_large`, `too_deep`,
`number_too_large`). `check_refs` adds what only curation reports separately: a `$ref`
cycle or an expansion past `MAX_REF_EXPANSION` nodes is named as such before the tool
loaders (whose own expansion budget also holds) see the schema.
"""

from __future__ import annotations

from typing import Any

from bfcl_action.safety.budget import BudgetError, ParseBudget, loads_json
from bfcl_action.safety.budget import check_value as check_parsed

MAX_LINE_BYTES = 8 * 1024 * 1024
"""A contribution line larger than this is refused unread (a 5 MB description still fits,
so the validate stage can name the field that is too long)."""
MAX_NESTING = 64
"""Deeper than any real tool schema plus its contribution envelope."""
MAX_DIGITS = 1_000
MAX_REF_EXPANSION = 20_000
"""Schema nodes one function may expand to once every `$ref` is inlined."""


class BudgetExceeded(ValueError):
    """Input over a budget; `reason` is the drop reason, `detail` says which budget."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


CURATION_BUDGET = ParseBudget(
    max_file_bytes=MAX_LINE_BYTES,
    max_depth=MAX_NESTING,
    max_nodes=200_000,
    max_int_digits=MAX_DIGITS,
)


def _reason(message: str) -> str:
    text = message.lower()
    if "nesting" in text or "deep" in text:
        return "too_deep"
    if "integer" in text or "digit" in text:
        return "number_too_large"
    return "too_large"


def load_json(
    text: str, *, max_bytes: int = MAX_LINE_BYTES, max_nodes: int = CURATION_BUDGET.max_nodes
) -> Any:
    """`json.loads` within the shared budget; a budget breach is a `BudgetExceeded` with a
    drop reason, invalid JSON an `InputError` (from `bfcl_action.safety.budget.loads_json`)."""
    budget = ParseBudget(
        max_file_bytes=max_bytes,
        max_depth=CURATION_BUDGET.max_depth,
        max_nodes=max_nodes,
        max_int_digits=CURATION_BUDGET.max_int_digits,
    )
    if len(text) > max_bytes:
        raise BudgetExceeded("too_large", f"{len(text)} characters > {max_bytes}")
    try:
        return loads_json(text, budget=budget)
    except BudgetError as exc:
        raise BudgetExceeded(_reason(exc.message), exc.message) from None


def check_value(raw: Any) -> None:
    """The shared budget on an already-parsed value (issue forms, YAML), then `$ref`s."""
    try:
        check_parsed(raw, budget=CURATION_BUDGET)
    except BudgetError as exc:
        raise BudgetExceeded(_reason(exc.message), exc.message) from None
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
