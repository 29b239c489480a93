import json
from pathlib import Path

from curation.intake import Intake
from tests.support.curation import contribution


def test_jsonl_bad_line_is_dropped_with_its_line_and_the_rest_is_read(tmp_path: Path) -> None:
    path = tmp_path / "bulk.jsonl"
    path.write_text(
        json.dumps(contribution())
        + "\n{not json\n"
        + json.dumps(contribution("Weather in Oslo?"))
        + "\n"
    )
    intake = Intake()
    intake.add_file(path)
    assert len(intake.items) == 2
    assert [(d.reason, d.origin.ref) for d in intake.drops] == [("invalid_json", f"{path.name}:2")]


def test_yaml_contributions_keep_their_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "c.yml"
    path.write_text(
        "- question: Weather in Tokyo?\n"
        "  functions: [{name: get_weather,\n"
        "    parameters: {type: dict, properties: {city: {type: string}}}}]\n"
        "  ground_truth: [{get_weather: {city: Tokyo}}]\n"
        "  contributor: bob\n"
        "- question: Missing fields\n"
    )
    intake = Intake()
    intake.add_file(path)
    assert [i.origin.ref for i in intake.items] == [f"{path.name}:1"]
    assert intake.items[0].possible_answer == [{"get_weather": {"city": ["Tokyo"]}}]
    drop = intake.drops[0]
    assert drop.origin.ref == f"{path.name}:6" and drop.reason == "invalid_contribution"
    assert "functions" in drop.detail


def test_plain_values_become_single_options_and_array_values_stay_whole() -> None:
    intake = Intake()
    raw = contribution(
        functions=[
            {
                "name": "plan",
                "parameters": {
                    "type": "dict",
                    "properties": {
                        "cities": {"type": "array", "items": {"type": "string"}},
                        "days": {"type": "integer"},
                    },
                },
            }
        ],
        ground_truth=[{"plan": {"cities": ["Paris", "Rome"], "days": [3, 4]}}],
    )
    from curation.models import Origin

    intake.add(raw, Origin(kind="file", ref="x:1"))
    assert intake.items[0].possible_answer == [
        {"plan": {"cities": [["Paris", "Rome"]], "days": [3, 4]}}
    ]


def test_unknown_keys_and_unsupported_files_are_reported(tmp_path: Path) -> None:
    intake = Intake()
    from curation.models import Origin

    intake.add({**contribution(), "sneaky": 1}, Origin(kind="file", ref="x:1"))
    (tmp_path / "notes.txt").write_text("hi")
    intake.add_file(tmp_path / "notes.txt")
    assert [d.reason for d in intake.drops] == ["invalid_contribution", "unsupported_file"]


def test_yaml_numbers_and_booleans_become_plain_python_values(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "question: Convert 250 USD\n"
        "functions: [{name: fx, parameters: {type: dict, properties: {amount: {type: float}}}}]\n"
        "ground_truth: [{fx: {amount: [250.0]}}]\n"
        "contributor: bob\n"
    )
    intake = Intake()
    intake.add_file(path)
    (value,) = intake.items[0].possible_answer[0]["fx"]["amount"]
    assert type(value) is float


def test_only_relevance_may_be_requested_as_a_category() -> None:
    from curation.models import Origin

    intake = Intake()
    intake.add(contribution(category="live_simple"), Origin(kind="file", ref="x:1"))
    assert [d.reason for d in intake.drops] == ["invalid_contribution"]


def test_parsing_in_processes_gives_the_same_result_as_one_by_one(tmp_path: Path) -> None:
    from curation.intake import PARALLEL_MIN_ROWS

    rows = [contribution(f"Weather in city number {i}?") for i in range(PARALLEL_MIN_ROWS + 10)]
    rows[5] = {"question": "broken"}
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    serial, parallel = Intake(), Intake()
    serial.add_file(path, workers=1)
    parallel.add_file(path, workers=2)
    assert [i.origin for i in parallel.items] == [i.origin for i in serial.items]
    assert parallel.items == serial.items and parallel.drops == serial.drops
