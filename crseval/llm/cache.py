"""Content-addressed SQLite cache of LLM responses: a repeated request costs nothing.

The key is the sha256 of the backend identity (name, model, file hash — never an API key) and the
full request (messages, temperature, max tokens, seed, stop, schema, grammar, choices). Only
successful responses are stored. Safe to share between threads; WAL mode lets processes share it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

from crseval.llm.base import ChatResponse


class ResponseCache:
    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(
            str(self.path) if self.path else ":memory:", check_same_thread=False, timeout=30
        )
        with self._lock:
            if self.path:
                # WAL + NORMAL: commits survive a killed process; only a power cut can lose the newest
                # entries, which a cache can afford (no fsync per response)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, response TEXT NOT NULL,"
                " created REAL NOT NULL)"
            )
            self._db.commit()

    def get(self, key: str) -> ChatResponse | None:
        with self._lock:
            row = self._db.execute(
                "SELECT response FROM responses WHERE key = ?", (key,)
            ).fetchone()
        return ChatResponse.from_dict(json.loads(row[0]), cached=True) if row else None

    def put(self, key: str, response: ChatResponse) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?)",
                (key, json.dumps(response.to_dict()), time.time()),
            )
            self._db.commit()

    def put_many(self, items: list[tuple[str, ChatResponse]]) -> None:
        """Several answers in one transaction (an imported batch: all of them or none)."""
        now = time.time()
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?)",
                [(k, json.dumps(r.to_dict()), now) for k, r in items],
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
