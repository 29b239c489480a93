"""Content-addressed response cache: one sqlite row per model response, committed as it
arrives (a conversation step is a row like a single-turn answer).

WAL mode lets a reader (a second run, `sqlite3` on the command line) look while a run writes,
and each answer is its own committed row, so killing a run loses nothing already received;
the next run finds those rows and asks only for the rest. Only answers are stored: failures
are never cached, so a rerun retries them.

Commits do not fsync (`synchronous=OFF`): a killed process loses nothing (the rows are in the
OS), and the run's event loop never waits on the disk. Only an OS crash could damage the
file; a cache that no longer opens is moved aside and started afresh, since every row can be
asked for again.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from bfcl_action.model.types import ChatResponse

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    case_id TEXT NOT NULL,
    model TEXT NOT NULL,
    created REAL NOT NULL,
    answer TEXT NOT NULL
)
"""
FILE_NAME = "responses.sqlite3"
DEFAULT_MAX_AGE_S = 7 * 24 * 3600.0
"""Answers older than this are neither reused nor kept (a week: the provider may have
changed the model behind the name since)."""


class ResponseCache:
    """`get(key)` / `put(key, ...)`; counts hits and writes for the progress line and report.

    `max_age_s` bounds staleness: older rows are deleted on open and never returned (None:
    no limit). `read=False` makes a fresh cache: only answers written since it was opened
    are returned (this run's, e.g. the Batch API stage's), every other request is asked
    afresh and stored, for runs that measure the provider (scheduled runs) yet feed later
    PR runs.
    """

    def __init__(
        self,
        directory: str | Path,
        *,
        max_age_s: float | None = DEFAULT_MAX_AGE_S,
        read: bool = True,
    ) -> None:
        self.max_age_s = max_age_s
        self.read = read
        self.opened = time.time()
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / FILE_NAME
        try:
            self._db = self._open()
        except sqlite3.DatabaseError:
            self.path.replace(self.path.with_name(f"{FILE_NAME}.corrupt-{int(time.time())}"))
            self._db = self._open()
        self.hits = 0
        self.writes = 0
        self.expired = self._prune()

    def _oldest(self) -> float:
        oldest = 0.0 if self.max_age_s is None else time.time() - self.max_age_s
        return oldest if self.read else max(oldest, self.opened)

    def _prune(self) -> int:
        """Delete rows past the age limit; how many went."""
        if self.max_age_s is None:
            return 0
        oldest = time.time() - self.max_age_s
        gone = self._db.execute("DELETE FROM responses WHERE created < ?", (oldest,))
        return max(0, gone.rowcount)

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout=10000")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=OFF")
            db.execute(_SCHEMA)
            db.execute("SELECT COUNT(*) FROM responses LIMIT 1").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def get(self, key: str) -> ChatResponse | None:
        row = self._db.execute(
            "SELECT answer FROM responses WHERE key = ? AND created >= ?", (key, self._oldest())
        ).fetchone()
        if row is None:
            return None
        self.hits += 1
        return ChatResponse.from_json(json.loads(row[0]))

    def put(self, key: str, *, case_id: str, model: str, answer: ChatResponse) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO responses (key, case_id, model, created, answer) "
            "VALUES (?, ?, ?, ?, ?)",
            (key, case_id, model, time.time(), json.dumps(answer.to_json())),
        )
        self.writes += 1

    def __contains__(self, key: object) -> bool:
        """Whether `get(key)` would answer (not counted as a hit): within the age limit, and
        written since opening in a fresh cache."""
        row = self._db.execute(
            "SELECT 1 FROM responses WHERE key = ? AND created >= ?", (key, self._oldest())
        ).fetchone()
        return row is not None

    def __len__(self) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(row[0])

    def close(self) -> None:
        self._db.close()
