"""The one place secrets are taken out of what the run shows.

Every secret the run knows (the model API key, the GitHub token, any environment variable
named like a credential) is registered here when it is read (`bfcl_action.safety.credentials`), and
`redact` replaces each of them, in every spelling it may take on the way out (as is, JSON
escaped, URL encoded, base64), by `***`. The output edges apply it: the process's stdout and
stderr (`bfcl_action.safety.logstream`, installed by the CLI, so every log line and workflow
command), the report files, every JSON body sent to GitHub (comment, check run, annotations,
statuses, issues: `github/client.py`), the job summary, step outputs and comment artifact.

Text is redacted before it is cut (`shorten`, which `escape.truncate` and so every excerpt,
log line and table cell uses), and `redact` also masks a known secret's *prefix* left at a cut
(followed by an ellipsis or the end of the text), for the few cuts made where this module is
out of reach (the checker's pure `show`): a key straddling a 200-character cut never leaves
the run as its first 199 characters.

What it does not do: a secret transformed in other ways (reversed, split across outputs,
base64 encoded by hostile code) is not recognised, and values shorter than
`MIN_SECRET_LENGTH` are not registered (redacting "abc" everywhere would mangle reports;
no real key is that short).
"""

from __future__ import annotations

import base64
import itertools
import json
import math
import re
import threading
import urllib.parse
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel

MASK = "***"
M = TypeVar("M", bound="BaseModel")
MIN_SECRET_LENGTH = 8
MIN_PREFIX_AT_CUT = 6
"""A secret's prefix this long, left at a cut, is masked (shorter ones say nothing)."""
CUT_MARKS = ("…", "...")
"""What our cuts end with (`escape.truncate`, the checker's `show`, `_clip` helpers)."""

_lock = threading.Lock()
_secrets: set[str] = set()
_spellings: tuple[str, ...] = ()


def register(value: str | None) -> None:
    """Remember `value` as a secret: from now on `redact` removes it from every output."""
    global _spellings
    if not value or len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if value in _secrets:
            return
        _secrets.add(value)
        forms: set[str] = set()
        for secret in _secrets:
            forms.add(secret)
            forms.add(json.dumps(secret)[1:-1])
            forms.add(json.dumps(secret, ensure_ascii=False)[1:-1])
            forms.add(urllib.parse.quote(secret, safe=""))
            forms.add(urllib.parse.quote_plus(secret))
            forms.add(base64.b64encode(secret.encode()).decode())
            # actions/checkout's credential header: base64 of `x-access-token:<token>`
            forms.add(base64.b64encode(b"x-access-token:" + secret.encode()).decode())
        _spellings = tuple(sorted((f for f in forms if len(f) >= MIN_SECRET_LENGTH), key=len)[::-1])


def register_url(url: str | None) -> None:
    """The credentials a URL carries (`user:password@`, query values such as `?api-key=`)
    are secrets like the API key; the URL itself stays printable without them."""
    if not url:
        return
    parts = urllib.parse.urlsplit(url.strip())
    register(parts.password)
    for _, value in urllib.parse.parse_qsl(parts.query):
        register(value)


def forget_all() -> None:
    """Tests only: start again with no known secret."""
    global _spellings
    with _lock:
        _secrets.clear()
        _spellings = ()


def known() -> frozenset[str]:
    return frozenset(_secrets)


def redact(text: str) -> str:
    """`text` with every known secret (in every spelling above) replaced by `***`."""
    spellings = _spellings
    if not spellings or not text:
        return text
    for secret in spellings:
        if secret in text:
            text = text.replace(secret, MASK)
    return _mask_prefixes_at_cuts(text, spellings)


def _cut_points(text: str) -> list[int]:
    points = [len(text)]
    for mark in CUT_MARKS:
        start = text.find(mark)
        while start != -1:
            points.append(start)
            start = text.find(mark, start + len(mark))
    return points


