from curation.scrub import scrub_item
from tests.support.curation import item


def test_email_in_question_and_answer_maps_to_the_same_placeholder() -> None:
    it = item(
        "Send the report to jane.doe@corp.io please",
        functions=[
            {
                "name": "send",
                "description": "Send mail",
                "parameters": {
                    "type": "dict",
                    "properties": {"to": {"type": "string"}},
                    "required": ["to"],
                },
            }
        ],
        answer=[{"send": {"to": ["jane.doe@corp.io"]}}],
    )
    res = scrub_item(it)
    assert res.item is not None
    assert res.item.question[0][0].content == "Send the report to user1@example.com please"
    assert res.item.possible_answer == [{"send": {"to": ["user1@example.com"]}}]
    assert res.replaced["email"] == 1
    assert "scrubbed 1 email" in res.item.edits


def test_api_keys_and_tokens_are_replaced_by_typed_placeholders() -> None:
    key = "sk-proj-" + "a1B2c3D4" * 4
    gh = "ghp_" + "x" * 36
    res = scrub_item(item(f"Use key {key} and token {gh} and AKIAABCDEFGHIJKLMNOP"))
    assert res.item is not None
    text = res.item.question[0][0].content or ""
    assert key not in text and gh not in text and "AKIA" not in text
    assert text.count("REDACTED_SECRET_") == 3
    assert res.replaced["secret"] == 3


def test_phone_numbers_are_replaced_but_plain_numbers_are_kept() -> None:
    res = scrub_item(item("Call +1 (415) 555-2671 about order 123456789 of 2024"))
    assert res.item is not None
    text = res.item.question[0][0].content or ""
    assert "415" not in text
    assert "123456789" in text and "2024" in text


def test_private_key_rejects_the_item() -> None:
    res = scrub_item(
        item("-----BEGIN RSA PRIVATE KEY-----\nMIIB...\n-----END RSA PRIVATE KEY-----")
    )
    assert res.item is None and res.rejected == "private_key"


def test_clean_item_is_returned_unchanged() -> None:
    it = item("What's the weather in Tokyo?")
    res = scrub_item(it)
    assert res.item is it and not res.replaced


def test_example_domain_emails_are_already_safe() -> None:
    res = scrub_item(item("Write to someone@example.com"))
    assert res.item is not None and "someone@example.com" in (res.item.question[0][0].content or "")
