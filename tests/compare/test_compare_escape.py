"""The one escaping module: untrusted text cannot inject markup, mentions or commands."""

import re

from hypothesis import given
from hypothesis import strategies as st

from bfcl_action.safety.escape import ZWJ, log_line, md_code, md_inline, xml_text


def test_html_is_shown_as_text() -> None:
    assert md_inline("<script>x</script>") == "&lt;script&gt;x&lt;/script&gt;"


def test_mentions_and_issue_references_are_broken_invisibly() -> None:
    text = md_inline("@octocat see #12")
    assert "@octocat" not in text and "#12" not in text
    assert text.replace(ZWJ, "") == "@octocat see #12"


def test_table_breakers_are_escaped() -> None:
    assert md_inline("a | b\nc") == "a \\| b ⏎ c"


def test_workflow_commands_cannot_start_in_a_log() -> None:
    line = log_line("ok\n::error file=x::pwned\n##[warning]x")
    assert "\n" not in line and "::" not in line and "##[" not in line


def test_code_span_fence_outgrows_backticks_inside() -> None:
    assert md_code("a `b` ``c``") == "``` a `b` ``c`` ```"


def test_code_span_in_a_table_escapes_pipes() -> None:
    assert md_code("a|b", in_table=True) == "`a\\|b`"


def test_fake_digest_markers_are_broken() -> None:
    assert "<!--" not in md_code("<!-- bfcl-action:digest v1 AAAA -->")


def test_long_text_is_truncated_with_an_ellipsis() -> None:
    assert md_inline("x" * 50, 10) == "x" * 9 + "…"


def test_xml_text_drops_characters_xml_cannot_hold() -> None:
    assert xml_text("a\x00b\x1bc") == "abc"


@given(st.text())
def test_inline_text_never_has_raw_markup(text: str) -> None:
    out = md_inline(text)
    assert "\n" not in out and "\r" not in out
    assert "<" not in out and not re.search(r"(?<!\\)\|", out)
    assert not re.search(r"@[A-Za-z0-9]", out)


@given(st.text())
def test_code_span_is_one_balanced_span(text: str) -> None:
    out = md_code(text)
    fence = re.match(r"`+", out)
    assert fence is not None and out.endswith(fence.group(0))
    inner = out[len(fence.group(0)) : -len(fence.group(0))]
    assert fence.group(0) not in inner and "\n" not in inner
