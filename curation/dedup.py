"""Stages 3-5: exact duplicates, contamination, near-duplicates.

Exact: items with the same canonical hash are one item. Contamination: an item that equals
or nearly equals a test already published (official BFCL sets, earlier Live releases) would
leak into training data and inflate scores, so it is dropped. Near-duplicate: items whose
function docs are near-identical (MinHash LSH, confirmed by exact Jaccard), whose expected
calls are the same, and whose questions are near-identical (rapidfuzz ratio) or, for the
same non-empty calls, the same request reworded (`curation.rewording`) are one test; the one
with the smallest canonical hash is kept, so the choice does not depend on input order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from curation.neardup import NearDupSettings, Signer, TextIndex, UnionFind, cluster_texts
from curation.rewording import request_words, reworded_similarity


@dataclass(frozen=True)
class Reference:
    """A published test new items must not repeat: official BFCL or an earlier release."""

    ref: str
    function_text: str
    question_text: str
    canonical_hash: str
    source: str
    """`bfcl`, `bfcl-live`, or a Live release version."""
    answer_key: str = ""
    """What the test expects (`curation.canonical.answer_key`); "" matches any."""
    expects_call: bool = False
    """The expected answer is at least one call (so rewordings of it are one test)."""


@dataclass(frozen=True)
class Fingerprint:
    """What dedup needs of an item, computed once."""

    canonical_hash: str
    function_text: str
    question_text: str
    answer_key: str = ""
    """Items with different answer keys are different tests and never merge ("" = unknown,
    compared by text alone)."""
    expects_call: bool = False


def same_question(a: str, b: str, *, same_call: bool, settings: NearDupSettings) -> bool:
    """One rule for "these two questions are one test", used within a build and against
    published tests: near-identical characters (rapidfuzz ratio >= `question_threshold`),
    or, when both expect the same non-empty calls, the same request in other words
    (`curation.rewording`, Jaccard >= `reworded_threshold`)."""
    if fuzz.ratio(a, b) >= settings.question_threshold:
        return True
    if not same_call:
        return False
    return reworded_similarity(request_words(a), request_words(b)) >= settings.reworded_threshold


def question_groups(
    questions: Sequence[str], threshold: float, *, block: int = 2048
) -> list[list[int]]:
    """Groups of positions whose questions are near-identical (transitively), computed with
    rapidfuzz's C++ cdist in row blocks so memory stays at block x n bytes."""
    n = len(questions)
    uf = UnionFind(n)
    if n > 1:
        for start in range(0, n, block):
            rows = questions[start : start + block]
            scores = process.cdist(
                rows, questions, scorer=fuzz.ratio, score_cutoff=threshold, dtype="uint8"
            )
            for i, j in zip(*scores.nonzero(), strict=True):
                a, b = start + int(i), int(j)
                if a < b:
                    uf.union(a, b)
    return uf.groups()


def near_duplicate_groups(prints: Sequence[Fingerprint], signer: Signer) -> list[list[int]]:
    """Groups of item positions that are one test: the same expected calls, shared tools and
    near-identical questions. Works on any list of fingerprints (generated cases too)."""
    groups: list[list[int]] = []
    for cluster in cluster_texts([p.function_text for p in prints], signer):
        by_answer: dict[str, list[int]] = {}
        for i in cluster:
            by_answer.setdefault(prints[i].answer_key, []).append(i)
        for members in by_answer.values():
            if len(members) == 1:
                groups.append(members)
                continue
            qs = [prints[i].question_text for i in members]
            if prints[members[0]].answer_key and prints[members[0]].expects_call:
                found = reworded_groups(qs, signer.settings)
            else:
                found = question_groups(qs, signer.settings.question_threshold)
            for g in found:
                groups.append([members[i] for i in g])
    return groups


def reworded_groups(questions: Sequence[str], settings: NearDupSettings) -> list[list[int]]:
    """Groups of questions that ask for the same (non-empty) calls: near-identical text, or
    the same request words (`same_question` with `same_call=True`), transitively. Groups of
    one answer key are small, so every pair is compared."""
    uf = UnionFind(len(questions))
    for g in question_groups(questions, settings.question_threshold):
        for other in g[1:]:
            uf.union(g[0], other)
    words = [request_words(q) for q in questions]
    for a in range(len(questions)):
        for b in range(a + 1, len(questions)):
            if uf.find(a) != uf.find(b) and (
                reworded_similarity(words[a], words[b]) >= settings.reworded_threshold
            ):
                uf.union(a, b)
    return uf.groups()


class ContaminationIndex:
    """Published tests, indexed by function text, for near-duplicate look-ups."""

    def __init__(self, references: Sequence[Reference], signer: Signer) -> None:
        self.settings = signer.settings
        self.by_hash = {r.canonical_hash: r for r in references}
        self.index = TextIndex(signer)
        self.by_key: dict[int, list[Reference]] = {}
        for r in references:
            self.by_key.setdefault(self.index.add(r.function_text), []).append(r)

    def match(
        self, fp: Fingerprint, *, skip_sources: frozenset[str] = frozenset()
    ) -> Reference | None:
        """The published test this item repeats, if any."""
        exact = self.by_hash.get(fp.canonical_hash)
        if exact is not None and exact.source not in skip_sources:
            return exact
        for key in self.index.similar(fp.function_text):
            for ref in self.by_key[key]:
                if ref.source in skip_sources:
                    continue
                if ref.answer_key and fp.answer_key and ref.answer_key != fp.answer_key:
                    continue
                same_call = bool(fp.answer_key) and ref.answer_key == fp.answer_key
                same_call = same_call and fp.expects_call
                if same_question(
                    fp.question_text, ref.question_text, same_call=same_call, settings=self.settings
                ):
                    return ref
        return None
