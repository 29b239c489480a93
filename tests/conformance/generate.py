"""Deterministic model outputs for conformance: the ground truth and seeded mutations of it.

Every sample is a model output for one official entry, in one representation:
- `decoded`: the call list `[{name: {arg: value}}]` as a checker receives it after decoding;
- `fc`: BFCL's FC result form `[{name: "<json args>"}]`;
- `prompt`: raw model text (Python call lists; Java / JavaScript call syntax).

Mutations work on typed Python values first; Java and JavaScript values are then encoded as
the source text those categories expect (`"5L"`, `"new int[]{1, 2}"`, `"[1, 2]"`). The same
seed always yields the same samples, so a disagreement can be reproduced by its key.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from bfcl_action.core.categories import CATEGORIES, Checker, Matching
from bfcl_action.core.records import TestCase

Calls = list[dict[str, dict[str, Any]]]

FC_SHARE = 0.3
"""Share of mutated samples (besides the ground truth) also rendered as FC JSON strings."""


@dataclass(frozen=True)
class Sample:
    case_id: str
    kind: str
    rep: str
    output: Any
    underscore_to_dot: bool = False

    @property
    def key(self) -> str:
        u2d = "+u2d" if self.underscore_to_dot else ""
        return f"{self.case_id}|{self.kind}{u2d}|{self.rep}"


@dataclass
class _Ctx:
    case: TestCase
    rng: random.Random
    schemas: dict[str, dict[str, Any]] = field(default_factory=dict)

    def props(self, func: str) -> dict[str, Any]:
        schema = self.schemas.get(func, {})
        props = schema.get("properties", {})
        return props if isinstance(props, dict) else {}

    def required(self, func: str) -> list[str]:
        req = self.schemas.get(func, {}).get("required", [])
        return list(req) if isinstance(req, list) else []

    def ptype(self, func: str, param: str) -> str:
        return str(self.props(func).get(param, {}).get("type", ""))

    def items_type(self, func: str, param: str) -> str:
        items = self.props(func).get(param, {}).get("items", {})
        return str(items.get("type", "")) if isinstance(items, dict) else ""


# ---------------------------------------------------------------- ground truth


def _first(options: list[Any], last: bool = False) -> tuple[bool, Any]:
    picks = [o for o in options if o != ""]
    if not picks:
        return False, None
    return True, picks[-1] if last else picks[0]


_DICT_TYPES = {"dict", "HashMap"}
_LIST_TYPES = {"array", "tuple", "Array", "ArrayList"}


def _resolve(option: Any, ptype: str, items: str, last: bool) -> Any:
    """A dict option lists options per key (`{"k": [opt, ...]}`), also as list items."""
    if (
        ptype in _DICT_TYPES
        and isinstance(option, dict)
        and all(isinstance(v, list) for v in option.values())
    ):
        out = {}
        for k, opts in option.items():
            ok, value = _first(opts, last)
            if ok:
                out[k] = value
        return out
    if ptype in _LIST_TYPES and items in _DICT_TYPES and isinstance(option, list):
        return [_resolve(o, items, "", last) for o in option]
    return option


def truth_calls(case: TestCase, *, minimal: bool = False, last: bool = False) -> Calls:
    """One call per expected call; each parameter takes its first (or last) listed option."""
    schemas = {f.name: f.parameters.get("properties", {}) or {} for f in case.functions}
    calls: Calls = []
    for expected in case.possible_answer:
        for name, params in expected.items():
            props = schemas.get(name, {})
            args: dict[str, Any] = {}
            for param, options in params.items():
                if minimal and "" in options:
                    continue
                ok, value = _first(options, last)
                if ok:
                    schema = props.get(param, {}) if isinstance(props, dict) else {}
                    items = schema.get("items", {}) if isinstance(schema, dict) else {}
                    value = _resolve(
                        copy.deepcopy(value),
                        str(schema.get("type", "")),
                        str(items.get("type", "")) if isinstance(items, dict) else "",
                        last,
                    )
                    args[param] = value
            calls.append({name: args})
    return calls


def _default_for(ptype: str) -> Any:
    return {
        "integer": 1,
        "float": 1.5,
        "number": 1.5,
        "boolean": True,
        "array": ["a"],
        "tuple": ["a"],
        "dict": {"k": "v"},
        "Boolean": "true",
        "long": "1L",
        "double": "1.5",
        "Array": "new int[]{1}",
        "ArrayList": "new ArrayList<>()",
        "HashMap": "new HashMap<>()",
    }.get(ptype, "value")


def plausible_call(case: TestCase) -> Calls:
    """A call to the first offered function with its required parameters filled."""
    if not case.functions:
        return [{"lookup": {"query": "x"}}]
    func = case.functions[0]
    props = func.parameters.get("properties", {}) or {}
    args = {
        p: _default_for(str(props.get(p, {}).get("type", "")))
        for p in func.parameters.get("required", []) or []
    }
    return [{func.name: args}]


# ---------------------------------------------------------------- value mutations


def _other_value(v: Any, rng: random.Random) -> Any:
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + rng.choice([1, -1, 10])
    if isinstance(v, float):
        return v + rng.choice([0.5, 1.0, -2.25])
    if isinstance(v, str):
        return v + rng.choice(["x", " extra", "2"]) if v else "x"
    if isinstance(v, list):
        return [*v, v[0]] if v else ["x"]
    if isinstance(v, dict):
        if not v:
            return {"k": "v"}
        k = sorted(v, key=str)[0]
        return {**v, k: _other_value(v[k], rng)}
    if v is None:
        return "None"
    return "x"


def _norm_variants(s: str, rng: random.Random) -> dict[str, str]:
    """String variants the official normalisation does and does not forgive."""
    out = {
        "str_upper": s.upper(),
        "str_lower": s.lower(),
        "str_title": s.title(),
        "str_no_spaces": s.replace(" ", ""),
        "str_add_punct": "".join(
            c + (rng.choice(" ,./-_*^") if i % 3 == 0 else "") for i, c in enumerate(s)
        ),
        "str_quote_swap": s.replace("'", '"') if "'" in s else s.replace('"', "'") + "'",
        "str_other_punct": s + rng.choice(["!", "?", ";", ":", "(", "#"]),
        "str_accent": s.replace("e", "é", 1) if "e" in s else s + "é",
        "str_nbsp": s.replace(" ", "\u00a0", 1) if " " in s else "\u00a0" + s,
        "str_edge_space": f"  {s} ",
        "str_tab_newline": s.replace(" ", "\t", 1) if " " in s else s + "\n",
        "str_zero_width": s[:1] + "\u200b" + s[1:],
        "str_only_ignored_punct": " -_. ",
        "str_sharp_s": s.replace("ss", "ß") if "ss" in s else s + "ß",
        "str_dotted_capital_i": s.replace("i", "İ", 1) if "i" in s else "İ" + s,
    }
    return out


def _typed_swaps(v: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(v, bool):
        out["value_bool_to_int"] = int(v)
        out["value_bool_to_str"] = str(v)
        out["value_bool_to_lower_str"] = str(v).lower()
    elif isinstance(v, int):
        out["value_int_to_float"] = float(v)
        out["value_num_to_str"] = str(v)
        if v in (0, 1):
            out["value_int_to_bool"] = bool(v)
    elif isinstance(v, float):
        out["value_float_to_int"] = int(v)
        out["value_num_to_str"] = repr(v)
        out["value_float_epsilon"] = v + 1e-9
    elif isinstance(v, str):
        if re.fullmatch(r"-?\d+", v.strip()):
            out["value_str_to_int"] = int(v.strip())
        elif re.fullmatch(r"-?\d+\.\d+", v.strip()):
            out["value_str_to_float"] = float(v.strip())
        if v.lower() in ("true", "false"):
            out["value_str_to_bool"] = v.lower() == "true"
    elif isinstance(v, list):
        out["value_list_to_tuple"] = tuple(v)
        if v:
            out["value_unwrap_list"] = v[0]
    if not isinstance(v, list):
        out["value_wrap_list"] = [v]
    out["value_none"] = None
    out["value_empty_string"] = ""
    return out


def _list_mutations(v: list[Any], rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if len(v) >= 2:
        out["list_reorder"] = list(reversed(v))
    if v:
        out["list_drop_item"] = v[:-1]
        out["list_dup_item"] = [*v, v[-1]]
        item = v[0]
        if isinstance(item, str):
            out["list_item_upper"] = [item.upper(), *v[1:]]
            out["list_item_punct"] = [item + ".", *v[1:]]
        elif isinstance(item, bool):
            out["list_item_bool_to_int"] = [int(item), *v[1:]]
        elif isinstance(item, int):
            out["list_item_int_to_float"] = [float(item), *v[1:]]
        elif isinstance(item, float):
            out["list_item_float_to_int"] = [int(item), *v[1:]]
        elif isinstance(item, dict):
            out["listdict_value"] = [_other_value(item, rng), *v[1:]]
            if item:
                k = sorted(item, key=str)[0]
                out["listdict_missing_key"] = [{x: y for x, y in item.items() if x != k}, *v[1:]]
            out["listdict_extra_key"] = [{**item, "zz_extra": 1}, *v[1:]]
        elif isinstance(item, list):
            out["list_nested_change"] = [_other_value(item, rng), *v[1:]]
    else:
        out["list_fill_empty"] = ["x"]
    return out


def _dict_mutations(v: dict[Any, Any], rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {"dict_extra_key": {**v, "zz_extra": "x"}}
    if v:
        k = sorted(v, key=str)[0]
        out["dict_missing_key"] = {x: y for x, y in v.items() if x != k}
        out["dict_value_other"] = {**v, k: _other_value(v[k], rng)}
        if isinstance(v[k], str):
            out["dict_value_upper"] = {**v, k: v[k].upper()}
            out["dict_value_punct"] = {**v, k: v[k] + " ."}
        if isinstance(v[k], int) and not isinstance(v[k], bool):
            out["dict_value_int_to_float"] = {**v, k: float(v[k])}
        if isinstance(v[k], (dict, list)):
            out["dict_nested_change"] = {**v, k: _other_value(v[k], rng)}
        out["dict_key_upper"] = {(str(x).upper() if x == k else x): y for x, y in v.items()}
    return out


def _value_mutations(v: Any, rng: random.Random) -> dict[str, Any]:
    out = {"value_other": _other_value(v, rng), **_typed_swaps(v)}
    if isinstance(v, str) and v:
        out.update(_norm_variants(v, rng))
    if isinstance(v, list):
        out.update(_list_mutations(v, rng))
    if isinstance(v, dict):
        out.update(_dict_mutations(v, rng))
    return out


# ---------------------------------------------------------------- call-level mutations


def _replace_arg(calls: Calls, ci: int, param: str, value: Any) -> Calls:
    new = copy.deepcopy(calls)
    name = next(iter(new[ci]))
    new[ci][name][param] = value
    return new


def ast_mutations(ctx: _Ctx) -> Iterator[tuple[str, Calls, bool]]:
    """(kind, calls, underscore_to_dot) for an AST case; typed values, before encoding."""
    case, rng = ctx.case, ctx.rng
    base = truth_calls(case)
    yield "truth", base, False
    minimal = truth_calls(case, minimal=True)
    if minimal != base:
        yield "truth_minimal", minimal, False
    last = truth_calls(case, last=True)
    if last != base:
        yield "truth_last_option", last, False
    if not base:
        return
    ci = rng.randrange(len(base))
    name = next(iter(base[ci]))
    args = base[ci][name]
    answer = next(iter(case.possible_answer[ci].values()))

    def renamed(new_name: str) -> Calls:
        new = copy.deepcopy(base)
        new[ci] = {new_name: new[ci][name]}
        return new

    yield "name_wrong", renamed(name + "_v2"), False
    yield "name_case", renamed(name.upper() if name != name.upper() else name.lower()), False
    if "." in name:
        yield "name_dot_to_underscore", renamed(name.replace(".", "_")), False
        yield "name_dot_to_underscore", renamed(name.replace(".", "_")), True
        yield "name_dotted", base, True
    elif "_" in name:
        yield "name_underscore_to_dot", renamed(name.replace("_", ".", 1)), True
    others = [f.name for f in case.functions if f.name != name]
    if others:
        yield "name_other_function", renamed(rng.choice(others)), False

    required = [p for p in ctx.required(name) if p in args]
    if required:
        p = rng.choice(required)
        yield "param_missing_required", _drop(base, ci, p), False
    optional_needed = [
        p for p in args if p not in ctx.required(name) and "" not in answer.get(p, [])
    ]
    if optional_needed:
        yield "param_missing_optional", _drop(base, ci, rng.choice(optional_needed)), False
    omittable = [p for p in args if "" in answer.get(p, [])]
    if omittable:
        yield "param_drop_omittable", _drop(base, ci, rng.choice(omittable)), False
    extra_schema = [p for p in ctx.props(name) if p not in args]
    if extra_schema:
        p = rng.choice(extra_schema)
        yield (
            "param_extra_schema",
            _replace_arg(base, ci, p, _default_for(ctx.ptype(name, p))),
            False,
        )
    yield "param_extra_unknown", _replace_arg(base, ci, "zz_unknown_param", 1), False
    if args:
        p = rng.choice(sorted(args))
        new = copy.deepcopy(base)
        new[ci][name] = {(k.upper() if k == p else k): v for k, v in args.items()}
        if new != base:
            yield "param_name_case", new, False

    # Value mutations: one randomly chosen parameter per mutation kind, seeded.
    by_kind: dict[str, list[tuple[str, Any]]] = {}
    for p in sorted(args):
        for kind, value in _value_mutations(args[p], rng).items():
            by_kind.setdefault(kind, []).append((p, value))
    for kind in sorted(by_kind):
        p, value = rng.choice(by_kind[kind])
        yield kind, _replace_arg(base, ci, p, value), False
    # The same value mutations on a parameter of an optional-answer kind ("" or None listed).
    for p in sorted(args):
        if None in answer.get(p, []):
            yield "value_none_listed", _replace_arg(base, ci, p, None), False
            break

    # Two changes at once: which one upstream reports first is its order of checks.
    params = sorted(args)
    if len(params) >= 2:
        p1, p2 = rng.sample(params, 2)
        both = _replace_arg(base, ci, p1, _other_value(args[p1], rng))
        yield "combo_two_values", _replace_arg(both, ci, p2, _other_value(args[p2], rng)), False
        swapped_types = _replace_arg(base, ci, p1, _other_value(args[p1], rng))
        yield "combo_value_and_none", _replace_arg(swapped_types, ci, p2, None), False
    if required:
        dropped = _drop(base, ci, rng.choice(required))
        yield "combo_missing_and_unknown", _replace_arg(dropped, ci, "zz_unknown", 1), False
    if args:
        p = rng.choice(params)
        extra = _replace_arg(base, ci, "zz_unknown", 1)
        yield (
            "combo_unknown_and_value",
            _replace_arg(extra, ci, p, _other_value(args[p], rng)),
            False,
        )
    # Three random value changes on random calls and parameters, stacked.
    chained = copy.deepcopy(base)
    for _ in range(3):
        cj = rng.randrange(len(chained))
        cname = next(iter(chained[cj]))
        cargs = chained[cj][cname]
        if not cargs:
            continue
        p = rng.choice(sorted(cargs))
        _, value = rng.choice(sorted(_value_mutations(cargs[p], rng).items()))
        chained = _replace_arg(chained, cj, p, value)
    if chained != base:
        yield "chain_random3", chained, False
    if any("." in next(iter(c)) for c in base):
        every = [{next(iter(c)).replace(".", "_"): next(iter(c.values()))} for c in base]
        yield "names_all_underscored", every, True
        yield "names_all_underscored", every, False
    yield "calls_empty", [], False
    yield "calls_extra_duplicate", [*base, copy.deepcopy(base[ci])], False
    if len(base) >= 2:
        yield "calls_drop_one", [c for i, c in enumerate(base) if i != ci], False
        yield "calls_reverse", list(reversed(base)), False
        shuffled = copy.deepcopy(base)
        rng.shuffle(shuffled)
        yield "calls_shuffle", shuffled, False
        swapped = copy.deepcopy(base)
        a, b = swapped[0], swapped[1]
        na, nb = next(iter(a)), next(iter(b))
        if na == nb and a[na] != b[nb]:
            shared = sorted(set(a[na]) & set(b[nb]))
            if shared:
                p = rng.choice(shared)
                a[na][p], b[nb][p] = b[nb][p], a[na][p]
                yield "calls_swap_arg", swapped, False


def _drop(calls: Calls, ci: int, param: str) -> Calls:
    new = copy.deepcopy(calls)
    name = next(iter(new[ci]))
    del new[ci][name][param]
    return new


# ---------------------------------------------------------------- language encodings


_JAVA_ELEM = {
    "integer": "int",
    "int": "int",
    "long": "long",
    "float": "float",
    "double": "double",
    "boolean": "boolean",
    "String": "String",
    "char": "char",
    "byte": "byte",
    "short": "short",
}


def java_src(v: Any, ptype: str, items: str = "") -> str:
    """Java source text for a typed value, as a model would write it for that schema type."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return f"{v}L" if ptype == "long" else str(v)
    if isinstance(v, float):
        return f"{v!r}f" if ptype == "float" else repr(v)
    if isinstance(v, str):
        # Source expressions in the answers (`new Foo("a", 1)`) are written as they are.
        return v if '"' in v else '"' + v + '"'
    if isinstance(v, (list, tuple)):
        elems = ", ".join(java_src(e, items) for e in v)
        if ptype == "ArrayList":
            return f"new ArrayList<>(Arrays.asList({elems}))"
        return f"new {_JAVA_ELEM.get(items, 'Object')}[]{{{elems}}}"
    if isinstance(v, dict):
        puts = " ".join(f'put("{k}", {java_src(x, "")});' for k, x in v.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return str(v)


def js_src(v: Any, ptype: str, items: str = "") -> str:
    """JavaScript source text for a typed value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return f"{v}n" if ptype == "Bigint" else str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(js_src(e, items) for e in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f'"{k}": {js_src(x, "")}' for k, x in v.items()) + "}"
    return str(v)


def _encode_value(v: Any, lang: str, ptype: str, items: str) -> Any:
    """The decoded (string) form of a Java/JS value: string content, else its source text."""
    if isinstance(v, str):
        return v
    return java_src(v, ptype, items) if lang == "java" else js_src(v, ptype, items)


def encode_calls(calls: Calls, ctx: _Ctx) -> Calls:
    """Java/JS: every value becomes the string a decoder yields; Python: unchanged."""
    lang = ctx.case.language.value
    if lang == "python":
        return calls
    out: Calls = []
    for call in calls:
        name, args = next(iter(call.items()))
        out.append(
            {
                name: {
                    p: _encode_value(v, lang, ctx.ptype(name, p), ctx.items_type(name, p))
                    for p, v in args.items()
                }
            }
        )
    return out


def python_text(calls: Calls) -> str:
    return "[" + ", ".join(_py_call(c) for c in calls) + "]"


def _py_call(call: dict[str, dict[str, Any]]) -> str:
    name, args = next(iter(call.items()))
    return f"{name}(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"


def source_text(calls: Calls, ctx: _Ctx) -> str:
    """Raw prompt-mode text for the calls, in the case's language."""
    lang = ctx.case.language.value
    if lang == "python":
        return python_text(calls)
    render = java_src if lang == "java" else js_src
    parts = []
    for call in calls:
        name, args = next(iter(call.items()))
        rendered = ", ".join(
            f"{p}={render(v, ctx.ptype(name, p), ctx.items_type(name, p))}" for p, v in args.items()
        )
        parts.append(f"{name}({rendered})")
    return "[" + ", ".join(parts) + "]"


def fc_json(calls: Calls) -> list[dict[str, str]]:
    return [{name: json.dumps(args, ensure_ascii=False)} for c in calls for name, args in c.items()]


def _jsonable(calls: Calls) -> bool:
    try:
        return json.loads(json.dumps(calls)) == calls
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------- raw-text and format variants


def text_variants(text: str, first_call: str, rng: random.Random) -> dict[str, str]:
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    return {
        "text_fence": f"```\n{text}\n```",
        "text_fence_lang": f"```python\n{text}\n```",
        "text_whitespace": f"\n\n  {text}  \n",
        "text_no_brackets": first_call,
        "text_single_quoted": f"'{text}'",
        "text_trailing_prose": f"{text} I hope this helps.",
        "text_leading_prose": f"Sure! Here you go: {text}",
        "text_tool_tag": f"<TOOLCALL>{text}</TOOLCALL>",
        "text_truncated": text[: max(1, len(text) * 2 // 3)],
        "text_inner_newlines": inner.replace(", ", ",\n    "),
        "text_semicolons": inner.replace("), ", "); ") + ";",
        "text_double_brackets": f"[{text}]",
    }


def _py_text_with(calls: Calls, param: str, raw: str) -> str:
    """Python call text where `param` of the first call is written as `raw` source."""
    parts = []
    for i, call in enumerate(calls):
        name, args = next(iter(call.items()))
        rendered = [f"{k}={raw if i == 0 and k == param else repr(v)}" for k, v in args.items()]
        parts.append(f"{name}(" + ", ".join(rendered) + ")")
    return "[" + ", ".join(parts) + "]"


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def python_source_variants(calls: Calls) -> dict[str, str]:
    """Python text a model writes that is not a plain literal: identifiers, expressions,
    JSON literals, nested calls. Upstream resolves some of these (it evaluates arithmetic);
    each is a kind so any difference is visible."""
    if not calls:
        return {}
    args = next(iter(calls[0].values()))
    out: dict[str, str] = {}
    for k, v in args.items():
        if isinstance(v, int) and not isinstance(v, bool) and "text_arith_expression" not in out:
            out["text_arith_expression"] = _py_text_with(calls, k, f"{v - 1} + 1")
            out["text_negated_literal"] = _py_text_with(calls, k, f"-({-v})")
        if (
            isinstance(v, str)
            and "text_bare_identifier" not in out
            and _IDENT.fullmatch(v)
            and v not in {"True", "False", "None"}
        ):
            out["text_bare_identifier"] = _py_text_with(calls, k, v)
        if isinstance(v, str) and "text_call_value" not in out:
            out["text_call_value"] = _py_text_with(calls, k, "lookup()")
            out["text_keyword_call_value"] = _py_text_with(calls, k, "lookup(key='x')")
            out["text_attribute_value"] = _py_text_with(calls, k, "Units.metric")
            out["text_fstring_value"] = _py_text_with(calls, k, f"f{v!r}")
        if (
            isinstance(v, list)
            and "text_set_value" not in out
            and v
            and all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in v)
        ):
            out["text_set_value"] = _py_text_with(calls, k, "{" + ", ".join(map(repr, v)) + "}")
        if isinstance(v, int) and not isinstance(v, bool) and "text_unary_plus" not in out:
            out["text_unary_plus"] = _py_text_with(calls, k, f"+{v}")
            out["text_unary_invert"] = _py_text_with(calls, k, f"~{-v - 1}")
            out["text_complex_value"] = _py_text_with(calls, k, f"{v}j")
            out["text_binop_builtin_call"] = _py_text_with(calls, k, f"len('ab') + {v - 2}")
            out["text_binop_string_format"] = _py_text_with(calls, k, f"int('%d' % {v})")
        if isinstance(v, str) and "text_ellipsis_value" not in out:
            out["text_ellipsis_value"] = _py_text_with(calls, k, "...")
            out["text_subscript_value"] = _py_text_with(calls, k, "items[0]")
            out["text_lambda_value"] = _py_text_with(calls, k, f"lambda: {v!r}")
            out["text_bytes_value"] = _py_text_with(calls, k, "b'x'")
            out["text_concat_strings"] = _py_text_with(calls, k, f"{v[:1]!r} {v[1:]!r}")
            out["text_duplicate_kwarg"] = _py_text_with(calls, k, f"{v!r}, {k}={v!r}")
        if isinstance(v, bool) and "text_unary_not" not in out:
            out["text_unary_not"] = _py_text_with(calls, k, f"not {not v}")
        if isinstance(v, bool) and "text_json_literals" not in out:
            out["text_json_literals"] = _py_text_with(calls, k, "true" if v else "false")
        if v is None and "text_json_null" not in out:
            out["text_json_null"] = _py_text_with(calls, k, "null")
    name, args0 = next(iter(calls[0].items()))
    rendered = ", ".join(f"{k}={v!r}" for k, v in args0.items())
    out["text_double_star"] = f"[{name}(**{dict(args0)!r})]"
    out["text_chained_call"] = f"[make()({rendered})]"
    out["text_call_attr"] = f"[make().{name.split('.')[-1]}({rendered})]"
    out["text_starred_call"] = f"[{name}(*[1], {rendered})]" if rendered else f"[{name}(*[1])]"
    return out


def lang_source_variants(calls: Calls, ctx: _Ctx) -> dict[str, str]:
    """Java/JS text a model writes with other literal forms for one argument."""
    if not calls:
        return {}
    lang = ctx.case.language.value
    render = java_src if lang == "java" else js_src
    name, args = next(iter(calls[0].items()))

    def text_with(param: str, raw: str) -> str:
        parts = [
            f"{k}={raw if k == param else render(v, ctx.ptype(name, k), ctx.items_type(name, k))}"
            for k, v in args.items()
        ]
        return f"[{name}(" + ", ".join(parts) + ")]"

    out: dict[str, str] = {}
    for k, v in args.items():
        if isinstance(v, str) and '"' not in v and "'" not in v and "lit_single_quoted" not in out:
            out["lit_single_quoted"] = text_with(k, f"'{v}'")
            out["lit_method_value"] = text_with(k, "helper.get()")
            if lang == "javascript":
                out["lit_template_string"] = text_with(k, f"`{v}`")
            else:
                out["lit_char_literal"] = text_with(k, f"'{v[:1]}'")
        if isinstance(v, int) and not isinstance(v, bool) and "lit_unary_plus" not in out:
            out["lit_unary_plus"] = text_with(k, f"+{v}")
            out["lit_parenthesised"] = text_with(k, f"({v})")
        if isinstance(v, bool) and "lit_bool_capitalised" not in out:
            out["lit_bool_capitalised"] = text_with(k, str(v))
        if isinstance(v, (list, dict)) and "lit_spaced_collection" not in out:
            src = render(v, ctx.ptype(name, k), ctx.items_type(name, k))
            out["lit_spaced_collection"] = text_with(k, src.replace(", ", " ,  "))
    return out


def source_string_variants(decoded: Calls) -> dict[str, Calls]:
    """Java/JS decoded values (source text) as models vary them: spacing, suffixes, quotes,
    junk around a collection. Upstream converts them with regexes; some of these pass."""
    if not decoded:
        return {}
    name, args = next(iter(decoded[0].items()))
    out: dict[str, Calls] = {}

    def put(kind: str, param: str, value: str) -> None:
        if kind not in out and value != args[param]:
            new = copy.deepcopy(decoded)
            new[0][name][param] = value
            out[kind] = new

    for p, v in args.items():
        if not isinstance(v, str):
            continue
        put("src_edge_spaces", p, f" {v} ")
        put("src_double_quoted", p, f'"{v}"')
        put("src_single_quoted", p, f"'{v}'")
        if v[-1:] in ("L", "f", "n") and v[:-1].lstrip("-").replace(".", "", 1).isdigit():
            put("src_no_suffix", p, v[:-1])
        if re.fullmatch(r"-?\d+", v):
            put("src_int_as_decimal", p, v + ".0")
            put("src_int_with_suffix", p, v + "L")
        if v in ("true", "false"):
            put("src_bool_capitalised", p, v.capitalize())
        if v.startswith(("new ", "[", "{")):
            put("src_trailing_junk", p, v + " // note")
            put("src_leading_junk", p, "x = " + v)
            put("src_spaced", p, v.replace("{", "{ ").replace("}", " }").replace(",", " ,"))
        if v.startswith("[") and v.endswith("]"):
            put("src_new_array", p, f"new Array({v[1:-1]})")
    return out


def _positional(call: dict[str, dict[str, Any]], ctx: _Ctx) -> str | None:
    name, args = next(iter(call.items()))
    if not args:
        return None
    items = list(args.items())
    lang = ctx.case.language.value
    if lang == "python":
        first = repr(items[0][1])
        rest = [f"{k}={v!r}" for k, v in items[1:]]
    else:
        render = java_src if lang == "java" else js_src
        first = render(items[0][1], ctx.ptype(name, items[0][0]))
        rest = [f"{k}={render(v, ctx.ptype(name, k))}" for k, v in items[1:]]
    return f"[{name}(" + ", ".join([first, *rest]) + ")]"


FORMAT_DECODED: dict[str, Callable[[Calls], Any]] = {
    "format_not_list": lambda c: c[0] if c else {},
    "format_args_list": lambda c: [{next(iter(c[0])): [1, 2]}] if c else [{"f": [1]}],
    "format_two_keys": lambda c: [{**c[0], "zz_other": {}}] if c else [{"a": {}, "b": {}}],
    "format_string_item": lambda c: ["call()"],
    "format_empty_dict": lambda c: [{}],
}

FC_JSON_FORMS: dict[str, Callable[[dict[str, Any]], str]] = {
    "fc_ascii_escaped": lambda a: json.dumps(a, ensure_ascii=True),
    "fc_pretty_json": lambda a: json.dumps(a, indent=2),
    "fc_double_encoded": lambda a: json.dumps(json.dumps(a)),
    "fc_trailing_garbage": lambda a: json.dumps(a) + " }",
    "fc_python_repr": repr,
    "fc_duplicate_key": lambda a: (
        json.dumps(a)[:-1] + ', "zz": 1, "zz": 2}' if a else '{"zz": 1, "zz": 2}'
    ),
    "fc_nan_value": lambda a: json.dumps({**a, next(iter(a)): float("nan")}) if a else "{}",
}

PROSE = {
    "prose_plain": "I'm sorry, I can't help with that request.",
    "prose_empty": "",
    "prose_word": "None",
    "prose_number": "42",
    "prose_with_parens": "You could call the API (with care), then check the result.",
    "prose_markdown": "**Note:** no function applies here.\n\n- reason one\n- reason two",
}


# ---------------------------------------------------------------- samples


def case_samples(case: TestCase, seed: int = 0) -> list[Sample]:
    """Every sample for one entry; deterministic in (seed, case id)."""
    rng = random.Random(f"{seed}:{case.id}")
    ctx = _Ctx(case=case, rng=rng, schemas={f.name: f.parameters for f in case.functions})
    checker = CATEGORIES[case.category].checker
    samples: list[Sample] = []

    def add(kind: str, calls: Calls, u2d: bool, fc: bool) -> None:
        decoded = encode_calls(calls, ctx)
        samples.append(Sample(case.id, kind, "decoded", decoded, u2d))
        samples.append(Sample(case.id, kind, "prompt", source_text(calls, ctx), u2d))
        if fc and _jsonable(decoded):
            samples.append(Sample(case.id, kind, "fc", fc_json(decoded), u2d))

    if checker is Checker.AST:
        for kind, calls, u2d in ast_mutations(ctx):
            add(kind, calls, u2d, kind.startswith("truth") or rng.random() < FC_SHARE)
        base = truth_calls(case)
        text = source_text(base, ctx)
        first = source_text(base[:1], ctx)[1:-1] if base else ""
        for kind, variant in text_variants(text, first, rng).items():
            samples.append(Sample(case.id, kind, "prompt", variant))
        if case.language.value == "python":
            for kind, variant in python_source_variants(base).items():
                samples.append(Sample(case.id, kind, "prompt", variant))
        else:
            for kind, variant in lang_source_variants(base, ctx).items():
                samples.append(Sample(case.id, kind, "prompt", variant))
        if base:
            pos = _positional(base[0], ctx)
            if pos:
                samples.append(Sample(case.id, "text_positional", "prompt", pos))
        if case.language.value != "python":
            for kind, variant in source_string_variants(encode_calls(base, ctx)).items():
                samples.append(Sample(case.id, kind, "decoded", variant))
                if rng.random() < FC_SHARE:
                    samples.append(Sample(case.id, kind, "fc", fc_json(variant)))
        if case.language.value != "python" and base and base[0][next(iter(base[0]))]:
            # Decoded Java/JS values must be strings of source text; typed values are not.
            samples.append(Sample(case.id, "value_not_source_text", "decoded", base))
        if CATEGORIES[case.category].matching is not Matching.SIMPLE and base:
            samples.append(Sample(case.id, "text_json_list", "prompt", json.dumps(base)))
    else:
        call = plausible_call(case)
        add("irr_call", call, False, True)
        add("irr_empty_list", [], False, True)
        no_args = [{next(iter(call[0])): {}}]
        add("irr_call_no_args", no_args, False, True)
        add("irr_two_calls", [*call, *call], False, False)
        text = python_text(call)
        samples.append(Sample(case.id, "irr_fenced_call", "prompt", f"```\n{text}\n```"))
        samples.append(Sample(case.id, "irr_call_in_prose", "prompt", f"Call {text[1:-1]} now."))
        samples.append(Sample(case.id, "irr_empty_dict_text", "prompt", "[{}]"))
        samples.append(Sample(case.id, "irr_empty_dict", "decoded", [{}]))
        samples.append(Sample(case.id, "irr_empty_name", "decoded", [{"": {}}]))
        samples.append(Sample(case.id, "irr_empty_name", "fc", [{"": "{}"}]))
        samples.append(Sample(case.id, "irr_name_only_text", "prompt", next(iter(call[0]))))
        samples.append(
            Sample(case.id, "irr_fc_bad_json", "fc", [{next(iter(call[0])): "{not json"}])
        )
    for kind, text in PROSE.items():
        samples.append(Sample(case.id, kind, "prompt", text))
        samples.append(Sample(case.id, kind, "fc", text))
    if checker is Checker.AST:
        base = encode_calls(truth_calls(case), ctx)
        for kind, make in FORMAT_DECODED.items():
            samples.append(Sample(case.id, kind, "decoded", make(base)))
        if base:
            name = next(iter(base[0]))
            samples.append(Sample(case.id, "fc_bad_json", "fc", [{name: "{not json"}]))
            samples.append(Sample(case.id, "fc_args_list", "fc", [{name: "[1, 2]"}]))
            samples.append(Sample(case.id, "fc_args_string", "fc", [{name: '"text"'}]))
            if _jsonable(base):
                for kind, dump in FC_JSON_FORMS.items():
                    out = [{n: dump(a)} for c in base for n, a in c.items()]
                    samples.append(Sample(case.id, kind, "fc", out))
    return samples
