"""Issue 23 item 5: files the product writes for people to read and commit (generated cases,
the review file, curation reports) carry no secret and no live markup. Known secrets come from
the run (not only regex shapes); `gsk_`, `github_pat_` and generic high-entropy keys are shapes
too; a draft dropped for a key is never quoted; `Checker:` is escaped; every pattern is linear
(a property test feeds adversarial 200 KB strings)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bfcl_action.generate.checks import hostile_text
from bfcl_action.generate.models import Candidate, Drop, DropReason, Kind, Provenance, Review
from bfcl_action.generate.writer import render_cases, render_review
from bfcl_action.safety import credentials, redact

PROXY_KEY = "pk-proxy-Zq81mN0vXa7Lw2Rt"  # a shape no pattern knows: only the run knows it
KEYS = [
    "gsk_" + "a1B2c3D4e5F6g7H8i9J0kLmN",
    "github_pat_11ABCDEFG0" + "123456789_abcdefghijKLMNOP",
    "sk-or-v1-" + "0123456789abcdef" * 2,
    "Xq9Lm2Zr8Vn4Pt7Wk1Yb3Cd6Fg0Hj5Ks",  # generic high-entropy
]


@pytest.fixture(autouse=True)
def fresh_secrets() -> Iterator[None]:
    credentials._reset_for_tests()
    redact.register(PROXY_KEY)
    yield
    credentials._reset_for_tests()


def _candidate(request: str, value: str = "Oslo") -> Candidate:
    return Candidate(
        tool="get_weather",
        kind=Kind.SIMPLE,
        request=request,
        expect=[{"get_weather": {"city": [value]}}],
        offered=["get_weather"],
        index=0,
    )


PROVENANCE = Provenance(
    generator="gen-model", verify_model="verify-model", prompt_version="1", seed=0
)


@pytest.mark.parametrize("key", [*KEYS, PROXY_KEY])
def test_a_draft_holding_a_key_is_dropped_and_never_quoted(key: str) -> None:
    request = f"Weather in Oslo? my key is {key}"
    drop = hostile_text(_candidate(request))
    assert drop is not None and drop.reason is DropReason.HOSTILE_TEXT
    assert key not in drop.request
    review = render_review([], PROVENANCE, "test", [drop])
    assert key not in review and "credential-like string" in review
    assert hostile_text(_candidate("Weather in Oslo?", value=key)) is not None


@pytest.mark.parametrize("key", [*KEYS, PROXY_KEY])
def test_written_files_never_hold_a_key_even_where_no_check_looked(key: str) -> None:
    """The verify model's answer and the checker's verdict are not checked for hostile
    text; the written files are scrubbed as a whole."""
    candidate = _candidate("Weather in Oslo?")
    review = Review(candidate, [{"get_weather": f'{{"city": "{key}"}}'}], f"mismatch {key}")
    text = render_review([review], PROVENANCE, "test") + render_cases(
        [candidate], PROVENANCE, f"generate --model {key}"
    )
    assert key not in text


def test_the_checker_verdict_is_escaped_in_the_review_file() -> None:
    verdict = "<img src=x onerror=alert(1)> @octo/team #12 GH-3 ```\n# heading"
    review = Review(_candidate("Weather in Oslo?"), [], verdict)
    text = render_review([review], PROVENANCE, "test")
    line = next(x for x in text.splitlines() if x.startswith("Checker:"))
    fence = line.removeprefix("Checker: ").split("<", 1)[0].rstrip()
    assert set(fence) == {"`"} and line.endswith(fence)  # one code span: shown, inert
    assert "```" in line and len(fence) > 3  # the fence outlasts any run inside
    assert "\n# heading" not in text


def test_ordinary_identifiers_are_not_taken_for_keys() -> None:
    text = "GetTimesForMovie2024AndTheaterList get_current_weather_in_location_2 " + "ab12" * 10
    assert redact.scrub(text) == text


PIECES = [
    "<a",
    "< /",
    "sk-",
    "gsk_",
    "github_pat_",
    "::a",
    "@a",
    "ignore all previous ",
    "`",
    "](",
    "a1B2",
    "-",
    "_",
    " ",
    "\n",
    "<!",
    "x" * 40,
    "ghp_",
    "AKIA",
]


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6), st.integers(0, 5))
def test_every_pattern_is_linear_on_adversarial_200_kb_strings(
    pieces: list[str], shift: int
) -> None:
    unit = "".join(pieces)
    text = (unit * (200_000 // len(unit) + 1))[shift : shift + 200_000]
    candidate = _candidate(text)
    start = time.process_time()
    hostile_text(candidate)
    redact.scrub(text)
    render_review(
        [Review(candidate, text, text)],
        PROVENANCE,
        "test",
        [Drop("get_weather", DropReason.REFUSAL, text, text)],
    )
    # quadratic patterns took 12-25 s on 198 KB; linear ones take well under a second
    assert time.process_time() - start < 8.0
