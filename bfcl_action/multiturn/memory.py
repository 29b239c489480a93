"""BFCL's memory categories: the memory backends, run in this process, and the prerequisite
conversations that fill them (behaviour read from bfcl-eval 2026.3.23, not copied).

How bfcl-eval runs `memory_kv` / `memory_rec_sum` (and how we do):

1. Per scenario (`customer`, `student`, ...) a chain of prerequisite conversations is held
   first, in order: the first starts from an empty memory, each next one from the memory the
   one before it left (a conversation that fails leaves the memory as it was). Their answers
   are not scored.
2. Then every question of the scenario starts from the memory the chain left (questions
   never change what the next question sees).
3. Every conversation (prerequisite or question) opens with a system message: the scenario's
   assistant role, how the memory works, and the memory's visible content (the core memory
   for `kv`, the whole memory for `rec_sum`); a question's answer-form message follows it.

Backends:
- `kv` (`KeyValueMemory`): a core memory of at most 7 entries of 300 characters, always
  shown, and an archival memory of 50 entries of 2,000 characters; snake_case keys, unique;
  key search ranks keys by BM25+ (k1 1.5, b 0.75, delta 1, bfcl-eval's `rank_bm25.BM25Plus`
  over lower-cased keys with `_` read as a space), scores as floats, top `k`.
- `rec_sum` (`SummaryMemory`): one text of at most 10,000 characters, appended, replaced or
  rewritten by the model (recursive summarisation).
- `vector` (`VectorMemory`): core (7 x 300) and archival (50 x 2,000) memories of free texts
  with ids, found by meaning: each text is embedded by the run's endpoint (`/embeddings`,
  `memory.embedding_model`; bfcl-eval embeds locally with all-MiniLM-L6-v2) and retrieval is
  an exact inner-product search over unit vectors (bfcl-eval: a flat FAISS index).

The texts the model reads (roles, instructions, tool statuses) are our wording; the limits,
the rules and the search ranking are bfcl-eval's. Results are rendered as BFCL's executor
renders them (a dict as JSON, an exception as `Error during execution: <message>`).

A run keeps each scenario's memory in `MemoryStore` (in memory, per run); the chain runs
once, when the first question of its scenario is asked, and its requests go through the same
model client (cache, retries, counters) as every other request.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import re
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from bfcl_action.core.records import TestCase
from bfcl_action.safety.escape import log_line
from bfcl_action.safety.sandbox import EnvironmentSpec

MEMORY_ENVIRONMENT = "MemoryAPI"
"""The environment name BFCL's memory entries list in `involved_classes`."""
PREREQ_MARK = "_prereq_"
"""In the id of a prerequisite conversation (`memory_kv_prereq_0-customer-0`)."""

SCENARIO_ROLES: dict[str, str] = {
    "student": (
        "You support a college student with their studies. Keep track of the personal and "
        "academic details they share across sessions and use them to answer questions and "
        "give advice."
    ),
    "customer": (
        "You are a customer support assistant of an online shop. Keep track of what customers "
        "tell you about themselves, their preferences and their requests, so that later "
        "answers are consistent and helpful."
    ),
    "finance": (
        "You are the executive assistant of a senior finance professional. Keep track of "
        "personal and professional facts, goals, past decisions and family matters across "
        "sessions, to give well-informed and continuous support."
    ),
    "healthcare": (
        "You are a healthcare assistant following a patient across appointments. Keep track "
        "of medical history, treatment plans and personal preferences, to give coherent and "
        "informed guidance and reminders."
    ),
    "notetaker": (
        "You are a personal organisation assistant. Note the tasks, deadlines and preferences "
        "that come up in conversations, and use them for reliable reminders and answers later."
    ),
}
"""The assistant role of each memory scenario (our wording)."""

