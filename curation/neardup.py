"""Near-duplicate detection: MinHash LSH proposes, exact Jaccard confirms.

Texts are compared as sets of word shingles. MinHash with `num_perm` permutations estimates
the Jaccard similarity J of two sets; LSH with b bands of r rows (datasketch picks b, r for
the threshold t, weighing false positives and negatives equally) makes two sets candidates
with probability 1 - (1 - J**r)**b, an S-curve that is steep around t. Every candidate pair
is then confirmed by the exact Jaccard of the shingle sets, so LSH costs recall only (pairs
it never proposes), never precision. Identical texts share one signature.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

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


@dataclass
class TextIndex:
    """An LSH index over distinct texts; keys are the texts' positions in insertion order."""

    settings: NearDupSettings
    _texts: dict[str, int] = field(default_factory=dict)
    _sets: list[frozenset[str]] = field(default_factory=list)
    _lsh: MinHashLSH = field(init=False)

    def __post_init__(self) -> None:
        self._lsh = MinHashLSH(
            threshold=self.settings.function_threshold, num_perm=self.settings.num_perm
        )

    def _signature(self, sh: frozenset[str]) -> MinHash:
        m = MinHash(num_perm=self.settings.num_perm, seed=self.settings.seed)
        m.update_batch(s.encode("utf-8") for s in sorted(sh))
        return m

    def add(self, text: str) -> int:
        """Index a text (once) and return its key."""
        key = self._texts.get(text)
        if key is not None:
            return key
        key = len(self._sets)
        sh = shingles(text, self.settings.shingle_words)
        self._texts[text] = key
        self._sets.append(sh)
        self._lsh.insert(key, self._signature(sh), check_duplication=False)
        return key

    def add_all(self, texts: Iterable[str]) -> list[int]:
        return [self.add(t) for t in texts]

    def similar(self, text: str) -> list[int]:
        """Keys of indexed texts whose exact Jaccard with `text` reaches the threshold."""
        sh = shingles(text, self.settings.shingle_words)
        own = self._texts.get(text)
        found = [own] if own is not None else []
        for key in self._lsh.query(self._signature(sh)):
            if key != own and jaccard(sh, self._sets[key]) >= self.settings.function_threshold:
                found.append(key)
        return sorted(found)

    def pairs(self) -> list[tuple[int, int]]:
        """Every confirmed near-duplicate pair among the indexed texts (i < j)."""
        out: set[tuple[int, int]] = set()
        for key, sh in enumerate(self._sets):
            for other in self._lsh.query(self._signature(sh)):
                if other > key and jaccard(sh, self._sets[other]) >= (
                    self.settings.function_threshold
                ):
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


def cluster_texts(texts: Sequence[str], settings: NearDupSettings) -> list[list[int]]:
    """Groups of positions in `texts` whose texts are near-duplicates (transitively)."""
    index = TextIndex(settings)
    keys = index.add_all(texts)
    uf = UnionFind(len(index._sets))
    for a, b in index.pairs():
        uf.union(a, b)
    by_cluster: dict[int, list[int]] = {}
    for pos, key in enumerate(keys):
        by_cluster.setdefault(uf.find(key), []).append(pos)
    return list(by_cluster.values())
