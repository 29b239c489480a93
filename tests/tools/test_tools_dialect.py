"""JSON Schema <-> BFCL dialect: the mapping table, and round trips for plain schemas."""

from hypothesis import given, settings
from hypothesis import strategies as st

from bfcl_action.tools import bfcl_to_json_schema, json_schema_to_bfcl

scalar = st.sampled_from(["string", "integer", "number", "boolean"]).map(lambda t: {"type": t})
schemas = st.recursive(
    scalar,
    lambda inner: (
        st.builds(lambda items: {"type": "array", "items": items}, inner)
        | st.builds(
            lambda props: {"type": "object", "properties": props},
            st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), inner, max_size=3),
        )
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), schemas, max_size=4))
def test_plain_schemas_survive_a_round_trip(props) -> None:
    schema = {"type": "object", "properties": props, "required": sorted(props)[:1]}
    bfcl, notes = json_schema_to_bfcl(schema)
    assert notes == []
    assert bfcl["type"] == "dict"
    assert bfcl_to_json_schema(bfcl) == schema


def test_object_and_number_get_bfcl_names_inside() -> None:
    bfcl, _ = json_schema_to_bfcl(
        {"type": "object", "properties": {"p": {"type": "object", "properties": {}}}}
    )
    assert bfcl["properties"]["p"]["type"] == "dict"
    assert json_schema_to_bfcl({"properties": {"x": {"type": "number"}}})[0]["properties"] == {
        "x": {"type": "float"}
    }


def test_untyped_parameter_is_any() -> None:
    bfcl, _ = json_schema_to_bfcl({"type": "object", "properties": {"v": {"description": "x"}}})
    assert bfcl["properties"]["v"] == {"description": "x", "type": "any"}


def test_all_of_merges_properties_and_required() -> None:
    bfcl, _ = json_schema_to_bfcl(
        {
            "allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
            ]
        }
    )
    assert bfcl["properties"] == {"a": {"type": "string"}, "b": {"type": "integer"}}
    assert bfcl["required"] == ["a", "b"]


def test_recursive_refs_are_an_error_note() -> None:
    schema = {
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}},
    }
    _, notes = json_schema_to_bfcl(schema)
    assert any(n.error and "recursive" in n.message for n in notes)
