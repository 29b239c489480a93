"""BFCL's multi-turn rules on the example notes environment (examples/notes-app)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bfcl_action.core.records import Mode, TestCase
from bfcl_action.multiturn import check_conversation, conversation_of
from bfcl_action.multiturn.cases import load_conversation_cases
from bfcl_action.multiturn.conversation import ground_truth_output

EXAMPLE = Path(__file__).parents[2] / "examples" / "notes-app" / "cases.multi_turn.jsonl"


@pytest.fixture(scope="module")
def cases() -> dict[str, TestCase]:
    return {c.id: c for c in load_conversation_cases(EXAMPLE)}


def fc(*calls: tuple[str, dict[str, Any]]) -> list[dict[str, str]]:
    """One FC step: `[{name: "<json args>"}]`."""
    return [{name: json.dumps(args)} for name, args in calls]


def check(case: TestCase, output: Any, mode: Mode = Mode.FC) -> tuple[bool, str | None]:
    result = check_conversation(case, output, mode=mode)
    return result.valid, result.error_type


@pytest.mark.parametrize("mode", [Mode.FC, Mode.PROMPT])
def test_replaying_the_ground_truth_passes_every_example_case(
    cases: dict[str, TestCase], mode: Mode
) -> None:
    for case in cases.values():
        output = ground_truth_output(conversation_of(case), mode)
        assert check(case, output, mode) == (True, None), case.id


def test_calls_spread_over_steps_and_extra_calls_are_tolerated(cases: dict[str, TestCase]) -> None:
    case = cases["own_multi_turn_notes_0"]
    output = [
        [
            fc(("login", {"username": "ana"})),
            fc(("list_notes", {})),
            fc(("create_note", {"title": "Call mom", "body": "Sunday 6pm"})),
        ],
        [fc(("pin_note", {"note_id": 3}), ("tag_note", {"note_id": 3, "tag": "family"}))],
    ]
    assert check(case, output) == (True, None)


def test_a_different_state_is_an_instance_state_mismatch(cases: dict[str, TestCase]) -> None:
    case = cases["own_multi_turn_notes_0"]
    output = [
        [
            fc(
                ("login", {"username": "ana"}),
                ("create_note", {"title": "Call mum", "body": "Sunday 6pm"}),
            )
        ],
        [fc(("tag_note", {"note_id": 3, "tag": "family"}), ("pin_note", {"note_id": 3}))],
    ]
    result = check_conversation(case, output, mode=Mode.FC)
    assert result.error_type == "multi_turn:instance_state_mismatch"
    assert result.error[0].startswith("turn 0: the state of NotesAPI differs")
    assert any("Call mum" in e for e in result.error)


def test_a_missing_read_is_an_execution_response_mismatch(cases: dict[str, TestCase]) -> None:
    case = cases["own_multi_turn_notes_1"]
    output = [
        [fc(("login", {"username": "ana"}))],
        [fc(("update_note", {"note_id": 2, "body": "ship the engine and the docs"}))],
        [fc(("count_notes", {"tag": "work"}))],
    ]
    assert check(case, output) == (False, "multi_turn:execution_response_mismatch")


def test_a_read_made_in_an_earlier_turn_counts(cases: dict[str, TestCase]) -> None:
    case = cases["own_multi_turn_notes_1"]
    output = [
        [fc(("login", {"username": "ana"}), ("search_notes", {"query": "sprint"}))],
        [
            fc(
                ("count_notes", {"tag": "work"}),
                ("update_note", {"note_id": 2, "body": "ship the engine and the docs"}),
            )
        ],
        [fc(("list_notes", {}))],
    ]
    assert check(case, output) == (True, None)


def test_no_call_in_a_turn_with_ground_truth_is_an_empty_turn(cases: dict[str, TestCase]) -> None:
    case = cases["own_multi_turn_notes_0"]
    output = [
        [
            fc(
                ("login", {"username": "ana"}),
                ("create_note", {"title": "Call mom", "body": "Sunday 6pm"}),
            )
        ],
        ["Sure!"],
    ]
    assert check(case, output) == (False, "multi_turn:empty_turn_model_response")


def test_a_turn_without_ground_truth_is_not_checked_but_changes_state(
    cases: dict[str, TestCase],
) -> None:
    case = cases["own_multi_turn_notes_2"]
    login_archive = fc(("login", {"username": "ana"}), ("archive_note", {"note_id": 1}))
    delete_2 = fc(("delete_note", {"note_id": 2}))
    asked_first = [[login_archive], ["Which note?"], [delete_2]]
    assert check(case, asked_first) == (True, None)
    guessed_wrong = [[login_archive], [fc(("delete_note", {"note_id": 1}))], [delete_2]]
    assert check(case, guessed_wrong) == (False, "multi_turn:instance_state_mismatch")


def test_fewer_turns_than_the_case_is_force_terminated(cases: dict[str, TestCase]) -> None:
    case = cases["own_multi_turn_notes_0"]
    assert check(case, [[fc(("login", {"username": "ana"}))]]) == (
        False,
        "multi_turn:force_terminated",
    )


def test_a_result_that_is_not_a_list_is_an_inference_error(cases: dict[str, TestCase]) -> None:
    assert check(cases["own_multi_turn_notes_0"], "oops") == (False, "multi_turn:inference_error")


def test_steps_that_do_not_decode_count_as_no_call(cases: dict[str, TestCase]) -> None:
    case = cases["own_multi_turn_notes_0"]
    output = ground_truth_output(conversation_of(case), Mode.PROMPT)
    output[1] = ["I will tag it now.", *output[1]]
    assert check(case, output, Mode.PROMPT) == (True, None)


def test_functions_are_added_in_the_miss_func_turn(cases: dict[str, TestCase]) -> None:
    conversation = conversation_of(cases["own_multi_turn_notes_3"])
    assert "untag_note" not in {f.name for f in conversation.functions_at(0)}
    assert "untag_note" in {f.name for f in conversation.functions_at(1)}
