"""Remove personal data and credentials from items before anything is released.

Secrets and personal data are replaced by realistic, typed placeholders (a test that asked
to email `jane@corp.io` still asks to email `user1@example.com`, and its answer agrees),
numbered per item in order of first appearance so a value used in the question and in the
answer maps to the same placeholder. Private keys are never rewritten: the item is rejected.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from curation.models import Item

PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")

# (literal markers, pattern): a pattern runs only on text containing one of its markers, a
# plain substring test that keeps the common case (nothing sensitive) cheap.
_SECRETS: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (("AKIA", "ASIA"), re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),  # AWS access key id
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
    (("github_pat_",), re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}\b")),
    (("sk-",), re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}")),  # OpenAI / Anthropic style
    (("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),  # Slack
    (("AIza",), re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),  # Google API key
    (("k_live_",), re.compile(r"\b[rs]k_live_[0-9A-Za-z]{16,}\b")),  # Stripe live keys
    (("eyJ",), re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),  # JWT
    (("Bearer ",), re.compile(r"(?<=Bearer )[A-Za-z0-9._~+/-]{20,}=*")),  # bearer tokens
]
_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b")
_PHONE_HINT = re.compile(r"\d{3}[ .-]\d{3}")
_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{3,4}[ .-]\d{3,4}(?!\w)"
)
_SAFE_EMAIL_DOMAINS = ("example.com", "example.org", "example.net")


def _may_contain(text: str) -> bool:
    """False only when no pattern can match: the cheap test run on every serialised item."""
    return (
        "@" in text
        or _PHONE_HINT.search(text) is not None
        or any(k in text for keys, _ in _SECRETS for k in keys)
    )


class _Replacer:
    """Maps each distinct sensitive value of one item to one placeholder."""

    def __init__(self) -> None:
        self.mapping: dict[str, str] = {}
        self.counts: Counter[str] = Counter()

    def placeholder(self, kind: str, value: str) -> str:
        if value in self.mapping:
            return self.mapping[value]
        self.counts[kind] += 1
        n = self.counts[kind]
        if kind == "email":
            new = f"user{n}@example.com"
        elif kind == "phone":
            new = f"+1-555-01{n % 100:02d}"
        else:
            new = f"REDACTED_SECRET_{n}"
        self.mapping[value] = new
        return new

    def text(self, value: str) -> str:
        for keys, pattern in _SECRETS:
            if any(k in value for k in keys):
                value = pattern.sub(lambda m: self.placeholder("secret", m.group(0)), value)
        if "@" in value:
            value = _EMAIL.sub(self._email, value)
        if _PHONE_HINT.search(value):
            value = _PHONE.sub(lambda m: self.placeholder("phone", m.group(0)), value)
        return value

    def _email(self, match: re.Match[str]) -> str:
        found = match.group(0)
        if found.lower().endswith(_SAFE_EMAIL_DOMAINS):
            return found
        return self.placeholder("email", found)

    def walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.walk(v) for v in value]
        if isinstance(value, dict):
            return {k: self.walk(v) for k, v in value.items()}
        return value


def _contains_private_key(value: Any) -> bool:
    if isinstance(value, str):
        return PRIVATE_KEY.search(value) is not None
    if isinstance(value, list):
        return any(_contains_private_key(v) for v in value)
    if isinstance(value, dict):
        return any(_contains_private_key(v) for v in value.values())
    return False


class ScrubResult:
    """The scrubbed item (or None when rejected), what was replaced, and why rejected."""

    def __init__(self, item: Item | None, replaced: Counter[str], rejected: str | None) -> None:
        self.item = item
        self.replaced = replaced
        self.rejected = rejected


def scrub_item(item: Item) -> ScrubResult:
    """Replace secrets, emails and phone numbers in every string of the item consistently."""
    raw = item.model_dump(mode="json", include={"question", "functions", "possible_answer"})
    # One C-speed pass over the serialised item decides the common case (nothing to scrub);
    # none of the patterns can match across a JSON string boundary.
    flat = json.dumps(raw, ensure_ascii=False)
    if PRIVATE_KEY.search(flat) and _contains_private_key(raw):
        return ScrubResult(None, Counter(), "private_key")
    if not _may_contain(flat):
        return ScrubResult(item, Counter(), None)
    replacer = _Replacer()
    cleaned = replacer.walk(raw)
    if not replacer.counts:
        return ScrubResult(item, Counter(), None)
    edits = [f"scrubbed {n} {kind}" for kind, n in sorted(replacer.counts.items())]
    new = item.model_validate({**item.model_dump(), **cleaned, "edits": [*item.edits, *edits]})
    return ScrubResult(new, replacer.counts, None)
