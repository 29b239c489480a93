"""Personal data in function docs (descriptions, enums, defaults) is scrubbed, consistently
with the question and the answer; names and numbers reserved for examples stay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from curation.build import build, gather
from curation.scrub import scrub_item
from tests.support.curation import item


def _doc(description: str, **props: Any) -> dict[str, Any]:
    return {
        "name": "notify",
        "description": description,
        "parameters": {
            "type": "dict",
            "properties": {"to": {"type": "string", "description": "recipient", **props}},
            "required": ["to"],
        },
    }


def test_an_address_in_a_description_is_replaced() -> None:
    doc = _doc("Send a notice. Questions about this tool go to jane.doe@proton.me.")
    res = scrub_item(
        item("Notify the team", functions=[doc], answer=[{"notify": {"to": ["team"]}}])
    )
    assert res.item is not None and res.replaced == {"email": 1}
    assert "proton.me" not in res.item.functions[0].description
    assert "user1@example.com" in res.item.functions[0].description


def test_an_enum_of_addresses_and_the_answer_choosing_one_stay_consistent() -> None:
    doc = _doc("Send a notice.", enum=["ops@acme-corp.io", "cfo@acme-corp.io"])
    it = item(
        "Notify ops@acme-corp.io about the outage",
        functions=[doc],
        answer=[{"notify": {"to": ["ops@acme-corp.io"]}}],
    )
    res = scrub_item(it)
    assert res.item is not None and res.replaced == {"email": 2}
    enum = res.item.functions[0].parameters["properties"]["to"]["enum"]
    (answer,) = res.item.possible_answer[0]["notify"]["to"]
    assert answer == enum[0] and answer in (res.item.question[0][0].content or "")
    assert "acme-corp" not in json.dumps(res.item.model_dump(mode="json"))


def test_a_phone_number_as_a_default_is_replaced_everywhere_it_appears() -> None:
    doc = _doc("Text a number.", default="+1 415 867 5309")
    it = item(
        "Text +1 415 867 5309 now", functions=[doc], answer=[{"notify": {"to": ["4158675309"]}}]
    )
    res = scrub_item(it)
    assert res.item is not None and res.replaced == {"phone": 1}
    flat = json.dumps(res.item.model_dump(mode="json"))
    assert "867" not in flat
    assert res.item.functions[0].parameters["properties"]["to"]["default"] == "+1 555 010 0001"


@pytest.mark.parametrize(
    "address",
    [
        "someone@example.com",
        "a@mail.example.org",
        "b@example.net",
        "c@shop.test",
        "d@x.invalid",
        "e@host.example",
        "f@box.localhost",
        "G@EXAMPLE.COM",
    ],
)
def test_reserved_example_domains_stay(address: str) -> None:
    doc = _doc(f"Format: {address}", default=address)
    res = scrub_item(
        item(f"Mail {address}", functions=[doc], answer=[{"notify": {"to": [address]}}])
    )
    assert res.item is not None and not res.replaced
    assert res.item.functions[0].description == f"Format: {address}"


@pytest.mark.parametrize("address", ["x@notexample.com", "y@example.com.evil.io", "z@test.io"])
def test_names_that_only_look_reserved_are_replaced(address: str) -> None:
    res = scrub_item(item("Ping", functions=[_doc(f"Support: {address}")], answer=[]))
    assert res.replaced == {"email": 1}


@pytest.mark.parametrize("number", ["415-555-0100", "(212) 555-0199", "+1 303 555 0142"])
def test_the_555_01xx_example_lines_stay(number: str) -> None:
    res = scrub_item(item("Ping", functions=[_doc(f"e.g. {number}")], answer=[]))
    assert res.item is not None and not res.replaced


@pytest.mark.parametrize(
    "number", ["+12345678900", "+1234567890", "+1-555-1234", "+989123456789", "000-000-0000"]
)
def test_dummy_numbers_of_format_examples_stay(number: str) -> None:
    """Release 2026-W50 has 40 entries whose docs show such a number ("phone in the form
    +12345678900"); they are nobody's, and rewriting them would churn released entries."""
    res = scrub_item(item("Ping", functions=[_doc(f"Phone, e.g. {number}")], answer=[]))
    assert res.item is not None and not res.replaced


def test_a_number_just_outside_the_example_range_is_replaced() -> None:
    res = scrub_item(item("Ping", functions=[_doc("Hotline (415) 555-0200")], answer=[]))
    assert res.replaced == {"phone": 1}


def test_scrubbing_twice_changes_nothing() -> None:
    doc = _doc("Hotline (415) 867-5309 or help@proton.me", enum=["boss@corp.io"])
    it = item(
        "Tell boss@corp.io, call 415-867-5309",
        functions=[doc],
        answer=[{"notify": {"to": ["boss@corp.io"]}}],
    )
    once = scrub_item(it)
    assert once.item is not None
    twice = scrub_item(once.item)
    assert twice.item is not None and not twice.replaced
    assert twice.item.model_dump() == once.item.model_dump()


def test_a_build_releases_no_address_from_function_docs(tmp_path: Path) -> None:
    rows = []
    for n in range(6):
        rows.append(
            {
                "question": f"Notify team {n}",
                "functions": [
                    _doc(
                        f"Notifier {n}. Questions about this tool go to owner{n}@proton.me.",
                        enum=[f"team{n}", f"lead{n}@corp.io"],
                    )
                    | {"name": f"notify_{n}"}
                ],
                "ground_truth": [{f"notify_{n}": {"to": f"team{n}"}}],
                "contributor": "alice",
                "license": "MIT",
            }
        )
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    intake = gather([path])
    report = build(
        live_dir=tmp_path / "live",
        items=intake.items,
        intake_drops=intake.drops,
        references=[],
        version="2026-W51",
    )
    assert report.added == 6 and report.scrubbed == {"email": 12}
    release = (tmp_path / "live" / "releases" / "2026-W51" / "BFCL_v4_live_simple.json").read_text()
    assert "proton.me" not in release and "corp.io" not in release
