"""A compact, versioned digest of a run, small enough for a check-run summary.

The next run on a pull request finds its baseline in the base commit's check run, so no
artifact storage is needed. The digest holds what a comparison needs and nothing else:
model, mode, datasets, settings and the config fingerprint (to tell whether runs are
comparable), the case-set hash, and per suite the counts plus one outcome character per case.

How outcomes map to cases without storing ids: within a suite, outcomes are in the order of
the suite's sorted case ids, and the suite records the hash of those ids
(`fingerprint.case_set_hash`). A later run whose suite has the same id hash sorts its own ids
and so knows which outcome belongs to which case: the comparison is paired, case by case.
When the hashes differ the ids cannot be recovered, and only the suite's counts are compared
(the comparison says so). Outcome characters: `1` passed, `0` failed, `e` infrastructure error.

Clusters (cases derived from one question, `CaseResult.cluster`) travel as a partition, not
as ids: per suite, in the same sorted-id order, one group number per case, numbered across
the whole digest (`-1`: the case is alone in its cluster). A suite whose every case is alone
has no list, so a digest of a run without derived cases keeps its bytes, and a digest written
before clusters existed reads as "every case its own cluster".

Wire format: `<!-- bfcl-action:digest v1 BASE64 -->`, where BASE64 is the gzip of the
canonical JSON payload. An HTML comment is invisible in rendered Markdown and can sit in
any summary or comment; base64 never contains `--`, so the comment cannot end early.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import re
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from bfcl_action.core.errors import InputError
from bfcl_action.core.fingerprint import canonical_json, case_set_hash
from bfcl_action.core.records import CaseResult, Mode, RunReport

DIGEST_VERSION = 1
MARKER = "bfcl-action:digest"
_FIND = re.compile(r"<!--\s*" + re.escape(MARKER) + r"\s+v(\d+)\s+([A-Za-z0-9+/=\s]*?)\s*-->")

PASS, FAIL, INFRA = "1", "0", "e"


def outcome_of(result: CaseResult) -> str:
    """One character per case: passed, failed, or not answered (infrastructure error)."""
    if result.infra_error:
        return INFRA
    return PASS if result.valid else FAIL


class SuiteDigest(BaseModel):
    """One suite: counts (infra errors excluded from `total`) and outcomes by sorted id."""

    category: str
    ids: str
    """`case_set_hash` of the suite's case ids: the key that aligns `outcomes` to cases."""
    correct: int
    total: int
    infra_errors: int = 0
    outcomes: str = ""
    clusters: list[int] = Field(default_factory=list)
    """Per case in sorted-id order, its cluster's number across the digest (-1: alone);
    empty: every case is alone."""

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.total if self.total else None


class RunDigest(BaseModel):
    """What a comparison needs from a run, recovered from a digest string."""

    version: int = DIGEST_VERSION
    tool_version: str = ""
    created_at: str = ""
    model: str = ""
    label: str = ""
    """The `models:` matrix entry of the run (empty for a single-model run): a check run of
    a matrix carries one digest per entry, told apart by this."""
    mode: Mode = Mode.FC
    datasets: list[str] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)
    fingerprint: str = ""
    case_set: str = ""
    suites: dict[str, SuiteDigest] = Field(default_factory=dict)

    def outcomes_for(self, suite: str, ids: list[str]) -> dict[str, str] | None:
        """Outcome per case id when `ids` are the digest's ids for `suite`, else None."""
        entry = self.suites.get(suite)
        if entry is None or not entry.outcomes:
            return None
        ordered = sorted(set(ids))
        if case_set_hash(ordered) != entry.ids or len(ordered) != len(entry.outcomes):
            return None
        return dict(zip(ordered, entry.outcomes, strict=True))

    def clusters_for(self, suite: str, ids: list[str]) -> dict[str, str]:
        """Cluster key per case id of `suite` that shares its cluster (`#<number>`, equal
        keys across suites: one cluster), when `ids` are the digest's ids; else empty."""
        entry = self.suites.get(suite)
        ordered = sorted(set(ids))
        if entry is None or len(entry.clusters) != len(ordered):
            return {}
        if case_set_hash(ordered) != entry.ids:
            return {}
        return {i: f"#{n}" for i, n in zip(ordered, entry.clusters, strict=True) if n >= 0}