_MANAGE = (
    "Your memory persists across conversations with the user and can be read in later ones. "
    "Manage it actively: store what matters, keep it up to date and easy to find, so that you "
    "can give personal answers later."
)
KV_INSTRUCTION = (
    "{role}\n\nYou have a memory of two kinds, Core Memory and Archival Memory. " + _MANAGE + "\n\n"
    "Core Memory is small and always shown to you; Archival Memory holds much more but stays "
    "outside your context.\n\nYour Core Memory from earlier conversations:\n{memory}\n"
)
SUMMARY_INSTRUCTION = (
    "{role}\n\nYou have a memory. " + _MANAGE + "\n\n"
    "Your memory from earlier conversations:\n{memory}\n"
)


# --- BM25+ -----------------------------------------------------------------------------------


def bm25_plus_scores(
    query: Sequence[str],
    corpus: Sequence[Sequence[str]],
    *,
    k1: float = 1.5,
    b: float = 0.75,
    delta: float = 1,
) -> list[float]:
    """BM25+ score of every tokenised document for the tokenised query, computed in the order
    (and so to the same float) `rank_bm25.BM25Plus.get_scores` does. An empty corpus raises
    ZeroDivisionError, as there."""
    counts: list[dict[str, int]] = []
    documents_with: dict[str, int] = {}
    total = 0
    for document in corpus:
        total += len(document)
        frequencies: dict[str, int] = {}
        for word in document:
            frequencies[word] = frequencies.get(word, 0) + 1
        counts.append(frequencies)
        for word in frequencies:
            documents_with[word] = documents_with.get(word, 0) + 1
    size = len(counts)
    average = total / size
    idf = {word: math.log((size + 1) / n) for word, n in documents_with.items()}
    scores = [0.0] * size
    for word in query:
        weight = idf.get(word) or 0
        for i, frequency in enumerate(counts):
            tf = frequency.get(word) or 0
            norm = k1 * (1 - b + b * len(corpus[i]) / average) + tf
            scores[i] += weight * (delta + (tf * (k1 + 1)) / norm)
    return scores


def ranked(query: str, texts: list[str], k: int = 5) -> dict[str, list[tuple[float, str]]]:
    """The `k` texts closest to `query` by BM25+, best first (ties in the texts' order)."""

    def tokens(text: str) -> list[str]:
        return text.replace("_", " ").lower().split()

    scores = bm25_plus_scores(tokens(query), [tokens(t) for t in texts])
    order = sorted(zip(scores, texts, strict=True), key=lambda pair: pair[0], reverse=True)
    return {"ranked_results": order[:k]}


# --- the backends ----------------------------------------------------------------------------

_SNAKE_KEY = re.compile(r"^[a-z]+(_[a-z0-9]+)*$")


