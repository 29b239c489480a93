"""The scrubber is precise: secrets and personal data go, everything else stays, and one
value maps to one placeholder everywhere in the item."""

from pathlib import Path

import pytest

from curation.pipeline import scrub_items, validate_items
from curation.scrub import scrub_item
from curation.settings import CurationSettings
from tests.support.curation import item

FIXTURES = Path(__file__).parents[1] / "fixtures" / "curation"
CORPUS = [
    line for line in (FIXTURES / "scrub_false_positives.txt").read_text().splitlines() if line
]

PHONE_DOC = {
    "name": "call",
    "description": "Place a call. Numbers look like 415-555-0100; defaults to ops@corp.io.",
    "parameters": {
        "type": "dict",
        "properties": {
            "number": {"type": "string", "description": "e.g. (212) 555-0199"},
            "note": {"type": "string", "default": "ring ops@corp.io first"},
        },
        "required": ["number"],
    },
}


def _q(res) -> str:  # type: ignore[no-untyped-def]
    assert res.item is not None, res.detail
    return res.item.question[0][0].content or ""


@pytest.mark.parametrize("text", CORPUS)
def test_false_positive_corpus_is_left_alone(text: str) -> None:
    it = item(text)
    res = scrub_item(it)
    assert res.item is not None and _q(res) == text and not res.replaced


def test_reserved_examples_in_function_docs_stay_and_a_real_address_goes() -> None:
    it = item("Call my mum please", functions=[PHONE_DOC], answer=[{"call": {"number": ["mum"]}}])
    res = scrub_item(it)
    assert res.item is not None and res.replaced == {"email": 1}
    (doc,) = res.item.functions
    assert doc.description == (
        "Place a call. Numbers look like 415-555-0100; defaults to user1@example.com."
    )
    assert doc.parameters["properties"]["number"]["description"] == "e.g. (212) 555-0199"
    assert doc.parameters["properties"]["note"]["default"] == "ring user1@example.com first"


def test_a_phone_written_two_ways_maps_to_one_placeholder_in_the_same_shapes() -> None:
    it = item(
        "Call (415) 555-2671, that is +14155552671",
        functions=[PHONE_DOC],
        answer=[{"call": {"number": ["4155552671", "(415) 555-2671"]}}],
    )
    res = scrub_item(it)
    text = _q(res)
    assert "2671" not in text and "415" not in text
    assert text == "Call (555) 010-0001, that is +15550100001"
    assert res.item is not None
    assert res.item.possible_answer == [{"call": {"number": ["5550100001", "(555) 010-0001"]}}]
    assert res.replaced == {"phone": 1, "email": 1}  # the docs' ops@corp.io goes too


def test_a_phone_in_the_question_is_also_replaced_in_the_function_docs() -> None:
    doc = {**PHONE_DOC, "description": "Call the hotline 415-555-2671 by default."}
    res = scrub_item(
        item("Call 415-555-2671", functions=[doc], answer=[{"call": {"number": ["415-555-2671"]}}])
    )
    assert res.item is not None and "555-010-0001" in res.item.functions[0].description


def test_a_placeholder_never_collides_with_text_already_there() -> None:
    res = scrub_item(item("Forward from user1@example.com to jane@corp.io"))
    assert _q(res) == "Forward from user1@example.com to user2@example.com"


def test_full_width_email_is_replaced() -> None:
    res = scrub_item(item("Mail ｊａｎｅ＠ｃｏｒｐ．ｉｏ the forecast"))
    assert "ｊａｎｅ" not in _q(res) and "user1@example.com" in _q(res)


@pytest.mark.parametrize(
    "secret",
    [
        "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "npm_" + "a1B2c3D4e5" * 3 + "a1B2c3",
        "pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMA",
        "glpat-xxxxxxxxxxxxxxxxxxxx",
        "AKIAABCDEFGHIJKLMNOP",
    ],
)
def test_cloud_and_registry_tokens_are_replaced(secret: str) -> None:
    value = secret.split("=", 1)[-1]
    res = scrub_item(item(f"Deploy with {secret} now"))
    assert value not in _q(res) and "REDACTED_SECRET_1" in _q(res)


def test_pgp_private_key_block_rejects_the_item() -> None:
    res = scrub_item(item("-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF...\n-----END PGP"))
    assert res.item is None and res.rejected == "private_key"


SECRET = "sk-proj-" + "Z9y8X7w6" * 4


def test_secret_property_and_function_names_are_scrubbed_in_docs_and_answer_alike() -> None:
    doc = {
        "name": f"use_{SECRET}",
        "description": "Weird but real.",
        "parameters": {
            "type": "dict",
            "properties": {SECRET: {"type": "string"}},
            "required": [SECRET],
        },
    }
    it = item("Do it", functions=[doc], answer=[{f"use_{SECRET}": {SECRET: ["x"]}}])
    it.source = f"pasted from a chat with key {SECRET}"
    (valid,), _ = validate_items([it], CurationSettings())
    kept, drops, counts = scrub_items([valid], CurationSettings())
    assert drops == [] and counts == {"secret": 1}
    (out,) = kept
    dumped = out.model_dump_json()
    assert SECRET not in dumped
    fn = out.functions[0]
    assert fn.name == "use_REDACTED_SECRET_1"
    assert fn.parameters["required"] == ["REDACTED_SECRET_1"]
    assert out.possible_answer == [{"use_REDACTED_SECRET_1": {"REDACTED_SECRET_1": ["x"]}}]
    assert out.source == "pasted from a chat with key REDACTED_SECRET_1"


def test_a_value_that_cannot_be_kept_consistent_rejects_the_item() -> None:
    res = scrub_item(
        item(
            "Call 415-555-2671",
            functions=[PHONE_DOC],
            answer=[{"call": {"number": ["415/555/2671"]}}],
        )
    )
    assert res.item is None and res.rejected == "scrub_inconsistent"


def test_an_unseparated_number_the_text_calls_a_phone_is_replaced_everywhere() -> None:
    res = scrub_item(
        item(
            "Text my mobile 4155552671 when it is done",
            functions=[PHONE_DOC],
            answer=[{"call": {"number": ["4155552671"]}}],
        )
    )
    assert "4155552671" not in _q(res) and res.item is not None
    assert res.item.possible_answer == [{"call": {"number": ["5550100001"]}}]


def test_an_unseparated_e164_number_alone_is_replaced() -> None:
    assert "4155552671" not in _q(scrub_item(item("Ring +14155552671 at noon")))
