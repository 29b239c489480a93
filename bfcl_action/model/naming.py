"""Function names the OpenAI API accepts, mapped reversibly to the names in the test case.

The API allows `^[a-zA-Z0-9_-]{1,64}$`; BFCL has names such as `math.factorial`. Upstream
rewrites `.` to `_` and lets the checker undo it per model (`underscore_to_dot`), which breaks
when a set holds both `a.b` and `a_b`. Here each function set gets its own table, so a
model's call is mapped back to exactly the function it was offered, and the checker sees the
original names.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_ALLOWED = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_FORBIDDEN_CHAR = re.compile(r"[^a-zA-Z0-9_-]")
MAX_NAME = 64


def is_api_name(name: str) -> bool:
    """True when the OpenAI API accepts `name` as a function name as it is."""
    return bool(_ALLOWED.match(name))


def _suffix(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


@dataclass(frozen=True)
class NameMap:
    """Original name <-> API name for one function set; names the API accepts map to themselves."""

    to_api: dict[str, str] = field(default_factory=dict)
    to_original: dict[str, str] = field(default_factory=dict)

    @classmethod
    def for_names(cls, names: Iterable[str]) -> NameMap:
        originals = list(dict.fromkeys(names))
        taken = {n for n in originals if is_api_name(n)}
        to_api: dict[str, str] = {n: n for n in taken}
        for name in originals:
            if name in to_api:
                continue
            candidate = _FORBIDDEN_CHAR.sub("_", name)[:MAX_NAME] or "f"
            if candidate in taken:
                candidate = f"{candidate[: MAX_NAME - 9]}_{_suffix(name)}"
            to_api[name] = candidate
            taken.add(candidate)
        return cls(to_api=to_api, to_original={v: k for k, v in to_api.items()})

    @property
    def identity(self) -> bool:
        return all(k == v for k, v in self.to_api.items())

    def api_name(self, name: str) -> str:
        return self.to_api.get(name, name)

    def original(self, api_name: str) -> str:
        """The offered function's name; a name the model invented is returned unchanged."""
        return self.to_original.get(api_name, api_name)


def with_api_names(output: Any, names: NameMap) -> Any:
    """FC calls `[{name: args}]` under the API-safe names the model was offered.

    BFCL's own runs of FC models whose API rejects dots record `math_factorial`; result files
    written for those models use the same names so the official scorer agrees.
    """
    if names.identity or not isinstance(output, list):
        return output
    return [
        {names.api_name(str(k)): v for k, v in call.items()} if isinstance(call, dict) else call
        for call in output
    ]