class KeyValueMemory:
    """`memory_kv`: core and archival key-value memories (limits in the module docstring)."""

    CORE_SIZE, CORE_LENGTH = 7, 300
    ARCHIVAL_SIZE, ARCHIVAL_LENGTH = 50, 2000
    INSTRUCTION: ClassVar[str] = KV_INSTRUCTION
    TOOLS: ClassVar[tuple[str, ...]] = (
        *(
            f"{kind}_memory_{op}"
            for kind in ("core", "archival")
            for op in ("add", "remove", "replace", "clear", "retrieve", "list_keys", "key_search")
        ),
        "core_memory_retrieve_all",
    )

    def __init__(self) -> None:
        self.core: dict[str, str] = {}
        self.archival: dict[str, str] = {}

    def snapshot(self) -> dict[str, Any]:
        return {"core_memory": dict(self.core), "archival_memory": dict(self.archival)}

    def load(self, snapshot: dict[str, Any]) -> None:
        self.core = dict(snapshot.get("core_memory") or {})
        self.archival = dict(snapshot.get("archival_memory") or {})

    def context(self) -> str:
        if not self.core:
            return "The core memory is empty."
        return json.dumps(self.core, indent=4)

    # shared rules of both memories
    def _add(
        self, store: dict[str, str], size: int, length: int, key: Any, value: Any
    ) -> dict[str, str]:
        key, value = str(key), str(value)
        if len(store) >= size:
            return {"error": "The memory is full: remove some entries first."}
        if len(value) > length:
            return {"error": f"The entry is too long: keep it under {length} characters."}
        if not _SNAKE_KEY.match(key):
            return {"error": "Keys must be snake_case, without spaces."}
        if key in store:
            return {"error": "This key exists already: keys must be unique."}
        store[key] = value
        return {"status": "Added."}

    @staticmethod
    def _remove(store: dict[str, str], key: Any) -> dict[str, str]:
        if key in store:
            del store[key]
            return {"status": "Removed."}
        return {"error": "No such key."}

    @staticmethod
    def _replace(store: dict[str, str], length: int, key: Any, value: Any) -> dict[str, str]:
        key, value = str(key), str(value)
        if key not in store:
            return {"error": "No such key."}
        if len(value) > length:
            return {"error": f"The entry is too long: keep it under {length} characters."}
        store[key] = value
        return {"status": "Replaced."}

    @staticmethod
    def _retrieve(store: dict[str, str], key: Any) -> dict[str, str]:
        if key not in store:
            return {"error": "No such key."}
        return {"value": store[key]}

    # the tools
    def core_memory_add(self, key: str, value: str) -> dict[str, str]:
        return self._add(self.core, self.CORE_SIZE, self.CORE_LENGTH, key, value)

    def core_memory_remove(self, key: str) -> dict[str, str]:
        return self._remove(self.core, key)

    def core_memory_replace(self, key: str, value: str) -> dict[str, str]:
        return self._replace(self.core, self.CORE_LENGTH, key, value)

    def core_memory_clear(self) -> dict[str, str]:
        self.core = {}
        return {"status": "Core memory cleared."}

    def core_memory_retrieve(self, key: str) -> dict[str, str]:
        return self._retrieve(self.core, key)

    def core_memory_list_keys(self) -> dict[str, list[str]]:
        return {"keys": list(self.core)}

    def core_memory_key_search(self, query: str, k: int = 5) -> dict[str, Any]:
        return ranked(query, list(self.core), k)

    def core_memory_retrieve_all(self) -> dict[str, str]:
        return self.core

    def archival_memory_add(self, key: str, value: str) -> dict[str, str]:
        return self._add(self.archival, self.ARCHIVAL_SIZE, self.ARCHIVAL_LENGTH, key, value)

    def archival_memory_remove(self, key: str) -> dict[str, str]:
        return self._remove(self.archival, key)

    def archival_memory_replace(self, key: str, value: str) -> dict[str, str]:
        return self._replace(self.archival, self.ARCHIVAL_LENGTH, key, value)

    def archival_memory_clear(self) -> dict[str, str]:
        self.archival = {}
        return {"status": "Archival memory cleared."}

    def archival_memory_retrieve(self, key: str) -> dict[str, str]:
        return self._retrieve(self.archival, key)

    def archival_memory_list_keys(self) -> dict[str, list[str]]:
        return {"keys": list(self.archival)}

    def archival_memory_key_search(self, query: str, k: int = 5) -> dict[str, Any]:
        return ranked(query, list(self.archival), k)


