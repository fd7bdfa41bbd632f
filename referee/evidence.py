"""The evidence log: an append-only file of events, each chained to the one before by a hash,
so that a log shown with a protest (5.10) can be checked for changes since it was written.

The file holds one JSON object per line. `EventLog.append` adds three fields to the event:
`seq` (0, 1, 2, ...), `prev` (the previous record's `hash`; 64 zeros for the first) and
`hash`, the SHA-256 (hex) of the record without `hash` in canonical JSON: keys sorted, no
spaces, UTF-8, as `canonical_json` writes it. Each line is itself the canonical JSON of the
whole record, so a line that reads differently from what it parses to (a duplicated key, say)
is caught too. Changing a field, deleting, inserting or reordering lines breaks the chain at
the first line concerned; `verify` names its seq. Cutting lines off the end leaves a shorter
chain that is intact: compare the last hash with one noted elsewhere (the `verify` command
prints it) to rule that out.

Each append is written in one piece and flushed to disk (fsync) before `append` returns, so a
crash loses at most the line being written. What it can leave is a final line without its
newline: `verify` reports that line's seq as broken. Reopening the log with `EventLog` moves
such a line, as it was, to `LOG.torn` beside the log (appended, so nothing is lost) and cuts
it from the log, whose chain then goes on from the last complete record: the event was never
acknowledged to its writer, so it is not part of the record. A last complete record that is
damaged stops the reopening (`EvidenceError`): a log is never extended past a break.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[Any]

GENESIS = "0" * 64
CHAIN_FIELDS = frozenset({"seq", "prev", "hash"})
EXIT_TAMPERED = 1
_TAIL_BLOCK = 64 * 1024


class EvidenceError(ValueError):
    """A log that cannot be extended: damaged at its end, or open in another writer."""


def canonical_json(value: Any) -> bytes:
    """The one serialisation hashes are taken of: sorted keys, no spaces, UTF-8."""
    text = json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return text.encode("utf-8")


def record_hash(record: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the record's canonical JSON, leaving out its own `hash`."""
    body = {key: value for key, value in record.items() if key != "hash"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


@dataclass(frozen=True, slots=True)
class Audit:
    """What `audit` found: the intact records from the start, and the first break if any."""

    records: int  # intact records before the break (all of them when intact)
    last_hash: str  # the hash of the last intact record; GENESIS when there is none
    broken_seq: int | None  # the seq the first bad line should have had
    reason: str | None

    @property
    def intact(self) -> bool:
        return self.broken_seq is None


def audit(path: Path | str) -> Audit:
    """Check the whole chain of the log at `path`. Raises OSError when it cannot be read.

    The seq reported for a break is the position of the first line that is not what it must
    be (a valid log has seq = line number from 0): the changed record, the line where a
    record is missing, the inserted or moved line, or a final line cut short.
    """
    prev = GENESIS
    seq = 0
    with open(path, "rb") as log:
        for line in log:
            if not line.endswith(b"\n"):
                return Audit(seq, prev, seq, "the last line is incomplete: a write cut short")
            record, problem = _check_line(line[:-1], seq, prev)
            if record is None:
                return Audit(seq, prev, seq, problem)
            prev = record["hash"]
            seq += 1
    return Audit(seq, prev, None, None)


def verify(path: Path | str) -> int | None:
    """The seq where the log's chain first breaks, or None when it is intact."""
    return audit(path).broken_seq


def _check_line(
    line: bytes, seq: int | None = None, prev: str | None = None
) -> tuple[dict[str, Any] | None, str]:
    """The record on `line` if it is sound and, where given, the record number `seq` after
    `prev`; else None and what is wrong."""
    try:
        record = json.loads(line)
        sound = isinstance(record, dict) and record.keys() >= CHAIN_FIELDS
        # Decoding errors and values canonical JSON refuses (NaN) are ValueErrors.
        matches = sound and record["hash"] == record_hash(record)
    except ValueError:
        return None, "the line is not JSON"
    if not sound or isinstance(record["seq"], bool) or not isinstance(record["seq"], int):
        return None, "the line is not a log record (seq, prev and hash)"
    if not matches:
        return None, "the record's content does not match its hash"
    if seq is not None and record["seq"] != seq:
        return None, f"found seq {record['seq']} where seq {seq} belongs"
    if prev is not None and record["prev"] != prev:
        return None, "the record does not follow the one before it"
    if line != canonical_json(record):
        return None, "the line is not written in canonical form"
    return record, ""


class EventLog:
    """Appends events to the log at `path`, creating it or continuing its chain.

    One writer at a time: the file is locked while open. Use as a context manager, or call
    `close`.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        created = not self.path.exists()
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise EvidenceError(f"{self.path} is open in another writer") from None
            if created:
                _fsync_directory(self.path.parent)  # so the new file's name survives a crash
            last = self._recover_tail()
        except BaseException:
            os.close(self._fd)
            raise
        self.next_seq: int = 0 if last is None else last["seq"] + 1
        self.last_hash: str = GENESIS if last is None else last["hash"]

    def append(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """Write `event` as the next record and return the record as written.

        Raises ValueError for an event using the chain's own field names, TypeError or
        ValueError for a value JSON cannot hold exactly (an object, NaN), and OSError when the
        write fails (a full disk); nothing stays written then.
        """
        clash = CHAIN_FIELDS & event.keys()
        if clash:
            raise ValueError(f"event fields {sorted(clash)} are the log's own")
        record = {**event, "seq": self.next_seq, "prev": self.last_hash}
        record["hash"] = record_hash(record)
        data = canonical_json(record) + b"\n"
        end = os.lseek(self._fd, 0, os.SEEK_END)
        try:
            while data:
                data = data[os.write(self._fd, data) :]
            os.fsync(self._fd)
        except OSError:
            # A full disk, say: take back the part written, so the next append starts a line.
            os.ftruncate(self._fd, end)
            raise
        self.next_seq += 1
        self.last_hash = record["hash"]
        return record

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # releases the lock
            self._fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def _recover_tail(self) -> dict[str, Any] | None:
        """The last complete record, after moving a final line without newline to LOG.torn."""
        size = os.fstat(self._fd).st_size
        tail, start = b"", size
        # Read backwards until the tail holds the last complete line whole.
        while start > 0 and tail.count(b"\n") < 2:
            step = min(_TAIL_BLOCK, start)
            start -= step
            tail = os.pread(self._fd, step, start) + tail
        cut = tail.rfind(b"\n") + 1
        if cut < len(tail):
            torn = Path(f"{self.path}.torn")
            with open(torn, "ab") as aside:
                aside.write(tail[cut:])
                aside.flush()
                os.fsync(aside.fileno())
            os.ftruncate(self._fd, start + cut)
            os.fsync(self._fd)
            tail = tail[:cut]
        if not tail:
            return None
        record, problem = _check_line(tail[:-1].rsplit(b"\n", 1)[-1])
        if record is None:
            raise EvidenceError(
                f"the last record of {self.path} is damaged ({problem}); not extending it"
            )
        return record


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- the `verify` command ------------------------------------------------------------------


def add_command(commands: Subcommands) -> None:
    """Register `verify` under the main command line."""
    p = commands.add_parser("verify", help="check an event log's hash chain")
    p.add_argument("log", type=Path, help="the event log (JSON lines)")
    p.set_defaults(run=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    """Exit 0 when intact, 1 when the chain breaks (with its seq); an unreadable log is bad
    input (ValueError, exit 2)."""
    try:
        found = audit(args.log)
    except OSError as error:
        raise ValueError(f"cannot read {args.log}: {error.strerror}") from None
    if found.intact:
        print(f"{args.log}: intact, {found.records} records, last hash {found.last_hash}")
        return 0
    print(f"{args.log}: broken at seq {found.broken_seq}: {found.reason}")
    return EXIT_TAMPERED
