"""An OpenAPI 3.x description is a tool file: one function per operation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bfcl_action.tools import ToolFormat, ToolValidationError, load_tools, parse_tools
from bfcl_action.tools.validate import ToolLimits

FIXTURES = Path(__file__).parents[1] / "fixtures"


@pytest.fixture(scope="module")
def petstore():  # type: ignore[no-untyped-def]
    return load_tools(["tools/openapi/petstore.yaml"], base_dir=FIXTURES)


def test_every_operation_is_a_tool_named_by_its_operation_id(petstore) -> None:  # type: ignore[no-untyped-def]
    assert [f.name for f in petstore.functions] == ["getPet", "updatePet", "get__pets", "addTree"]
    assert set(petstore.formats.values()) == {ToolFormat.OPENAPI}
    assert petstore.by_name()["getPet"].source.line == 12


def test_path_and_query_parameters_are_the_arguments_headers_are_not(petstore) -> None:  # type: ignore[no-untyped-def]
    fn = petstore.by_name()["getPet"]
    assert fn.description == "Get one pet."
    assert fn.parameters["properties"] == {
        "petId": {"type": "integer", "description": "The pet's id."},
        "fields": {"type": "array", "items": {"type": "string"}},
    }
    assert fn.parameters["required"] == ["petId"]


def test_a_json_object_body_joins_the_parameters_with_refs_inlined(petstore) -> None:  # type: ignore[no-untyped-def]
    fn = petstore.by_name()["updatePet"]
    assert fn.parameters["properties"]["kind"] == {"type": "string", "enum": ["cat", "dog"]}
    assert fn.parameters["required"] == ["petId", "name"]


def test_an_operation_without_id_is_named_by_method_and_path(petstore) -> None:  # type: ignore[no-untyped-def]
    fn = petstore.by_name()["get__pets"]
    assert fn.description == "List pets.\n\nNewest first."
    assert fn.parameters["properties"]["limit"] == {"type": "integer", "maximum": 100}
    assert fn.parameters["required"] == ["limit"]


def test_a_recursive_ref_stops_with_a_warning_at_the_operation(petstore) -> None:  # type: ignore[no-untyped-def]
    fn = petstore.by_name()["addTree"]
    assert fn.parameters["properties"]["children"]["items"] == {"type": "any"}
    [warning] = petstore.warnings
    assert warning.render().startswith("tools/openapi/petstore.yaml:36:")
    assert "recursive $ref '#/components/schemas/Tree'" in warning.message


def test_a_body_that_is_not_an_object_is_one_body_parameter() -> None:
    spec = {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/tags": {
                "post": {
                    "operationId": "setTags",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json; charset=utf-8": {
                                "schema": {"type": "array", "items": {"type": "string"}}
                            }
                        },
                    },
                }
            }
        },
    }
    [fn] = parse_tools(json.dumps(spec, indent=1), "api.json").functions
    assert fn.parameters["properties"] == {"body": {"type": "array", "items": {"type": "string"}}}
    assert fn.parameters["required"] == ["body"]


def test_swagger_2_says_to_convert_it() -> None:
    with pytest.raises(ToolValidationError, match=r"Swagger 2\.0 is not read"):
        parse_tools(json.dumps({"swagger": "2.0", "paths": {}}), "api.json")


def test_githubs_own_rest_description_loads_operation_by_operation() -> None:
    """A real description (a subset of GitHub's, from @octokit/openapi): one operation's
    description is over the 4,096-character limit, so that tool alone is left out."""
    tools = load_tools(
        ["github_openapi/api.github.com.subset.json"],
        base_dir=FIXTURES,
        limits=ToolLimits(provider="generic"),
    )
    assert len(tools.functions) == 41
    # operationId `repos/compare-commits-with-basehead`: the `/` is not a legal name character
    assert [i.tool for i in tools.left_out] == ["repos_compare-commits-with-basehead"]
    assert "issues_create" in tools.by_name()
