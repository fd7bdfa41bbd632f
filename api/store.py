"""The service's state in one SQLite file: tables, their events, judges' decisions and
overrides, review jobs and access tokens.

Each table's events are append-only with a seq from 0, and hash-chained like the evidence
log (referee/evidence.py): a stored record is the event with `seq`, `prev` and `hash`, so
a table's stream exports as an events.jsonl that `nardy-referee verify` checks. Every write
commits before it returns (WAL journal), so an event a client has seen survives a crash.
One connection serves all threads, one statement group at a time.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.evidence import GENESIS, record_hash

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL,
    calibration TEXT NOT NULL, variant TEXT NOT NULL, paced INTEGER NOT NULL,
    state TEXT NOT NULL, error TEXT, created_at REAL NOT NULL, tray_source TEXT,
    tray_calibration TEXT);
CREATE TABLE IF NOT EXISTS events (
    table_id INTEGER NOT NULL REFERENCES tables(id), seq INTEGER NOT NULL,
    record TEXT NOT NULL, hash TEXT NOT NULL, received_at REAL NOT NULL,
    PRIMARY KEY (table_id, seq));
CREATE TABLE IF NOT EXISTS decisions (
    table_id INTEGER NOT NULL REFERENCES tables(id), flag_seq INTEGER NOT NULL,
    decision TEXT NOT NULL, judge TEXT NOT NULL, note TEXT NOT NULL,
    decided_at REAL NOT NULL, event_seq INTEGER NOT NULL, PRIMARY KEY (table_id, flag_seq));
CREATE TABLE IF NOT EXISTS overrides (
    id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL REFERENCES tables(id),
    kind TEXT NOT NULL, value TEXT NOT NULL, judge TEXT NOT NULL, note TEXT NOT NULL,
    made_at REAL NOT NULL, event_seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS reviews (
    id INTEGER PRIMARY KEY, filename TEXT NOT NULL, variant TEXT NOT NULL,
    state TEXT NOT NULL, frames_done INTEGER NOT NULL DEFAULT 0,
    frames_total INTEGER NOT NULL DEFAULT 0, summary TEXT, error TEXT,
    created_at REAL NOT NULL, finished_at REAL);
CREATE TABLE IF NOT EXISTS tokens (
    hash TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, created_at REAL NOT NULL,
    revoked_at REAL);
"""
# Columns added since a database could first have been made: (table, column, declaration).
MIGRATIONS = (("tokens", "revoked_at", "REAL"), ("tables", "tray_source", "TEXT"),
              ("tables", "tray_calibration", "TEXT"))
# A token is named by the start of its hash: enough to tell tokens apart, useless to sign in.
TOKEN_ID_LENGTH = 12

ROLES = ("judge", "viewer")


class NotFound(LookupError):
    """No such table, flag or review."""


class Conflict(ValueError):
    """The write contradicts what is stored (a flag already decided)."""


@dataclass(frozen=True)
class TableRow:
    id: int
    name: str
    source: str
    calibration: dict[str, Any]
    variant: str
    paced: bool
    state: str  # registered | starting | running | stopped | finished | error
    error: str | None
    created_at: float
    tray_source: str | None = None  # a camera of the tray's own, with its calibration
    tray_calibration: dict[str, Any] | None = None


@dataclass(frozen=True)
class StoredEvent:
    table_id: int
    seq: int
    record: dict[str, Any]  # the event with its seq, prev and hash
    received_at: float


@dataclass(frozen=True)
class TokenRow:
    id: str
    name: str
    role: str
    created_at: float
    revoked_at: float | None


