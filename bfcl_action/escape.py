"""The one place untrusted text is made safe for where it is shown.

Untrusted: model output, questions, tool descriptions, error messages quoting them, even
suite labels from a contributed config. Every renderer goes through these functions (the
Markdown templates apply `md_inline` to every expression by default), so a hostile string
cannot open HTML, ping a user or team (`@name`), link an issue (`#123`, `GH-123`) or a URL
(bare `https://...`, `www.`), start a workflow
command in a log (`::set-output`, `##[error]`), or break a Markdown table (`|`, newlines).
"""

from __future__ import annotations

import html
import re

ZWJ = "\u200d"
"""Zero-width joiner: invisible, but breaks `@mention`, `#123` and `::command` recognition."""

NEWLINE_MARK = " ⏎ "

_CONTROL = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f"  # C0 controls but tab and newlines
    r"\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]"  # separators, bidi overrides, BOM
)
_NEWLINES = re.compile(r"\r\n|\r|\n")
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_MD_PUNCT = re.compile(r"([\\`*_\[\]|~!])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_ISSUE_REF = re.compile(r"#(?=[0-9])")
_BACKTICKS = re.compile(r"`+")
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto|www)(?=(://|:|\.))")
_GH_REF = re.compile(r"(?i)\b(GH)-(?=[0-9])")


def truncate(text: str, limit: int | None) -> str:
    """Cut to at most `limit` characters, marking the cut with an ellipsis."""
    if limit is None or len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"


def one_line(text: str) -> str:
    """Newlines become a visible mark; control characters disappear."""
    return _CONTROL.sub("", _NEWLINES.sub(NEWLINE_MARK, text))


def _no_comment(text: str) -> str:
    """`<!--` could open a comment or fake an embedded digest in the raw Markdown."""
    return text.replace("<!--", "<" + ZWJ + "!--")


def _defuse(text: str) -> str:
    text = _no_comment(text)
    text = _MENTION.sub("@" + ZWJ, text)
    text = _ISSUE_REF.sub("#" + ZWJ, text)
    return text.replace("::", ":" + ZWJ + ":").replace("##[", "#" + ZWJ + "#[")


def defuse_mentions(text: str) -> str:
    """Markdown kept as it is (a comment another run wrote), its `@name` mentions made
    inert."""
    return _MENTION.sub("@" + ZWJ, text)


def html_text(value: object) -> str:
    """Text inside an HTML element (a `<summary>`, where Markdown escapes would show):
    HTML-escaped, every `@` defused."""
    return html.escape(str(value), quote=True).replace("@", "@" + ZWJ)


def md_inline(value: object, limit: int | None = None) -> str:
    """Plain text for a Markdown paragraph or table cell: one line, no markup of its own."""
    text = truncate(one_line(str(value)), limit)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_PUNCT.sub(r"\\\1", text)
    text = re.sub(r"^([#+\-=>]|\d+[.)])", r"\\\1", text)
    text = _AUTOLINK.sub(lambda m: m.group(1) + ZWJ, text)  # bare URLs stay text
    text = _GH_REF.sub(lambda m: m.group(1) + ZWJ + "-", text)  # GH-1 is not a link
    return _defuse(text)


def md_code(value: object, limit: int | None = None, *, in_table: bool = False) -> str:
    """An inline code span holding any text, one line.

    Code spans show HTML and mentions literally; the fence is longer than any backtick run in
    the text so it cannot be closed early. In a table cell, `|` must still be escaped (GFM
    splits cells before it parses code spans) and renders as `|`.
    """
    text = truncate(one_line(str(value)), limit)
    text = _no_comment(text.replace("::", ":" + ZWJ + ":").replace("##[", "#" + ZWJ + "#["))
    if in_table:
        text = text.replace("|", "\\|")
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def log_line(value: object, limit: int | None = None) -> str:
    """Text for a workflow log: one line that cannot start or smuggle a workflow command."""
    return _defuse(truncate(one_line(str(value)), limit))


_COMMAND_START = re.compile(r"^([ \t]*)(::|##\[|##vso\[)", re.MULTILINE)


def neutralize_commands(text: str) -> str:
    """Every line of `text` kept, but none can start a workflow command (`::name::`,
    `##[name]`, `##vso[`): a zero-width joiner splits the opening marker. For text that
    must stay multi-line (a log stream, a job summary printed locally)."""
    return _COMMAND_START.sub(lambda m: m.group(1) + m.group(2)[0] + ZWJ + m.group(2)[1:], text)


def xml_text(value: object, limit: int | None = None) -> str:
    """Text an XML 1.0 document can hold (XML escaping itself is the serializer's job)."""
    return truncate(_XML_INVALID.sub("", str(value)), limit)