class SummaryMemory:
    """`memory_rec_sum`: one text of at most `LENGTH` characters."""

    LENGTH = 10_000
    INSTRUCTION: ClassVar[str] = SUMMARY_INSTRUCTION
    TOOLS: ClassVar[tuple[str, ...]] = (
        "memory_append",
        "memory_update",
        "memory_clear",
        "memory_replace",
        "memory_retrieve",
    )

    def __init__(self) -> None:
        self.text = ""

    def snapshot(self) -> dict[str, Any]:
        return {"memory": self.text}

    def load(self, snapshot: dict[str, Any]) -> None:
        self.text = str(snapshot.get("memory") or "")

    def context(self) -> str:
        return self.text or "The memory is empty."

    def _too_long(self) -> dict[str, str]:
        return {"error": f"The memory would be too long: keep it under {self.LENGTH} characters."}

    def memory_append(self, text: str) -> dict[str, str]:
        text = str(text)
        if len(self.text + text) > self.LENGTH:
            return self._too_long()
        self.text += text
        return {"status": "Appended."}

    def memory_update(self, text: str) -> dict[str, str]:
        text = str(text)
        if len(text) > self.LENGTH:
            return self._too_long()
        self.text = text
        return {"status": "Memory updated."}

    def memory_clear(self) -> dict[str, str]:
        self.text = ""
        return {"status": "Memory cleared."}

    def memory_replace(self, old_text: str, new_text: str) -> dict[str, str]:
        old_text, new_text = str(old_text), str(new_text)
        if old_text not in self.text:
            return {"error": f"Text {old_text!r} is not in the memory."}
        if len(new_text) > self.LENGTH:
            return self._too_long()
        self.text = self.text.replace(old_text, new_text)
        return {"status": "Memory updated."}

    def memory_retrieve(self) -> dict[str, str]:
        if not self.text:
            return {"error": "The memory is empty."}
        return {"memory_content": self.text}


# --- memory_vector -----------------------------------------------------------------------------

Embed = Callable[[list[str]], list[list[float]]]
"""Texts -> one vector each (the run's `/embeddings`, bridged to this thread)."""


def _unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


class VectorStore:
    """Texts by id with their unit vectors; similarity is the inner product (cosine), exact
    search over every entry, ties in id order (bfcl-eval: a flat FAISS inner-product index)."""

    def __init__(self, size: int, length: int, embed: Embed) -> None:
        self.size, self.length, self.embed = size, length, embed
        self.texts: dict[int, str] = {}
        self.vectors: dict[int, list[float]] = {}
        self.next_id = 0

    def snapshot(self) -> dict[str, Any]:
        return {"next_id": self.next_id, "store": dict(self.texts), "vectors": dict(self.vectors)}

    def load(self, snapshot: dict[str, Any]) -> None:
        self.next_id = int(snapshot.get("next_id", 0))
        self.texts = {int(k): v for k, v in (snapshot.get("store") or {}).items()}
        self.vectors = {int(k): v for k, v in (snapshot.get("vectors") or {}).items()}

    def add(self, text: str) -> dict[str, Any]:
        if len(text) > self.length:
            return {"error": f"The entry is too long: keep it under {self.length} characters."}
        if len(self.texts) >= self.size:
            return {"error": f"The memory is full ({self.size} entries): remove some first."}
        vec_id = self.next_id
        self.next_id += 1
        self.vectors[vec_id] = _unit(self.embed([text])[0])
        self.texts[vec_id] = text
        return {"id": vec_id}

    def remove(self, vec_id: int) -> dict[str, str]:
        if vec_id not in self.texts:
            return {"error": f"No entry has ID {vec_id}."}
        del self.texts[vec_id], self.vectors[vec_id]
        return {"status": f"Entry {vec_id} removed."}

    def update(self, vec_id: int, new_text: str) -> dict[str, str]:
        if vec_id not in self.texts:
            return {"error": f"No entry has ID {vec_id}."}
        if len(new_text) > self.length:
            return {"error": f"The entry is too long: keep it under {self.length} characters."}
        self.vectors[vec_id] = _unit(self.embed([new_text])[0])
        self.texts[vec_id] = new_text
        return {"status": f"Entry {vec_id} updated."}

    def clear(self) -> dict[str, str]:
        self.texts, self.vectors, self.next_id = {}, {}, 0
        return {"status": "Memory cleared."}

    def retrieve(self, query: str, top_k: int | None = 5) -> list[dict[str, Any]]:
        if not self.texts:
            return []
        if not isinstance(top_k, int):  # bfcl-eval fails such a call too
            raise TypeError(f"top_k must be an integer, found {type(top_k).__name__}")
        count = min(top_k, len(self.texts))
        q = _unit(self.embed([query])[0])
        scored = [
            (sum(a * b for a, b in zip(q, self.vectors[i], strict=False)), i) for i in self.texts
        ]
        scored.sort(key=lambda pair: pair[0], reverse=True)
        return [
            {"id": i, "similarity_score": float(score), "text": self.texts[i]}
            for score, i in scored[: max(count, 0)]
        ]

    def retrieve_all(self) -> list[dict[str, Any]]:
        return [{"id": i, "text": text} for i, text in self.texts.items()]