@dataclass(frozen=True)
class ReviewRow:
    id: int
    filename: str
    variant: str
    state: str  # queued | running | done | failed
    frames_done: int
    frames_total: int
    summary: dict[str, Any] | None
    error: str | None
    created_at: float
    finished_at: float | None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Store:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # an acknowledged event is on disk
        self._db.executescript(SCHEMA)
        for table, column, declaration in MIGRATIONS:
            known = {row["name"] for row in self._db.execute(f"PRAGMA table_info({table})")}
            if column not in known:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _read(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # -- tokens -------------------------------------------------------------------------------

    def make_token(self, name: str, role: str) -> str:
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, not {role!r}")
        token = secrets.token_urlsafe(24)
        with self._write() as db:
            db.execute("INSERT INTO tokens (hash, name, role, created_at) VALUES (?, ?, ?, ?)",
                       (hash_token(token), name, role, time.time()))
        return token

    def token_holder(self, token: str) -> tuple[str, str] | None:
        """(name, role) of the token's holder, or None for an unknown or revoked token."""
        rows = self._read("SELECT name, role FROM tokens WHERE hash = ? AND revoked_at IS NULL",
                          hash_token(token))
        return (rows[0]["name"], rows[0]["role"]) if rows else None

    def tokens(self) -> list[TokenRow]:
        """Every token ever made, revoked ones too (who could act when stays on record)."""
        return [_token(row) for row in self._read("SELECT * FROM tokens ORDER BY created_at")]

    def token_of(self, token: str) -> TokenRow:
        rows = self._read("SELECT * FROM tokens WHERE hash = ?", hash_token(token))
        if not rows:
            raise NotFound("no such token")
        return _token(rows[0])

    def revoke_token(self, token_id: str) -> TokenRow:
        """Revoke the token whose id (the start of its hash) is `token_id`. The last judge's
        token that still works cannot be revoked: nobody could then make another."""
        if len(token_id) != TOKEN_ID_LENGTH:
            raise NotFound(f"no token {token_id}")
        with self._write() as db:
            row = db.execute("SELECT * FROM tokens WHERE substr(hash, 1, ?) = ?",
                             (TOKEN_ID_LENGTH, token_id)).fetchone()
            if row is None:
                raise NotFound(f"no token {token_id}")
            if row["revoked_at"] is None and row["role"] == "judge":
                judges = db.execute("SELECT count(*) FROM tokens WHERE role = 'judge' AND "
                                    "revoked_at IS NULL").fetchone()[0]
                if judges == 1:
                    raise Conflict("this is the last judge's token that works; make another "
                                   "before revoking it")
            if row["revoked_at"] is None:
                db.execute("UPDATE tokens SET revoked_at = ? WHERE hash = ?",
                           (time.time(), row["hash"]))
            row = db.execute("SELECT * FROM tokens WHERE hash = ?", (row["hash"],)).fetchone()
        return _token(row)

    # -- tables -------------------------------------------------------------------------------

    def add_table(self, name: str, source: str, calibration: dict[str, Any], variant: str,
                  paced: bool, tray: tuple[str, dict[str, Any]] | None = None) -> TableRow:
        """A new table; `tray`: the source and calibration of a camera of the tray's own."""
        tray_source, tray_calibration = (tray[0], json.dumps(tray[1])) if tray else (None, None)
        with self._write() as db:
            cursor = db.execute(
                "INSERT INTO tables (name, source, calibration, variant, paced, state, "
                "created_at, tray_source, tray_calibration) "
                "VALUES (?, ?, ?, ?, ?, 'registered', ?, ?, ?)",
                (name, source, json.dumps(calibration), variant, int(paced), time.time(),
                 tray_source, tray_calibration))
            table_id = cursor.lastrowid
        assert table_id is not None
        return self.table(table_id)

    def table(self, table_id: int) -> TableRow:
        rows = self._read("SELECT * FROM tables WHERE id = ?", table_id)
        if not rows:
            raise NotFound(f"no table {table_id}")
        return _table(rows[0])

    def tables(self) -> list[TableRow]:
        return [_table(row) for row in self._read("SELECT * FROM tables ORDER BY id")]

    def set_state(self, table_id: int, state: str, error: str | None = None) -> None:
        with self._write() as db:
            db.execute("UPDATE tables SET state = ?, error = ? WHERE id = ?",
                       (state, error, table_id))

    def set_calibration(self, table_id: int, calibration: dict[str, Any]) -> None:
        with self._write() as db:
            db.execute("UPDATE tables SET calibration = ? WHERE id = ?",
                       (json.dumps(calibration), table_id))

    # -- events -------------------------------------------------------------------------------

    def append_event(self, table_id: int, event: dict[str, Any]) -> StoredEvent:
        with self._write() as db:
            return _append(db, table_id, event)

    def events(self, table_id: int, since: int = -1, limit: int | None = None
               ) -> list[StoredEvent]:
        """The table's events with seq above `since`, in order."""
        rows = self._read("SELECT * FROM events WHERE table_id = ? AND seq > ? ORDER BY seq "
                          "LIMIT ?", table_id, since, -1 if limit is None else limit)
        return [_event(row) for row in rows]

    def event(self, table_id: int, seq: int) -> StoredEvent:
        rows = self._read("SELECT * FROM events WHERE table_id = ? AND seq = ?", table_id, seq)
        if not rows:
            raise NotFound(f"table {table_id} has no event {seq}")
        return _event(rows[0])

    # -- decisions and overrides ----------------------------------------------------------------

    def decide(self, table_id: int, flag_seq: int, decision: str, judge: str, note: str,
               event: dict[str, Any]) -> StoredEvent:
        """Record a judge's decision on a flag and append `event` for it, in one commit."""
        with self._write() as db:
            taken = db.execute("SELECT judge FROM decisions WHERE table_id = ? AND flag_seq = ?",
                               (table_id, flag_seq)).fetchone()
            if taken is not None:
                raise Conflict(f"flag {flag_seq} was already decided by {taken['judge']}")
            stored = _append(db, table_id, event)
            db.execute("INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (table_id, flag_seq, decision, judge, note, stored.received_at,
                        stored.seq))
        return stored

    def decided_flags(self, table_id: int) -> set[int]:
        rows = self._read("SELECT flag_seq FROM decisions WHERE table_id = ?", table_id)
        return {row["flag_seq"] for row in rows}

    def override(self, table_id: int, kind: str, value: Any, judge: str, note: str,
                 event: dict[str, Any]) -> StoredEvent:
        """Record a judge's override of a reading and append `event` for it, in one commit."""
        with self._write() as db:
            stored = _append(db, table_id, event)
            db.execute("INSERT INTO overrides (table_id, kind, value, judge, note, made_at, "
                       "event_seq) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (table_id, kind, json.dumps(value), judge, note, stored.received_at,
                        stored.seq))
        return stored

    # -- review jobs ----------------------------------------------------------------------------

    def add_review(self, filename: str, variant: str) -> ReviewRow:
        with self._write() as db:
            cursor = db.execute("INSERT INTO reviews (filename, variant, state, created_at) "
                                "VALUES (?, ?, 'queued', ?)", (filename, variant, time.time()))
            review_id = cursor.lastrowid
        assert review_id is not None
        return self.review(review_id)

    def review(self, review_id: int) -> ReviewRow:
        rows = self._read("SELECT * FROM reviews WHERE id = ?", review_id)
        if not rows:
            raise NotFound(f"no review {review_id}")
        return _review(rows[0])

    def reviews(self, state: str | None = None) -> list[ReviewRow]:
        rows = self._read("SELECT * FROM reviews WHERE ? IS NULL OR state = ? ORDER BY id",
                          state, state)
        return [_review(row) for row in rows]

    def update_review(self, review_id: int, **fields: Any) -> None:
        if "summary" in fields:
            fields["summary"] = json.dumps(fields["summary"])
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self._write() as db:
            db.execute(f"UPDATE reviews SET {assignments} WHERE id = ?",
                       (*fields.values(), review_id))


