"""An expected answer rendered as one concrete output.

Used to prove an answer is passable before anyone relies on it (own cases at load time,
Live contributions at curation): if even the answer's own first options fail the checker,
no model output ever could pass.
"""

from __future__ import annotations

from typing import Any

from bfcl_action.core.records import Call, ExpectedCall


def _concrete(option: Any, omit_optional: bool) -> Any:
    """One concrete value for an option; BFCL nests option lists inside dict answers."""
    if isinstance(option, dict):
        out: dict[str, Any] = {}
        for key, inner in option.items():
            if not isinstance(inner, list):
                out[key] = inner
                continue
            real = [o for o in inner if o != ""]
            if not real or (omit_optional and "" in inner):
                continue
            out[key] = _concrete(real[0], omit_optional)
        return out
    if isinstance(option, list):
        return [_concrete(x, omit_optional) if isinstance(x, dict) else x for x in option]
    return option


def concrete_calls(expected: list[ExpectedCall], *, omit_optional: bool = False) -> list[Call]:
    """Each expected call with every parameter's first real option (`""` means "may be
    omitted"); with `omit_optional`, every omittable parameter is left out instead."""
    calls: list[Call] = []
    for call in expected:
        for name, params in call.items():
            args: dict[str, Any] = {}
            for param, options in params.items():
                real = [o for o in options if o != ""]
                if not real or (omit_optional and "" in options):
                    continue
                args[param] = _concrete(real[0], omit_optional)
            calls.append(Call(name=name, arguments=args))
    return calls
