"""Reworded duplicates merge; minimal pairs never do.

`reworded_pairs.jsonl` holds 50 planted pairs, each the same request for the same call in
other words (13 politeness, 12 punctuation, 13 word order, 12 lead-in). Their minimal
counterparts are made here: one argument value swapped in the question and the answer, so
the question differs by one entity and the expected call differs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from curation.build import build, gather
from curation.dedup import same_question
from curation.neardup import NearDupSettings
from curation.rewording import request_words, reworded_similarity
from curation.settings import CurationSettings

FIXTURES = Path(__file__).parents[1] / "fixtures" / "curation"
PAIRS = [json.loads(line) for line in (FIXTURES / "reworded_pairs.jsonl").read_text().splitlines()]
DEFAULTS = CurationSettings().near_duplicates.settings()
SWAP = {str: "Zanzibar", int: 7}
MERGES = {"near_duplicate", "exact_duplicate"}
"""`LOCK THE FRONT DOOR.` is the same text as `Lock the front door.` once case is folded."""


def _doc(call: dict[str, Any]) -> dict[str, Any]:
    ((name, args),) = call.items()
    kinds = {str: "string", int: "integer", bool: "boolean", list: "array", float: "number"}
    props: dict[str, Any] = {}
    for key, value in args.items():
        props[key] = {"type": kinds[type(value)], "description": f"the {key}"}
        if isinstance(value, list):
            props[key]["items"] = {"type": "string"}
    return {
        "name": name,
        "description": f"{name.replace('_', ' ')} for the user.",
        "parameters": {"type": "object", "properties": props, "required": sorted(args)},
    }


def _swapped(question: str, call: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The minimal counterpart: the first argument value the question spells out, replaced
    by another in both the question and the call; None when no value is spelled out."""
    ((name, args),) = call.items()
    for key, value in args.items():
        if isinstance(value, bool) or not isinstance(value, str | int):
            continue
        pattern = re.compile(rf"(?<!\w){re.escape(str(value))}(?!\w)", re.IGNORECASE)
        if pattern.search(question):
            new = SWAP[type(value)]
            return pattern.sub(str(new), question, count=1), {name: {**args, key: new}}
    return None


def _contribution(question: str, call: dict[str, Any], tag: str) -> dict[str, Any]:
    return {
        "question": question,
        "functions": [_doc(call)],
        "ground_truth": [call],
        "contributor": "alice",
        "license": "CC-BY-4.0",
        "source": tag,
    }


def _build(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[list[str], dict[str, str]]:
    """Sources kept, and for each merged source the source it merged into."""
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    intake = gather([path])
    assert not intake.drops
    by_origin = {i.origin: i.source for i in intake.items}
    report = build(
        live_dir=tmp_path / "live",
        items=intake.items,
        intake_drops=intake.drops,
        references=[],
        version="2026-W51",
    )
    dropped = {d.origin for d in report.drops}
    unexpected = [d for d in report.drops if d.reason not in MERGES]
    assert not unexpected, unexpected
    kept = [s for o, s in by_origin.items() if o not in dropped]
    where = {f"{o.kind}:{o.ref}": s for o, s in by_origin.items()}
    merged = {}
    for drop in report.drops:
        target = drop.detail.removeprefix("merged into ").removeprefix("same as ")
        merged[by_origin[drop.origin]] = where[target]
    return kept, merged


def test_recall_on_the_planted_reworded_pairs_is_at_least_095() -> None:
    found = [
        same_question(p["a"].casefold(), p["b"].casefold(), same_call=True, settings=DEFAULTS)
        for p in PAIRS
    ]
    assert len(found) == 50
    assert sum(found) / len(found) >= 0.95


def test_the_planted_pairs_merge_in_a_build_and_nothing_else_does(tmp_path: Path) -> None:
    rows = []
    for n, p in enumerate(PAIRS):
        rows.append(_contribution(p["a"], p["ground_truth"][0], f"pair{n}:a"))
        rows.append(_contribution(p["b"], p["ground_truth"][0], f"pair{n}:b"))
    _kept, merged = _build(tmp_path, rows)
    assert all(src.split(":")[0] == dst.split(":")[0] for src, dst in merged.items())
    assert len(merged) / len(PAIRS) >= 0.95


def test_minimal_pairs_with_different_answers_never_merge(tmp_path: Path) -> None:
    """Precision: every merge joins two rewordings of the same call; an item whose answer
    differs (one entity swapped) is never merged into its near-identical twin."""
    rows, minimal = [], 0
    for n, p in enumerate(PAIRS):
        call = p["ground_truth"][0]
        rows.append(_contribution(p["a"], call, f"pair{n}:a"))
        rows.append(_contribution(p["b"], call, f"pair{n}:b"))
        for side in ("a", "b"):
            swapped = _swapped(p[side], call)
            if swapped is not None:
                rows.append(_contribution(swapped[0], swapped[1], f"pair{n}:{side}*"))
                minimal += side == "a"
    assert minimal >= 45
    kept, merged = _build(tmp_path, rows)
    wrong = {s: d for s, d in merged.items() if s.split(":")[0] != d.split(":")[0]}
    wrong |= {s: d for s, d in merged.items() if s.endswith("*") != d.endswith("*")}
    assert wrong == {}
    assert all(
        f"pair{n}:a*" in kept or f"pair{n}:b*" in kept
        for n in range(50)
        if any(r["source"] == f"pair{n}:a*" for r in rows)
    )


def test_minimal_pairs_are_apart_by_the_gate_and_by_the_loose_rule_alone() -> None:
    """The margin: without the answer-key gate, the character ratio alone (the strict rule)
    joins several minimal pairs, and the loose word rule alone joins none of them."""
    by_ratio = by_words = compared = 0
    for p in PAIRS:
        swapped = _swapped(p["a"], p["ground_truth"][0])
        if swapped is None:
            continue
        compared += 1
        a, b = p["a"].casefold(), swapped[0].casefold()
        by_ratio += same_question(a, b, same_call=False, settings=DEFAULTS)
        similarity = reworded_similarity(request_words(a), request_words(b))
        by_words += similarity >= DEFAULTS.reworded_threshold
    assert compared >= 45
    assert by_ratio > 0
    assert by_words == 0


def test_distinct_questions_for_the_same_call_stay_two_tests() -> None:
    assert not same_question(
        "is it sunny in rome?",
        "will it snow in rome tomorrow? i am packing for a ski trip.",
        same_call=True,
        settings=DEFAULTS,
    )


def test_a_question_of_filler_only_is_never_matched_by_the_loose_rule() -> None:
    assert request_words("Could you please help me?") == frozenset()
    assert reworded_similarity(frozenset(), frozenset()) == 0.0


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("I love my maroon clothing", "I really love my maroon clothing!"),
        ("What's the capital of France?", "What is the capital of France, please?"),
    ],
)
def test_questions_expecting_no_call_are_compared_strictly(a: str, b: str) -> None:
    assert not same_question(a.casefold(), b.casefold(), same_call=False, settings=DEFAULTS)


def test_the_threshold_is_a_setting_recorded_with_the_release() -> None:
    assert NearDupSettings().reworded_threshold == DEFAULTS.reworded_threshold == 0.75
    strict = NearDupSettings(reworded_threshold=1.0)
    found = sum(
        same_question(p["a"].casefold(), p["b"].casefold(), same_call=True, settings=strict)
        for p in PAIRS
    )
    assert found < 50