def _append(db: sqlite3.Connection, table_id: int, event: dict[str, Any]) -> StoredEvent:
    last = db.execute("SELECT seq, hash FROM events WHERE table_id = ? ORDER BY seq DESC "
                      "LIMIT 1", (table_id,)).fetchone()
    seq, prev = (0, GENESIS) if last is None else (last["seq"] + 1, last["hash"])
    record = {**event, "seq": seq, "prev": prev}
    record["hash"] = record_hash(record)
    received_at = time.time()
    db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?)",
               (table_id, seq, json.dumps(record), record["hash"], received_at))
    return StoredEvent(table_id, seq, record, received_at)


def _table(row: sqlite3.Row) -> TableRow:
    tray = row["tray_calibration"]
    return TableRow(row["id"], row["name"], row["source"], json.loads(row["calibration"]),
                    row["variant"], bool(row["paced"]), row["state"], row["error"],
                    row["created_at"], row["tray_source"], json.loads(tray) if tray else None)


def _event(row: sqlite3.Row) -> StoredEvent:
    return StoredEvent(row["table_id"], row["seq"], json.loads(row["record"]),
                       row["received_at"])


def _token(row: sqlite3.Row) -> TokenRow:
    return TokenRow(row["hash"][:TOKEN_ID_LENGTH], row["name"], row["role"], row["created_at"],
                    row["revoked_at"])


def _review(row: sqlite3.Row) -> ReviewRow:
    summary = json.loads(row["summary"]) if row["summary"] else None
    return ReviewRow(row["id"], row["filename"], row["variant"], row["state"],
                     row["frames_done"], row["frames_total"], summary, row["error"],
                     row["created_at"], row["finished_at"])
