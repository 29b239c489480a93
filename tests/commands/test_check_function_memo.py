"""`check` parses a function list it has seen before once (`safety.jsonl_memo`): a line
cut by the memo gets exactly the output of the whole line parsed alone, whatever the line
holds (duplicate `functions` members, escaped keys, brackets and quotes before the list,
lists sharing their first bytes), and the memo stays within its byte bound."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.commands.check import Outcome, _functions, check_line, output_text
from bfcl_action.safety.jsonl_memo import MemberMemo

LONG = "A description long enough that the list is memoised (over 64 bytes of JSON)."


def _function(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": LONG,
        "parameters": {
            "type": "dict",
            "properties": {"a": {"type": "integer"}},
            "required": ["a"],
        },
        **extra,
    }


FUNCTION_LISTS = [
    [_function("f")],
    [_function("f"), _function("g")],  # same first 64 bytes as the one above
    [_function("g")],
    [_function("f", description='quotes " and brackets ] } and "functions": [')],
    [{"name": "f"}],  # short: never memoised
    [{"description": LONG}],  # not a function list (no name)
    [_function("f", parameters="not a dict")],
    [],
]
ANSWER = [{"f": {"a": [1]}}]
OUTPUTS = [
    "[f(a=1)]",
    "[f(a=2)]",
    [{"f": {"a": 1}}],
    [{"g": '{"a": 1}'}],
    "no call",
    {"functions": [_function("f")]},  # the key, nested, before the line's own
]


def _member(key: str, value: Any) -> str:
    return f"{json.dumps(key)}: {json.dumps(value)}"


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    members = [
        _member("id", draw(st.sampled_from(["x", 'q"uote', "b\\ack", "[br]", "{"]))),
        _member("category", draw(st.sampled_from(["simple_python", "irrelevance"]))),
        _member("functions", draw(st.sampled_from(FUNCTION_LISTS))),
        _member("possible_answer", ANSWER),
        _member("model_output", draw(st.sampled_from(OUTPUTS))),
    ]
    members = draw(st.permutations(members))
    if draw(st.booleans()):  # a later member naming `functions` again, maybe escaped
        key = draw(st.sampled_from(['"functions"', '"function\\u0073"', '"\\u0066unctions"']))
        value = json.dumps(draw(st.sampled_from(FUNCTION_LISTS)))
        members.insert(draw(st.integers(0, len(members))), f"{key}: {value}")
    text = "{" + ", ".join(members) + "}"
    if draw(st.booleans()):
        text = text.replace(", ", ",", draw(st.integers(0, 3)))
    return text.encode()


@given(st.lists(lines(), min_size=1, max_size=12))
@settings(max_examples=300, deadline=None)
def test_a_cut_line_gets_the_output_of_the_whole_line(raws: list[bytes]) -> None:
    memo = MemberMemo("functions", _functions, max_bytes=600)
    for number, raw in enumerate(raws, start=1):
        assert check_line(raw, number, memo) == check_line(raw, number), raw


def test_a_repeated_list_is_validated_once_and_reused() -> None:
    seen: list[Any] = []

    def validate(value: Any) -> Any:
        seen.append(value)
        return _functions(value)

    memo = MemberMemo("functions", validate)
    line = {"id": "x", "category": "simple_python", "functions": FUNCTION_LISTS[0]}
    first = memo.cut(json.dumps({**line, "model_output": "[f(a=1)]"}).encode())
    second = memo.cut(json.dumps({**line, "model_output": "[f(a=2)]"}).encode())
    assert first is not None and second is not None
    assert len(seen) == 1 and second[1] is first[1]
    assert json.loads(second[0])["functions"] == []


def test_lines_whose_first_functions_key_may_not_be_the_one_that_counts_stay_whole() -> None:
    memo = MemberMemo("functions", _functions)
    listed = json.dumps(FUNCTION_LISTS[0])
    head = '{"id": "x", "functions": ' + listed
    assert memo.cut((head + "}").encode()) is not None
    for later in ['"functions": []', '"function\\u0073": []', '"\\u0066unctions": []']:
        assert memo.cut(f"{head}, {later}}}".encode()) is None
    # the line's own member, escaped, before a nested key that the search finds first
    nested = '{"function\\u0073": [], "model_output": {"functions": ' + listed + "}}"
    assert memo.cut(nested.encode()) is None
    line = nested.replace("{", '{"category": "simple_python", ', 1).encode()
    assert check_line(line, 1, memo) == check_line(line, 1)


def test_the_memo_starts_over_when_full() -> None:
    memo = MemberMemo("functions", _functions, max_bytes=400)
    for index in range(20):
        functions = [_function(f"f{index}")]
        assert memo.cut(json.dumps({"id": "x", "functions": functions}).encode()) is not None
        assert memo._bytes <= 400


def test_output_lines_are_what_json_dumps_writes() -> None:
    outcomes: list[Outcome] = [
        ("a", True, None, ()),
        (None, False, "x", ('é "q" \\ \n \u2028 \x00', "b")),
        ("\ud800 lone surrogate", False, None, ["</script>", "\U0001f600"]),
    ]
    for entry_id, valid, error_type, error in outcomes:
        out = {"id": entry_id, "valid": valid, "error_type": error_type, "error": list(error)}
        text = output_text((entry_id, valid, error_type, error))
        assert text == json.dumps(out, ensure_ascii=False) + "\n"


def test_the_parse_budget_holds_for_a_list_nested_to_the_limit() -> None:
    """A list whose values reach the line's `max_depth` (128) is memoised and reused; one
    level more is an input error, with or without the memo, the second time too."""
    memo = MemberMemo("functions", _functions)
    for extra, over in ((124, False), (125, True)):
        deep: Any = 1
        for _ in range(extra):
            deep = [deep]
        functions = [_function("f", deep=deep)]  # line > list > function > deep
        raw = json.dumps({"id": "x", "category": "irrelevance", "functions": functions})
        line = (raw[:-1] + ', "model_output": "no call"}').encode()
        for _ in range(2):
            out = check_line(line, 1, memo)
            assert out == check_line(line, 1)
            assert (out["error_type"] == "input_error") is over, out
            assert any("nesting deeper than 128" in e for e in out["error"]) is over