def _cluster_numbers(report: RunReport) -> dict[str, int]:
    """Case id -> number of its cluster, for clusters of more than one case, numbered in
    order of first appearance over suites and ids sorted (deterministic)."""
    members: dict[str, list[str]] = {}
    for result in sorted(report.results, key=lambda r: (r.label(), r.id)):
        members.setdefault(result.cluster_id(), []).append(result.id)
    grouped = [ids for ids in members.values() if len(ids) > 1]
    return {i: number for number, ids in enumerate(grouped) for i in ids}


def digest_of(report: RunReport) -> RunDigest:
    """The digest model of a report (pure; `make_digest` encodes it)."""
    by_suite: dict[str, dict[str, CaseResult]] = {}
    for result in report.results:
        by_suite.setdefault(result.label(), {})[result.id] = result
    suites: dict[str, SuiteDigest] = {}
    numbers = _cluster_numbers(report)
    for label in sorted(by_suite):
        cases = by_suite[label]
        ordered = sorted(cases)
        outcomes = "".join(outcome_of(cases[i]) for i in ordered)
        clusters = [numbers.get(i, -1) for i in ordered]
        suites[label] = SuiteDigest(
            category=cases[ordered[0]].category,
            ids=case_set_hash(ordered),
            correct=outcomes.count(PASS),
            total=outcomes.count(PASS) + outcomes.count(FAIL),
            infra_errors=outcomes.count(INFRA),
            outcomes=outcomes,
            clusters=clusters if any(n >= 0 for n in clusters) else [],
        )
    for label, score in report.categories.items():
        if label not in suites:  # a report stored without per-case results: counts only
            suites[label] = SuiteDigest(
                category=score.category,
                ids="",
                correct=score.correct,
                total=score.total,
                infra_errors=score.infra_errors,
            )
    return RunDigest(
        tool_version=report.tool_version,
        created_at=report.created_at,
        model=report.model,
        label=report.label,
        mode=report.mode,
        datasets=list(report.datasets),
        settings=dict(report.settings),
        fingerprint=report.fingerprint,
        case_set=report.case_set or case_set_hash(r.id for r in report.results),
        suites=suites,
    )


def encode_digest(digest: RunDigest) -> str:
    """The marker-wrapped text form of a digest."""
    data = digest.model_dump(mode="json")
    if not data["label"]:
        del data["label"]  # a single-model digest keeps the bytes it always had
    for suite in data["suites"].values():
        if not suite["clusters"]:
            del suite["clusters"]  # likewise a run without derived cases
    payload = canonical_json(data).encode("utf-8")
    packed = base64.b64encode(gzip.compress(payload, compresslevel=9, mtime=0)).decode("ascii")
    return f"<!-- {MARKER} v{digest.version} {packed} -->"


def make_digest(report: RunReport) -> str:
    """Digest text of a run, ready to append to a check-run summary or comment."""
    return encode_digest(digest_of(report))


def parse_digest(text: str, *, source: str | None = None) -> RunDigest:
    """Find and decode the digest embedded anywhere in `text` (the last one wins).

    Raises `InputError` naming `source` when there is no digest, its version is one this
    release cannot read, or it is corrupt.
    """
    found = list(_FIND.finditer(text))
    if not found:
        raise InputError(
            f"no bfcl-action digest found (expected a '<!-- {MARKER} v{DIGEST_VERSION} ... -->' "
            "block)",
            file=source,
        )
    return _decode(found[-1], source)


def parse_digests(text: str, *, source: str | None = None) -> list[RunDigest]:
    """Every digest in `text`, in order: a model matrix's check run carries one per model
    (told apart by `label`). Raises like `parse_digest` when there is none or one is
    unreadable."""
    found = list(_FIND.finditer(text))
    if not found:
        return [parse_digest(text, source=source)]  # raises the no-digest error
    return [_decode(match, source) for match in found]


def _decode(match: re.Match[str], source: str | None) -> RunDigest:
    version = int(match.group(1))
    if version != DIGEST_VERSION:
        raise InputError(
            f"digest version {version} is not readable by this release (reads "
            f"v{DIGEST_VERSION}); re-run the baseline with this version",
            file=source,
        )
    try:
        raw = gzip.decompress(base64.b64decode("".join(match.group(2).split()), validate=True))
        data = json.loads(raw.decode("utf-8"))
        return RunDigest.model_validate(data)
    except (binascii.Error, OSError, EOFError, ValueError, ValidationError) as exc:
        raise InputError(f"corrupt bfcl-action digest: {exc}", file=source) from None
