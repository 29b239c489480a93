"""Budgets checked on raw contribution text before any recursive parser sees it.

`json.loads`, pydantic and jsonschema all recurse: a line nested a few thousand levels deep
raises `RecursionError` out of them, and an integer of more than 4,300 digits raises
`ValueError`. A single scan of the text (strings skipped) measures the nesting depth and
the longest run of digits, so such a line is rejected with a reason instead of aborting
the build. This is curation's own pre-check; the tool loaders keep their own budgets.
"""

from __future__ import annotations

import re

MAX_LINE_BYTES = 8 * 1024 * 1024
"""A contribution line larger than this is refused unread (a 5 MB description still fits,
so the validate stage can name the field that is too long)."""
MAX_NESTING = 64
"""Deeper than any real tool schema plus its contribution envelope."""
MAX_DIGITS = 1_000

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
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
    depth = nesting_depth(text)
    if depth > MAX_NESTING:
        raise BudgetExceeded("too_deep", f"nested {depth} levels > {MAX_NESTING}")
    if _DIGITS.search(_STRING.sub("", text)):
        raise BudgetExceeded("number_too_large", f"a number has more than {MAX_DIGITS} digits")
