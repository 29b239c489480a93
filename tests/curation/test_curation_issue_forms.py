from curation.intake import Intake
from curation.issue_forms import FormError, add_issue, parse_issue_body

BODY = """### Question

What's the weather in Tokyo?

### Functions

```json
[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
  "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
```

### Ground truth

```json
[{"get_weather": {"city": ["Tokyo"]}}]
```

### License

MIT

### Source

_No response_

### Terms

- [X] I wrote this entry (or may share it) under the license above.
"""


def test_issue_form_body_parses_into_a_contribution() -> None:
    raw = parse_issue_body(BODY)
    assert raw["question"] == "What's the weather in Tokyo?"
    assert raw["ground_truth"] == [{"get_weather": {"city": ["Tokyo"]}}]
    assert raw["license"] == "MIT"
    assert "source" not in raw


def test_missing_required_field_is_named() -> None:
    try:
        parse_issue_body("### Question\n\nhi\n")
    except FormError as exc:
        assert "functions, ground_truth" in str(exc)
    else:
        raise AssertionError("expected FormError")


def test_bad_issue_becomes_a_drop_with_its_number() -> None:
    intake = Intake()
    add_issue(intake, number=12, body="### Question\n\nhi", author="eve")
    assert [(d.reason, d.origin.ref) for d in intake.drops] == [("invalid_issue_form", "#12")]
