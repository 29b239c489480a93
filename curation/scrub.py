"""Remove personal data and credentials from items before anything is released.

Typed detectors find secrets (API keys, tokens, webhooks, JWTs), e-mail addresses and phone
numbers; each distinct value (phones compared by their digits, so `(415) 555-2671`,
`+1 415 555 2671` and `4155552671` are one value; e-mails compared case- and width-folded)
gets one placeholder used everywhere in the item: question, function docs (property names and
`required` included), the expected calls (function names included) and the `source` field.

Function docs are scrubbed like the rest: an address or a phone number in a description, an
`enum` or a `default` is personal data a release must not carry (a tool's support address),
and since one value maps to one placeholder, a docs value the question or answer repeats
stays consistent. Format examples survive when they use the names and numbers reserved for
examples: addresses at `example.com`/`.org`/`.net` or under the `.test`, `.example`,
`.invalid` and `.localhost` names (RFC 2606, RFC 6761), and the 555-0100 to 555-0199 lines
(plus the 555-010-xxxx block the placeholders use, so scrubbing twice changes nothing), and
the dummy numbers of format examples (`+1234567890`, seven repeated digits, a `+1` number too
short to dial), which belong to nobody either.

What they deliberately leave alone, because rewriting it corrupts a test: IP addresses,
version numbers, ids and other dotted or dashed digit runs that are not phone-shaped; URLs,
including `git@github.com:org/repo` and `user@host` inside a URL.

A placeholder never collides with text already in the item (its number is skipped). Private
keys (PEM and PGP) are never rewritten: the item is rejected. So is an item whose scrubbed
form still contains a replaced value (in a form no detector recognised), since its question
and answer would then disagree.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from typing import Any

from curation.models import Item

PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|-----BEGIN PGP PRIVATE KEY BLOCK-----"
)

_B = r"(?<![A-Za-z0-9])"
"""Start of a token: `_` counts as a boundary, so `use_sk-...` is still found."""

_SECRETS: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (("AKIA", "ASIA"), re.compile(_B + r"(?:AKIA|ASIA)[0-9A-Z]{16}\b")),  # AWS access key id
    (
        ("ecret", "ECRET"),  # AWS secret access key, named as such nearby
        re.compile(
            r"(?i:aws_?secret(?:_?access)?_?key|secret_?access_?key)[\"'\s:=]{1,6}"
            r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
    ),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), re.compile(_B + r"gh[pousr]_[A-Za-z0-9]{36,}\b")),
    (("github_pat_",), re.compile(_B + r"github_pat_[A-Za-z0-9_]{22,}\b")),
    (("glpat-",), re.compile(_B + r"glpat-[A-Za-z0-9_-]{20,}")),  # GitLab
    (("npm_",), re.compile(_B + r"npm_[A-Za-z0-9]{36}\b")),  # npm
    (("pypi-",), re.compile(_B + r"pypi-[A-Za-z0-9_-]{50,}")),  # PyPI
    (("sk-",), re.compile(_B + r"sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}")),  # OpenAI / Anthropic
    (("xox",), re.compile(_B + r"xox[abposr]-[A-Za-z0-9-]{10,}")),  # Slack tokens
    (
        ("hooks.slack.com",),
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}"),
    ),
    (("AIza",), re.compile(_B + r"AIza[0-9A-Za-z_-]{35}\b")),  # Google API key
    (("k_live_",), re.compile(_B + r"[rs]k_live_[0-9A-Za-z]{16,}\b")),  # Stripe live keys
    (
        ("eyJ",),
        re.compile(_B + r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),  # JWT
    (("Bearer ",), re.compile(r"(?<=Bearer )[A-Za-z0-9._~+/-]{20,}=*")),
]

_EMAIL = re.compile(
    r"(?<![\w.%+/:-])(?P<v>[\w.%+-]+[@＠](?:[\w-]+[.．])+[A-Za-zＡ-Ｚａ-ｚ]{2,})(?![\w:])"
)
"""An address (full-width `＠` and `．` included) not inside a URL or an scp-style git remote
(`git@github.com:org/repo` is followed by `:`)."""
_RESERVED_DOMAINS = frozenset({"example.com", "example.org", "example.net"})
_RESERVED_TLDS = frozenset({"test", "example", "invalid", "localhost"})
"""Names reserved for documentation and testing (RFC 2606, RFC 6761): an address there
belongs to nobody, so it stays, subdomains included (`a@mail.example.com`, `b@shop.test`)."""

_PHONE = re.compile(
    r"(?<![\w.+/:-])(?P<v>"
    r"\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?)(?:[ .-]?\d{2,4}){2,4}"  # international, E.164
    r"|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}"  # (415) 555-2671
    r"|\d{3}(?P<sep>[ -])\d{3}(?P=sep)\d{4}"  # 415-555-2671, 415 555 2671
    r"|\d{3}\.\d{3}\.\d{4}"  # 415.555.2671
    r"|1-\d{3}-\d{3}-\d{4}"  # 1-415-555-2671
    r")(?![\w.-]*\d)(?![\w@])"
)
"""Phone-shaped runs only: a dotted quad (IP), a version or a dashed id never matches, since
each form needs a `+`, parentheses or the 3-3-4 grouping, and no digit may follow."""
_DIGIT_RUN = re.compile(r"(?<![\w.])\+?\d{10,15}(?![\w.])")
"""Unseparated numbers: a phone only when its digits equal a phone found in a separated form."""


_PHONE_CONTEXT = re.compile(
    r"(?i)\b(?:phone|call|tel|mobile|cell|sms|text(?:ing)?|whatsapp|dial|ring)\w*\b"
    r"[^\d\n]{0,20}(?<![\w.])(?P<v>\+?\d{10,11})(?![\w.])"
)
"""An unseparated number the text itself calls a phone ("call 4155552671")."""


_DUMMY_RUNS = ("0123456", "1234567", "2345678", "3456789", "9876543", "8765432", "7654321")


def _reserved_phone(text: str) -> bool:
    """A number that is nobody's, so it stays: the NANP lines reserved for fiction and
    examples (555-0100 to 555-0199, any area code), the block our placeholders use
    (555-010-xxxx; 555 is no area code), and the dummies of format examples: an ascending,
    descending or repeated run of seven digits (`+1234567890`, `+1 000 000 0000`) or a `+1`
    number too short to dial (`+1-555-1234`)."""
    digits = re.sub(r"\D", "", text)
    key = _phone_key(text)
    if (len(key) == 10 and key[3:8] == "55501") or key.startswith("555010"):
        return True
    if re.search(r"(\d)\1{6}", digits) or any(run in digits for run in _DUMMY_RUNS):
        return True
    return text.lstrip().startswith("+1") and len(digits) < 11


def _phone_key(text: str) -> str:
    digits = re.sub(r"\D", "", text)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    return digits[-10:] if len(digits) >= 10 else digits


def _email_key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _may_contain(text: str) -> bool:
    """False only when no detector can match: the cheap test run on every serialised item."""
    return (
        "@" in text
        or "＠" in text
        or re.search(r"\d{3}", text) is not None
        or any(k in text for keys, _ in _SECRETS for k in keys)
    )


class _Scrubber:
    """Maps each distinct sensitive value of one item to one placeholder."""

    def __init__(self, existing: str) -> None:
        self.existing = existing
        self.mapping: dict[tuple[str, str], str] = {}
        self.counts: Counter[str] = Counter()
        self.next: Counter[str] = Counter()
        self.originals: list[tuple[str, str]] = []
        self.phones: set[str] = set()

    def _fresh(self, kind: str, render: Callable[[int], str]) -> str:
        while True:
            self.next[kind] += 1
            candidate = render(self.next[kind])
            if candidate not in self.existing:
                return candidate

    def placeholder(self, kind: str, key: str, original: str) -> str:
        found = self.mapping.get((kind, key))
        if found is None:
            self.counts[kind] += 1
            if kind == "email":
                found = self._fresh(kind, lambda n: f"user{n}@example.com")
            elif kind == "phone":
                found = self._fresh(kind, lambda n: f"555010{n:04d}")
            else:
                found = self._fresh(kind, lambda n: f"REDACTED_SECRET_{n}")
            self.mapping[(kind, key)] = found
        self.originals.append((kind, original))
        if kind == "phone":
            return _shape_phone(original, found)
        return found

    def collect(self, text: str) -> None:
        """Note the phone numbers written anywhere in the item, so the same digits written
        without separators (`4155552671`) are recognised as that phone too."""
        for pattern in (_PHONE, _PHONE_CONTEXT):
            for m in pattern.finditer(text):
                if not _reserved_phone(m.group("v")):
                    self.phones.add(_phone_key(m.group("v")))

    def text(self, value: str) -> str:
        """Scrub one string (secrets, e-mails and phones outside the reserved ranges)."""
        for keys, pattern in _SECRETS:
            if any(k in value for k in keys):
                value = pattern.sub(self._secret, value)
        if "@" in value or "＠" in value:
            value = _EMAIL.sub(self._email, value)
        value = _PHONE.sub(self._phone, value)
        if self.phones:
            value = _DIGIT_RUN.sub(self._digit_run, value)
        return value

    def _secret(self, m: re.Match[str]) -> str:
        group = "v" if "v" in m.re.groupindex else 0
        secret = m.group(group)
        new = self.placeholder("secret", secret, secret)
        whole = m.group(0)
        start = m.start(group) - m.start(0)
        return whole[:start] + new + whole[start + len(secret) :]

    def _email(self, m: re.Match[str]) -> str:
        found = m.group("v")
        key = _email_key(found)
        if _safe_email(found):
            return found
        return self.placeholder("email", key, found)

    def _phone(self, m: re.Match[str]) -> str:
        found = m.group("v")
        if _reserved_phone(found):
            return found
        return self.placeholder("phone", _phone_key(found), found)

    def _digit_run(self, m: re.Match[str]) -> str:
        found = m.group(0)
        key = _phone_key(found)
        if key not in self.phones:
            return found
        return self.placeholder("phone", key, found)

    def walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.walk(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): self.walk(v) for k, v in value.items()}
        return value


def _safe_email(address: str) -> bool:
    """An address at a reserved name (RFC 2606 / 6761), which belongs to nobody."""
    domain = _email_key(address).replace("＠", "@").rpartition("@")[2].rstrip(".")
    labels = domain.split(".")
    return labels[-1] in _RESERVED_TLDS or any(
        ".".join(labels[i:]) in _RESERVED_DOMAINS for i in range(len(labels))
    )


def _shape_phone(original: str, digits: str) -> str:
    """The placeholder's digits written in the original's shape, so a number written two
    ways stays written two ways and the checker compares them as it did before."""
    own = re.sub(r"\D", "", original)
    keep = len(own) - len(digits)
    out, seen = [], 0
    for ch in original:
        if ch.isdigit():
            out.append(ch if seen < keep else digits[seen - keep])
            seen += 1
        else:
            out.append(ch)
    return "".join(out)


def _strings(value: Any) -> list[str]:
    out: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            out.extend(str(k) for k in node)
            stack.extend(node.values())
    return out


class ScrubResult:
    """The scrubbed item (or None when rejected), what was replaced, and why rejected."""

    def __init__(
        self, item: Item | None, replaced: Counter[str], rejected: str | None, detail: str = ""
    ) -> None:
        self.item = item
        self.replaced = replaced
        self.rejected = rejected
        self.detail = detail


_FIELDS = {"question", "functions", "possible_answer", "source"}


def scrub_item(item: Item) -> ScrubResult:
    """Replace secrets, e-mails and phone numbers consistently across the whole item."""
    raw = item.model_dump(mode="json", include=_FIELDS)
    flat = json.dumps(raw, ensure_ascii=False)
    if PRIVATE_KEY.search(flat):
        return ScrubResult(None, Counter(), "private_key", "contains a private key block")
    if not _may_contain(flat):
        return ScrubResult(item, Counter(), None)
    scrubber = _Scrubber(flat)
    for text in _strings(raw):
        scrubber.collect(text)
    cleaned = {key: scrubber.walk(value) for key, value in raw.items()}
    if not scrubber.counts:
        return ScrubResult(item, Counter(), None)
    leftover = _leftover(scrubber, cleaned)
    if leftover:
        return ScrubResult(
            None,
            Counter(),
            "scrub_inconsistent",
            f"a replaced {leftover} still appears in another form; cannot keep the item consistent",
        )
    edits = [f"scrubbed {n} {kind}" for kind, n in sorted(scrubber.counts.items())]
    new = item.model_validate({**item.model_dump(), **cleaned, "edits": [*item.edits, *edits]})
    return ScrubResult(new, scrubber.counts, None)


def _leftover(scrubber: _Scrubber, cleaned: dict[str, Any]) -> str | None:
    """The kind of a replaced value still present in the scrubbed item, if any."""
    texts = _strings(cleaned)
    digits = [re.sub(r"\D", "", t) for t in texts]
    folded = [_email_key(t) for t in texts]
    for kind, original in scrubber.originals:
        if kind == "phone":
            key = _phone_key(original)
            if any(key in d for d in digits):
                return "phone number"
        elif kind == "email":
            if any(_email_key(original) in f for f in folded):
                return "e-mail address"
        elif any(original in t for t in texts):
            return "secret"
    return None
