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


class ResponseCache:
    """`get(key)` / `put(key, ...)`; counts hits and writes for the progress line and report."""

    def __init__(self, directory: str | Path) -> None:
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
        row = self._db.execute("SELECT answer FROM responses WHERE key = ?", (key,)).fetchone()
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
        """Whether an answer is stored under `key` (not counted as a hit)."""
        row = self._db.execute("SELECT 1 FROM responses WHERE key = ?", (key,)).fetchone()
        return row is not None

    def __len__(self) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(row[0])

    def close(self) -> None:
        self._db.close()
