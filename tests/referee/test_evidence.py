"""The hash-chained event log: what it writes, every kind of tampering it must catch, a crash
in the middle of a write, and the `verify` command."""

from __future__ import annotations

import errno
import hashlib
import json
import os
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cli import main
from referee.evidence import (
    GENESIS,
    EventLog,
    EvidenceError,
    audit,
    canonical_json,
    record_hash,
    verify,
)

EVENTS = [
    {"type": "roll", "player": "white", "dice": [6, 4], "frame": 120, "time": 4.0},
    {"type": "move", "player": "white", "moves": [[24, 18], [18, 14]], "frame": 300},
    {"type": "flag", "rule": "5.4.13", "message": "six points in a row", "frame": 310},
    {"type": "decision", "decision": "accepted", "note": "судья: принято", "time": 12.5},
    {"type": "roll", "player": "black", "dice": [3, 3], "frame": 420, "time": 14.0},
]

# JSON values an event may hold: what the tracker writes (numbers, text, lists, objects).
finite = st.floats(allow_nan=False, allow_infinity=False)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | finite | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
events = st.dictionaries(
    st.text(min_size=1).filter(lambda key: key not in ("seq", "prev", "hash")), json_values,
    max_size=4,
)


def write_log(path: Path, items: list[dict[str, object]]) -> list[dict[str, object]]:
    with EventLog(path) as log:
        return [log.append(event) for event in items]


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def test_each_record_carries_seq_prev_and_the_hash_of_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    records = write_log(path, EVENTS)
    assert [r["seq"] for r in records] == list(range(len(EVENTS)))
    assert records[0]["prev"] == GENESIS
    for before, record in pairwise(records):
        assert record["prev"] == before["hash"]
    for line, record, event in zip(lines(path), records, EVENTS, strict=True):
        stored = json.loads(line)
        assert stored == record and {**event, **stored} == stored
        body = {key: value for key, value in stored.items() if key != "hash"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert stored["hash"] == hashlib.sha256(text.encode()).hexdigest()
        assert line == canonical_json(stored) + b"\n"
    assert verify(path) is None


def test_reopening_continues_the_chain(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    first = write_log(path, EVENTS[:2])
    with EventLog(path) as log:
        assert (log.next_seq, log.last_hash) == (2, first[-1]["hash"])
        record = log.append(EVENTS[2])
    assert record["seq"] == 2 and record["prev"] == first[-1]["hash"]
    assert verify(path) is None
    assert audit(path).records == 3 and audit(path).last_hash == record["hash"]


def test_an_empty_or_new_log_is_intact(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.touch()
    assert audit(path).intact
    assert audit(path).records == 0 and audit(path).last_hash == GENESIS
    assert write_log(tmp_path / "new.jsonl", EVENTS[:1])[0]["prev"] == GENESIS


def tamper_field(data: list[bytes], index: int) -> list[bytes]:
    record = json.loads(data[index])
    record["tampered"] = True
    return [*data[:index], canonical_json(record) + b"\n", *data[index + 1 :]]


def tamper_and_rehash(data: list[bytes], index: int) -> list[bytes]:
    """A forger who recomputes the changed record's hash still breaks the next link."""
    record = json.loads(data[index])
    record["dice"] = [6, 6]
    record["hash"] = record_hash(record)
    return [*data[:index], canonical_json(record) + b"\n", *data[index + 1 :]]


@pytest.mark.parametrize(
    ("tamper", "broken"),
    [
        (lambda d: tamper_field(d, 2), 2),
        (lambda d: [d[0].replace(b'"dice":[6,4]', b'"dice":[6,6]'), *d[1:]], 0),
        (lambda d: [*d[:3], d[3].replace(b"12.5", b"13.5"), *d[4:]], 3),
        (lambda d: tamper_and_rehash(d, 0), 1),
        (lambda d: tamper_and_rehash(d, 4), None),  # the last record: see the docs (tail)
        (lambda d: d[:2] + d[3:], 2),  # a line deleted
        (lambda d: d[1:], 0),  # the first line deleted
        (lambda d: [*d[:2], d[0], *d[2:]], 2),  # a line inserted (a copy of an earlier one)
        (lambda d: [d[0], d[2], d[1], *d[3:]], 1),  # two lines swapped
        (lambda d: [*d[:-1], d[-1][:-1]], 4),  # the last newline lost
        (lambda d: [*d[:-1], d[-1][:20]], 4),  # the last line cut short
        (lambda d: [*d, b"\n"], 5),  # an empty line appended
        (lambda d: [*d[:2], d[2].replace(b",", b", ", 1), *d[3:]], 2),  # same JSON, other text
        (lambda d: [*d[:1], d[1].replace(b'{"frame"', b'{"frame":1,"frame"'), *d[2:]], 1),
        (lambda d: [*d[:3], b"\xff\xfe not text\n", *d[4:]], 3),
        (lambda d: [*d[:3], b"[1, 2]\n", *d[4:]], 3),
    ],
)
def test_tampering_is_found_at_its_seq(
    tmp_path: Path, tamper: Callable[[list[bytes]], list[bytes]], broken: int | None
) -> None:
    path = tmp_path / "events.jsonl"
    write_log(path, EVENTS)
    path.write_bytes(b"".join(tamper(lines(path))))
    assert verify(path) == broken


@settings(max_examples=25, deadline=None)
@given(items=st.lists(events, min_size=1, max_size=6), data=st.data())
def test_any_changed_record_breaks_the_chain_there(
    tmp_path_factory: pytest.TempPathFactory, items: list[dict[str, object]], data: st.DataObject
) -> None:
    path = tmp_path_factory.mktemp("log") / "events.jsonl"
    write_log(path, items)
    assert verify(path) is None
    original = lines(path)
    index = data.draw(st.integers(0, len(items) - 1))
    key = data.draw(st.sampled_from(sorted({*items[index], "seq", "prev", "hash"})))
    record = json.loads(original[index])
    value = data.draw(json_values.filter(lambda v: v != record.get(key)))
    record[key] = value
    path.write_bytes(b"".join([*original[:index], canonical_json(record) + b"\n",
                               *original[index + 1 :]]))
    assert verify(path) == index


def test_a_write_cut_short_by_a_crash_is_set_aside_on_reopen(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    records = write_log(path, EVENTS[:3])
    torn = canonical_json({**EVENTS[3], "seq": 3})[:25]
    with open(path, "ab") as log:
        log.write(torn)
    assert verify(path) == 3
    with EventLog(path) as log:
        assert log.next_seq == 3 and log.last_hash == records[-1]["hash"]
        log.append(EVENTS[4])
    assert verify(path) is None and audit(path).records == 4
    assert (tmp_path / "events.jsonl.torn").read_bytes() == torn


def test_a_log_whose_only_line_was_cut_short_starts_again(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(b'{"seq":0,"prev":"00')
    with EventLog(path) as log:
        assert log.append(EVENTS[0])["prev"] == GENESIS
    assert verify(path) is None


def test_the_tail_of_a_long_log_is_found(tmp_path: Path) -> None:
    """Reopening reads backwards from the end, across blocks, to the last whole record."""
    path = tmp_path / "events.jsonl"
    big: dict[str, object] = {"type": "note", "text": "x" * 50_000}
    records = write_log(path, [big, big, EVENTS[0], big])
    with open(path, "ab") as log:
        log.write(b'{"seq":4,' + b"y" * 70_000)
    with EventLog(path) as log:
        assert log.next_seq == 4 and log.last_hash == records[-1]["hash"]


def test_a_damaged_last_record_is_not_extended(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    write_log(path, EVENTS[:2])
    data = lines(path)
    path.write_bytes(b"".join(tamper_field(data, 1)))
    with pytest.raises(EvidenceError, match="damaged"):
        EventLog(path)
    assert path.read_bytes() == b"".join(tamper_field(data, 1))


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    with EventLog(path), pytest.raises(EvidenceError, match="another writer"):
        EventLog(path)
    write_log(path, EVENTS[:1])  # the lock is gone with the first writer


@pytest.mark.parametrize(
    ("event", "error"),
    [
        ({"seq": 7}, ValueError),
        ({"hash": "forged"}, ValueError),
        ({"value": float("nan")}, ValueError),
        ({"value": object()}, TypeError),
    ],
)
def test_an_event_json_cannot_hold_exactly_writes_nothing(
    tmp_path: Path, event: dict[str, object], error: type[Exception]
) -> None:
    path = tmp_path / "events.jsonl"
    with EventLog(path) as log:
        log.append(EVENTS[0])
        with pytest.raises(error):
            log.append(event)
        assert log.append(EVENTS[1])["seq"] == 1
    assert verify(path) is None and audit(path).records == 2


def test_a_failed_write_is_taken_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "events.jsonl"
    real_write = os.write

    def disk_full_halfway(fd: int, data: bytes) -> int:
        real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    with EventLog(path) as log:
        log.append(EVENTS[0])
        with monkeypatch.context() as patch:
            patch.setattr(os, "write", disk_full_halfway)
            with pytest.raises(OSError, match="No space"):
                log.append(EVENTS[1])
        assert log.append(EVENTS[2])["seq"] == 1
    assert verify(path) is None and audit(path).records == 2


def test_verify_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "events.jsonl"
    records = write_log(path, EVENTS)
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert out == f"{path}: intact, 5 records, last hash {records[-1]['hash']}\n"

    path.write_bytes(b"".join(tamper_field(lines(path), 3)))
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: broken at seq 3: ") and out.count("\n") == 1

    assert main(["verify", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["verify", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "cannot read" in err