def _mask_prefixes_at_cuts(text: str, spellings: tuple[str, ...]) -> str:
    """Mask `secret[:k]` (k >= MIN_PREFIX_AT_CUT) ending at a cut point. Linear in the
    text per secret: each cut point is checked with one `find` of the secret's head."""
    if len(text) < MIN_PREFIX_AT_CUT:
        return text
    spans: list[tuple[int, int]] = []
    for point in _cut_points(text):
        for secret in spellings:
            head = secret[:MIN_PREFIX_AT_CUT]
            window_start = max(0, point - len(secret) + 1)
            at = text.find(head, window_start, point)
            while at != -1:
                if secret.startswith(text[at:point]):
                    spans.append((at, point))
                    break
                at = text.find(head, at + 1, point)
    if not spans:
        return text
    out, last = [], 0
    for start, end in sorted(spans):
        if start < last:
            start = last
        if start >= end:
            continue
        out.append(text[last:start])
        out.append(MASK)
        last = end
    out.append(text[last:])
    return "".join(out)


def shorten(text: str, limit: int | None, mark: str = "…") -> str:
    """`text` redacted, then cut to at most `limit` characters ending with `mark`: the one
    way text is shortened, so a cut never splits a secret into an unrecognised prefix."""
    text = redact(text)
    if limit is None or len(text) <= limit:
        return text
    return text[: max(0, limit - len(mark))] + mark


SECRET_SHAPES = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{16}|gsk_[A-Za-z0-9]{20}|github_pat_[A-Za-z0-9_]{20}"
    r"|gh[pousr]_[A-Za-z0-9]{20}|AKIA[0-9A-Z]{16}|xox[abposr]-[A-Za-z0-9-]{10}"
    r"|AIza[0-9A-Za-z_-]{20})[A-Za-z0-9_-]*"
    r"|-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----"
)
"""Well-known key shapes (OpenAI and proxies `sk-...`, Groq `gsk_`, GitHub `gh*_` and
`github_pat_`, AWS, Slack, Google). Linear: no pattern backtracks over a run it has read
(the fixed-length head matches once, the tail is a plain greedy run)."""
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_-]{32,}")
_HIGH_ENTROPY_BITS = 3.5
_MIN_CLASS_CHANGES = 0.45


def _char_class(c: str) -> int:
    return 0 if c.isupper() else 1 if c.islower() else 2 if c.isdigit() else 3


def _looks_random(token: str) -> bool:
    """A generic key: 32+ characters of letters and digits mixed as random text mixes
    them (entropy and the share of upper/lower/digit changes between neighbours: about 0.6
    for random text, below 0.45 for identifiers such as `GetTimesForMovie2024`); hex
    digests (case ids, commit shas) are not secrets."""
    if not (any(c.isdigit() for c in token) and any(c.isalpha() for c in token)):
        return False
    if all(c in "0123456789abcdef" for c in token.lower()):
        return False
    changes = sum(_char_class(a) != _char_class(b) for a, b in itertools.pairwise(token))
    if changes / (len(token) - 1) < _MIN_CLASS_CHANGES:
        return False
    counts: dict[str, int] = {}
    for c in token:
        counts[c] = counts.get(c, 0) + 1
    n = len(token)
    bits = -sum(k / n * math.log2(k / n) for k in counts.values())
    return bits >= _HIGH_ENTROPY_BITS


def has_secret_shape(text: str) -> bool:
    """Whether `text` holds a known key shape or a generic high-entropy key."""
    if SECRET_SHAPES.search(text):
        return True
    return any(_looks_random(m.group()) for m in _TOKEN_RUN.finditer(text))


def scrub(text: str) -> str:
    """`redact` (every secret the run knows), then every key shape and high-entropy token
    replaced by `***`: for files written for people to read and commit (generated cases,
    the review file, curation reports), where an unknown key must not land either."""
    text = SECRET_SHAPES.sub(MASK, redact(text))
    return _TOKEN_RUN.sub(lambda m: MASK if _looks_random(m.group()) else m.group(), text)


def redact_value(value: Any) -> Any:
    """`redact` applied to every string inside a JSON-like value (keys included)."""
    if not _spellings:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(redact_value(v) for v in value)
    if isinstance(value, dict):
        return {redact_value(k): redact_value(v) for k, v in value.items()}
    return value


def redact_model(model: M) -> M:
    """A pydantic model (a run report) with every known secret redacted from its strings."""
    if not _spellings:
        return model
    text = model.model_dump_json()
    clean = redact(text)
    return model if clean == text else type(model).model_validate_json(clean)


def redact_lines(lines: Iterable[str]) -> list[str]:
    return [redact(line) for line in lines]
