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

from bfcl_action.safety.redact import shorten

ZWJ = "\u200d"
"""Zero-width joiner: invisible, but breaks `@mention`, `#123` and `::command` recognition."""

NEWLINE_MARK = " ⏎ "

_CONTROL = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f"  # C0 controls but tab and newlines
    r"\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]"  # separators, bidi overrides, BOM
)
_NEWLINES = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_MD_PUNCT = re.compile(r"([\\`*_\[\]|~!])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_ISSUE_REF = re.compile(r"#(?=[0-9])")
_BACKTICKS = re.compile(r"`+")
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto|www)(?=(://|:|\.))")
_GH_REF = re.compile(r"(?i)\b(GH)-(?=[0-9])")


def truncate(text: str, limit: int | None) -> str:
    """Redacted, then cut to at most `limit` characters, marking the cut with an ellipsis
    (`redact.shorten`: a secret is never cut into a prefix no later edge recognises)."""
    return shorten(text, limit)


def one_line(text: str) -> str:
    """Newlines become a visible mark; control characters disappear."""
    return _CONTROL.sub("", _NEWLINES.sub(NEWLINE_MARK, text))


def _no_comment(text: str) -> str:
    """`<!--` could open a comment or fake an embedded digest in the raw Markdown."""
    return text.replace("<!--", "<" + ZWJ + "!--")


def defuse_references(text: str) -> str:
    """The one Markdown defuser: no `@mention`, no `#123` / `owner/repo#123` / `GH-123`
    reference, no bare URL autolink (`https://`, `www.`), no `<!--`. Markup of its own
    (HTML, `*`, `|`) is the caller's: `md_inline` escapes it, `html_text` HTML-escapes it,
    `untrusted_markdown` keeps a document's formatting but not its HTML."""
    text = _no_comment(text)
    text = _MENTION.sub("@" + ZWJ, text)
    text = _ISSUE_REF.sub("#" + ZWJ, text)
    text = _AUTOLINK.sub(lambda m: m.group(1) + ZWJ, text)
    return _GH_REF.sub(lambda m: m.group(1) + ZWJ + "-", text)


def _defuse(text: str) -> str:
    text = defuse_references(text)
    return text.replace("::", ":" + ZWJ + ":").replace("##[", "#" + ZWJ + "#[")


def html_text(value: object, limit: int | None = None) -> str:
    """Text inside an HTML element (a `<summary>`, where Markdown escapes would show): one
    line, HTML-escaped, references defused."""
    text = truncate(one_line(str(value)), limit)
    return defuse_references(html.escape(text, quote=True))


_ALLOWED_TAG = re.compile(r"<(?=/?(?:details|summary|br|code|b|i|sub|sup)>|details open>)")
_TAG_START = re.compile(r"<")


def untrusted_markdown(text: str) -> str:
    """A whole Markdown document written by an untrusted producer (a fork run's comment
    artifact): its Markdown formatting stays, but no HTML beyond a few attribute-free
    layout tags (`<details>`, `<summary>`, ...), no mention, issue reference or bare link."""
    marked = _ALLOWED_TAG.sub("\0", text.replace("\0", ""))
    escaped = _TAG_START.sub("&lt;", marked).replace("\0", "<")
    return defuse_references(escaped)


def md_inline(value: object, limit: int | None = None) -> str:
    """Plain text for a Markdown paragraph or table cell: one line, no markup of its own."""
    text = truncate(one_line(str(value)), limit)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_PUNCT.sub(r"\\\1", text)
    text = re.sub(r"^([#+\-=>]|\d+[.)])", r"\\\1", text)
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


LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
"""Everything a log reader may take for a line break: the runner splits on a bare `\r` as
well as `\n`; the Unicode line and paragraph separators, VT, FF and NEL are treated alike."""
_LEAD = rf"(?:[^\S{LINE_BREAKS}]|[\u200b\ufeff])*"
"""White space the runner trims before `::` (.NET's, NBSP and the other Unicode spaces
included), plus the zero-width space and BOM; it never spans a line break, so the match is
linear."""
_COMMAND_START = re.compile(rf"(\A|[{LINE_BREAKS}])({_LEAD})::")
_LEGACY_COMMAND = re.compile(r"##(?=\[|vso\[)")


def neutralize_commands(text: str) -> str:
    """Every line of `text` kept, but none can start a workflow command: `::` after any
    leading white space of a line (every `LINE_BREAKS` character ends a line) and the legacy
    `##[` / `##vso[` anywhere get a zero-width joiner inside the marker. The one log edge:
    every printed line of `bfcl-action` and `bfcl-curate` passes here (`logstream`)."""
    text = _COMMAND_START.sub(lambda m: m.group(1) + m.group(2) + ":" + ZWJ + ":", text)
    return defuse_legacy_commands(text)


def defuse_legacy_commands(text: str) -> str:
    """`##[` / `##vso[` anywhere split by a zero-width joiner (the runner honours them in
    the middle of a line, even inside one of our own `::warning::` commands)."""
    return _LEGACY_COMMAND.sub("#" + ZWJ + "#", text)


def xml_text(value: object, limit: int | None = None) -> str:
    """Text an XML 1.0 document can hold (XML escaping itself is the serializer's job)."""
    return truncate(_XML_INVALID.sub("", str(value)), limit)