class VectorMemory:
    """`memory_vector`: core (7 x 300) and archival (50 x 2,000) memories of free texts,
    found by meaning: each text embedded through the run's `/embeddings` endpoint."""

    INSTRUCTION: ClassVar[str] = KV_INSTRUCTION
    TOOLS: ClassVar[tuple[str, ...]] = tuple(
        f"{kind}_memory_{op}"
        for kind in ("core", "archival")
        for op in ("add", "remove", "update", "clear", "retrieve", "retrieve_all")
    )

    def __init__(self, embed: Embed) -> None:
        self.core = VectorStore(7, 300, embed)
        self.archival = VectorStore(50, 2000, embed)

    def snapshot(self) -> dict[str, Any]:
        return {"core_memory": self.core.snapshot(), "archival_memory": self.archival.snapshot()}

    def load(self, snapshot: dict[str, Any]) -> None:
        self.core.load(snapshot.get("core_memory") or {})
        self.archival.load(snapshot.get("archival_memory") or {})

    def context(self) -> str:
        # bfcl-eval shows the core memory's id -> text map, `{}` when it is empty
        return json.dumps({str(k): v for k, v in self.core.texts.items()}, indent=4)

    def core_memory_add(self, text: str) -> dict[str, Any]:
        return self.core.add(text)

    def core_memory_remove(self, vec_id: int) -> dict[str, str]:
        return self.core.remove(vec_id)

    def core_memory_update(self, vec_id: int, new_text: str) -> dict[str, str]:
        return self.core.update(vec_id, new_text)

    def core_memory_clear(self) -> dict[str, str]:
        return self.core.clear()

    def core_memory_retrieve(self, query: str, top_k: int | None = 5) -> dict[str, Any]:
        return {"result": self.core.retrieve(query, top_k)}

    def core_memory_retrieve_all(self) -> dict[str, Any]:
        return {"result": self.core.retrieve_all()}

    def archival_memory_add(self, text: str) -> dict[str, Any]:
        return self.archival.add(text)

    def archival_memory_remove(self, vec_id: int) -> dict[str, str]:
        return self.archival.remove(vec_id)

    def archival_memory_update(self, vec_id: int, new_text: str) -> dict[str, str]:
        return self.archival.update(vec_id, new_text)

    def archival_memory_clear(self) -> dict[str, str]:
        return self.archival.clear()

    def archival_memory_retrieve(self, query: str, top_k: int | None = 5) -> dict[str, Any]:
        return {"result": self.archival.retrieve(query, top_k)}

    def archival_memory_retrieve_all(self) -> dict[str, Any]:
        return {"result": self.archival.retrieve_all()}


Memory = KeyValueMemory | SummaryMemory | VectorMemory
BACKENDS: dict[str, Callable[[Embed], Memory]] = {
    "memory_kv": lambda _embed: KeyValueMemory(),
    "memory_rec_sum": lambda _embed: SummaryMemory(),
    "memory_vector": VectorMemory,
}
"""The memory categories bfcl-action runs -> their backend (given the run's embedder)."""


# --- a conversation's memory -----------------------------------------------------------------


class MemoryData(BaseModel):
    """The scenario a memory entry belongs to (read with `TestCase.metadata_as`)."""

    model_config = ConfigDict(extra="ignore")

    scenario: str = ""


