"""Validation by the checker's semantics: reject only when no output can pass."""

from bfcl_action.checker import check_calls
from bfcl_action.checker.answers import concrete_calls
from bfcl_action.core.records import Message, TestCase
from curation.models import Item
from curation.pipeline import hold_contradictions, validate_items
from curation.settings import CurationSettings
from tests.support.curation import item


def _validate(it: Item) -> tuple[list[Item], list[str]]:
    kept, drops = validate_items([it], CurationSettings())
    return kept, [d.reason for d in drops]


def _passes_when_omitted(it: Item) -> bool:
    case = TestCase(
        id="x",
        category=it.category,
        question=it.question,
        functions=it.functions,
        possible_answer=it.possible_answer,
    )
    return check_calls(case, concrete_calls(it.possible_answer, omit_optional=True)).valid


def test_a_wrong_typed_option_beside_may_be_omitted_is_pruned_not_rejected() -> None:
    it = item(answer=[{"get_weather": {"city": ["Tokyo"], "unit": [3, ""]}}])
    kept, reasons = _validate(it)
    assert reasons == []
    (k,) = kept
    assert k.possible_answer == [{"get_weather": {"city": ["Tokyo"], "unit": [""]}}]
    assert any("pruned get_weather.unit" in e and "expected type" in e for e in k.edits)
    assert _passes_when_omitted(k)


def test_an_answer_with_only_wrong_typed_options_is_rejected() -> None:
    _, reasons = _validate(item(answer=[{"get_weather": {"city": [42]}}]))
    assert reasons == ["answer_type_mismatch"]


def test_an_option_outside_the_enum_is_pruned_and_an_enum_only_answer_rejected() -> None:
    kept, _ = _validate(
        item(answer=[{"get_weather": {"city": ["Tokyo"], "unit": ["kelvin", "Celsius"]}}])
    )
    assert kept[0].possible_answer[0]["get_weather"]["unit"] == ["Celsius"]
    assert any("not one of the enum" in e for e in kept[0].edits)
    _, reasons = _validate(item(answer=[{"get_weather": {"city": ["Tokyo"], "unit": ["kelvin"]}}]))
    assert reasons == ["answer_outside_enum"]


def test_an_omittable_parameter_missing_from_the_schema_is_pruned() -> None:
    kept, reasons = _validate(
        item(answer=[{"get_weather": {"city": ["Tokyo"], "country": ["JP", ""]}}])
    )
    assert reasons == [] and "country" not in kept[0].possible_answer[0]["get_weather"]
    _, reasons = _validate(item(answer=[{"get_weather": {"city": ["Tokyo"], "country": ["JP"]}}]))
    assert reasons == ["unknown_parameter"]


def test_the_same_question_and_tools_expecting_a_call_and_none_are_held_for_review() -> None:
    call, _ = _validate(item("Restock maroon cloth", ref="a"))
    none, _ = _validate(item("Restock maroon cloth", answer=[], ref="b"))
    other, _ = _validate(item("Weather in Oslo?", ref="c"))
    kept, drops = hold_contradictions([*call, *none, *other], previous=[])
    assert [k.origin.ref for k in kept] == ["c"]
    assert {d.origin.ref for d in drops} == {"a", "b"}
    assert {d.reason for d in drops} == {"contradictory_pair"}


def test_a_new_item_contradicting_a_released_one_is_held() -> None:
    (released,), _ = _validate(item("Restock maroon cloth", ref="old"))
    (new,), _ = _validate(item("Restock maroon cloth", answer=[], ref="new"))
    kept, drops = hold_contradictions([new], previous=[released])
    assert kept == [] and drops[0].origin.ref == "new"


def test_a_system_prompt_is_part_of_the_question_seen() -> None:
    it = item()
    it.question = [[Message(role="system", content="Be brief."), *it.question[0]]]
    kept, reasons = _validate(it)
    assert reasons == [] and kept


def test_an_answer_holding_a_list_of_objects_is_written_as_documented(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from curation.build import build, gather
    from tests.support.curation import contribution

    route = {
        "name": "plan_route",
        "description": "Plan a route through waypoints.",
        "parameters": {
            "type": "dict",
            "properties": {
                "points": {
                    "type": "array",
                    "items": {
                        "type": "dict",
                        "properties": {"lat": {"type": "float"}, "lon": {"type": "float"}},
                    },
                }
            },
            "required": ["points"],
        },
    }
    row = contribution(
        "Route me via Everest base camp",
        functions=[route],
        ground_truth=[{"plan_route": {"points": [{"lat": 27.9881, "lon": 86.925}]}}],
    )
    src = tmp_path / "c.jsonl"
    src.write_text(json.dumps(row) + "\n")
    intake = gather([src])
    report = build(
        live_dir=tmp_path / "live",
        items=intake.items,
        intake_drops=intake.drops,
        references=[],
        version="2026-W50",
    )
    assert report.drops == [] and report.added == 1


def test_an_array_whose_enum_lists_item_values_keeps_its_valid_option() -> None:
    doc = {
        "name": "readings",
        "description": "Latest sensor readings.",
        "parameters": {
            "type": "dict",
            "properties": {
                "metrics": {"type": "array", "items": {"type": "string"}, "enum": ["co2", "noise"]}
            },
            "required": ["metrics"],
        },
    }
    kept, reasons = _validate(item(functions=[doc], answer=[{"readings": {"metrics": [["co2"]]}}]))
    assert reasons == [] and kept[0].possible_answer == [{"readings": {"metrics": [["co2"]]}}]


def test_an_empty_option_list_is_rejected_as_such() -> None:
    _, reasons = _validate(item(answer=[{"get_weather": {"city": []}}]))
    assert reasons == ["empty_options"]
