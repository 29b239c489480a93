"""Near-duplicate detection: MinHash LSH proposes, exact Jaccard confirms.

Texts are compared as sets of word shingles. MinHash with `num_perm` permutations estimates
the Jaccard similarity J of two sets; LSH with b bands of r rows (datasketch picks b, r for
the threshold t, weighing false positives and negatives equally) makes two sets candidates
with probability 1 - (1 - J**r)**b, an S-curve that is steep around t. Every candidate pair
is then confirmed by the exact Jaccard of the shingle sets, so LSH costs recall only (pairs
it never proposes), never precision. Identical texts share one signature.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # datasketch comes with the `curate` extra; imported when a signer is made
    from datasketch import MinHash, MinHashLSH


@dataclass(frozen=True)
class NearDupSettings:
    """What near-duplicate means; kept in `data/live/curation.yml` with each release."""

    num_perm: int = 128
    function_threshold: float = 0.8
    """Exact Jaccard of function-doc shingles at or above which two items share tools."""
    question_threshold: float = 92.0
    """rapidfuzz ratio (0-100) at or above which two questions sharing tools are one test."""
    shingle_words: int = 3
    seed: int = 1
    reworded_threshold: float = 0.75
    """Jaccard of request words (`curation.rewording`) at or above which two questions with
    the same expected call are one test, however they are phrased."""


def shingles(text: str, k: int) -> frozenset[str]:
    """Word k-grams of the text; a text shorter than k words is its own single shingle."""
    words = text.split()
    if len(words) <= k:
        return frozenset([" ".join(words)]) if words else frozenset()
    return frozenset(" ".join(words[i : i + k]) for i in range(len(words) - k + 1))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def _crc32(data: bytes) -> int:
    """A fast, stable 32-bit hash of a shingle (MinHash only needs a well-mixed value; the
    affine permutations do the rest). `hash()` is salted per process, so it cannot be used."""
    return zlib.crc32(data)


class Signer:
    """Shingle sets and MinHash signatures of texts, each computed once per signer.

    One signer serves a whole build, so a text seen by contamination and by near-dup
    detection is shingled and hashed once; permutations are drawn once, not per signature.
    """

    def __init__(self, settings: NearDupSettings) -> None:
        from datasketch import MinHash

        self.settings = settings
        self._template = MinHash(num_perm=settings.num_perm, seed=settings.seed, hashfunc=_crc32)
        self._cache: dict[str, tuple[frozenset[str], MinHash]] = {}

    def sign(self, text: str) -> tuple[frozenset[str], MinHash]:
        hit = self._cache.get(text)
        if hit is not None:
            return hit
        sh = shingles(text, self.settings.shingle_words)
        m = self._template.copy()
        m.update_batch([s.encode("utf-8") for s in sh])
        self._cache[text] = (sh, m)
        return sh, m


@dataclass
class TextIndex:
    """An LSH index over distinct texts; keys are the texts' positions in insertion order."""

    signer: Signer
    _texts: dict[str, int] = field(default_factory=dict)
    _sets: list[frozenset[str]] = field(default_factory=list)
    _sigs: list[MinHash] = field(default_factory=list)
    _lsh: MinHashLSH = field(init=False)

    def __post_init__(self) -> None:
        from datasketch import MinHashLSH

        s = self.signer.settings
        self._lsh = MinHashLSH(threshold=s.function_threshold, num_perm=s.num_perm)

    @property
    def threshold(self) -> float:
        return self.signer.settings.function_threshold

    def add(self, text: str) -> int:
        """Index a text (once) and return its key."""
        key = self._texts.get(text)
        if key is not None:
            return key
        key = len(self._sets)
        sh, sig = self.signer.sign(text)
        self._texts[text] = key
        self._sets.append(sh)
        self._sigs.append(sig)
        self._lsh.insert(key, sig, check_duplication=False)
        return key

    def add_all(self, texts: Iterable[str]) -> list[int]:
        return [self.add(t) for t in texts]

    def similar(self, text: str) -> list[int]:
        """Keys of indexed texts whose exact Jaccard with `text` reaches the threshold."""
        sh, sig = self.signer.sign(text)
        own = self._texts.get(text)
        found = [own] if own is not None else []
        for key in self._lsh.query(sig):
            if key != own and jaccard(sh, self._sets[key]) >= self.threshold:
                found.append(key)
        return sorted(found)

    def pairs(self) -> list[tuple[int, int]]:
        """Every confirmed near-duplicate pair among the indexed texts (i < j)."""
        out: set[tuple[int, int]] = set()
        for key, sig in enumerate(self._sigs):
            sh = self._sets[key]
            for other in self._lsh.query(sig):
                if other > key and jaccard(sh, self._sets[other]) >= self.threshold:
                    out.add((key, other))
        return sorted(out)


class UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def groups(self) -> list[list[int]]:
        by_root: dict[int, list[int]] = {}
        for x in range(len(self.parent)):
            by_root.setdefault(self.find(x), []).append(x)
        return list(by_root.values())


def cluster_texts(texts: Sequence[str], signer: Signer) -> list[list[int]]:
    """Groups of positions in `texts` whose texts are near-duplicates (transitively)."""
    index = TextIndex(signer)
    keys = index.add_all(texts)
    uf = UnionFind(len(index._sets))
    for a, b in index.pairs():
        uf.union(a, b)
    by_cluster: dict[int, list[int]] = {}
    for pos, key in enumerate(keys):
        by_cluster.setdefault(uf.find(key), []).append(pos)
    return list(by_cluster.values())