def is_prereq(case_id: str) -> bool:
    return PREREQ_MARK in case_id


@dataclass
class MemoryStore:
    """Each scenario's memory as the prerequisite chain left it, for one run."""

    snapshots: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    embed_async: Callable[[list[str]], Coroutine[Any, Any, list[list[float]]]] | None = None
    """The run's embeddings (`model.embeddings.embed` bound to its client and embedding
    model), for memory_vector; None when no embedding model is set."""
    _ready: set[tuple[str, str]] = field(default_factory=set)
    _locks: dict[tuple[str, str], asyncio.Lock] = field(default_factory=dict)

    async def ready(
        self,
        case: TestCase,
        load: Callable[[str, str], Sequence[TestCase]],
        converse: Callable[[TestCase], Awaitable[Any]],
    ) -> None:
        """Hold the prerequisite chain of `case`'s scenario once (`load(category, scenario)`
        gives its conversations, `converse` asks one); later callers wait for it."""
        key = (case.category, case.metadata_as(MemoryData).scenario)
        if key in self._ready:
            return
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if key in self._ready:
                return
            self.snapshots.pop(key, None)  # the chain starts from an empty memory
            prereqs = await asyncio.to_thread(load, *key)
            for prereq in prereqs:
                await converse(prereq)
            self._ready.add(key)

    def tools(self, category: str, env: EnvironmentSpec, case_id: str) -> MemoryTools:
        scenario = str(env.config.get("scenario", ""))
        backend = BACKENDS[category](self._embedder())
        saved = self.snapshots.get((category, scenario))
        if saved is not None:
            backend.load(copy.deepcopy(saved))
        return MemoryTools(backend, self, (category, scenario), commit=is_prereq(case_id))

    def _embedder(self) -> Embed:
        """`embed_async` for the tool calls, which run in a worker thread: each call is
        scheduled on the run's loop (the model client lives there; called on it, `tools`
        captures it) and waited for."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None

        def embed(texts: list[str]) -> list[list[float]]:
            if self.embed_async is None or loop is None:
                raise RuntimeError("no embedding model is set (`memory.embedding_model`)")
            return asyncio.run_coroutine_threadsafe(self.embed_async(texts), loop).result()

        return embed


class MemoryTools:
    """The memory environment of one conversation, with the sandbox's `init` / `call` /
    `close`. `finish()` (after a prerequisite conversation completed) keeps its memory for
    the next conversation of the scenario."""

    def __init__(
        self,
        backend: Memory,
        store: MemoryStore,
        key: tuple[str, str],
        *,
        commit: bool,
    ) -> None:
        self.backend = backend
        self.store = store
        self.key = key
        self.commit = commit

    def instruction(self) -> str:
        """The system message opening the conversation: role, memory rules, visible memory."""
        role = SCENARIO_ROLES.get(self.key[1], "You are a helpful assistant.")
        return self.backend.INSTRUCTION.format(role=role, memory=self.backend.context())

    def init(self, side: str, envs: Sequence[EnvironmentSpec], *, long_context: bool) -> list[str]:
        del side, envs, long_context
        return list(self.backend.TOOLS)

    def call(
        self, side: str, name: str, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None
    ) -> str:
        del side
        if name not in self.backend.TOOLS:
            return f"Error during execution: name '{log_line(name, 80)}' is not defined"
        try:
            result = getattr(self.backend, name)(*args, **(kwargs or {}))
        except Exception as exc:  # the model's call failed: that is its result, as upstream
            return f"Error during execution: {exc}"
        if isinstance(result, dict):
            try:
                return json.dumps(result)
            except (TypeError, ValueError):
                return str(result)
        return str(result)

    def finish(self) -> None:
        if self.commit:
            self.store.snapshots[self.key] = copy.deepcopy(self.backend.snapshot())

    def close(self) -> None:
        """Nothing to release: the memory lives in this process."""
