"""A review's human outputs: the game record built from the referee's events, and the files
a protest panel reads (`record.json`, `record.txt`, `match.mat` for short nardy, and the
self-contained `report.html`).

The events are those of referee/tracker.py as the review logs them (one JSON object each, in
the order they were decided). One `Turn` of the record is one counted throw: a `roll` (or a
`roll_reread` with nothing read) opens it, and the mover's `move`, the opponent's
`move_accepted` of a flagged position, or `move_unseen` closes it. A `throw_void` is a void
turn of its own. A turn still open when the log ends is left out of the record (the report
says so): its move was never decided.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.evidence import Audit, audit
from referee.matfile import MatExportError, to_mat
from referee.position import GameResult, Position, ResultKind, Side, Variant
from referee.record import (
    ILLEGAL_ACCEPTED,
    ILLEGAL_CORRECTED,
    UNREAD_DIE,
    VOID_THROW,
    GameRecord,
    MatchRecord,
    RecordError,
    Turn,
)
from referee.report_html import render

# The board never showed the move settled before the opponent threw: play went on from the
# position as it stood before the throw.
MOVE_UNSEEN = "move unseen"
# A throw before the opponent had finished that the opponent then counted (5.4.18).
PREMATURE_THROW = "premature throw"


@dataclass
class _Draft:
    """A turn while its events come in; `ending` is the event that closed it."""

    player: Side | None
    dice: tuple[int, int]
    frame: int | None
    time: float | None
    flags: list[str] = field(default_factory=list)
    observed_moves: list[list[int]] | None = None
    ending: dict[str, Any] | None = None


@dataclass(frozen=True)
class ReadGame:
    """The record and, for each of its turns, the seq of the event that decided it."""

    record: GameRecord
    turn_seqs: list[int]
    unfinished: str | None  # the turn the log leaves open, in words


def game_record(events: Sequence[dict[str, Any]]) -> GameRecord:
    """The game record of a review's events. Raises RecordError on a malformed event."""
    return read_game(events).record


def read_game(events: Sequence[dict[str, Any]]) -> ReadGame:
    """`game_record` with where each turn came from, for the report."""
    variant = Variant.LONG
    drafts: list[_Draft] = []
    result: GameResult | None = None
    rest_at: tuple[int, float] | None = None  # when the dice of a counted throw came to rest
    for index, event in enumerate(events):
        kind = event.get("event")
        try:
            if kind == "review_start":
                variant = Variant(event["variant"])
            elif kind == "throw_start":
                rest_at = None
            elif kind == "count_start":
                rest_at = (event["frame"], event["time"])
            elif kind == "throw_void":
                frame, time = rest_at or (event["frame"], event["time"])
                void = _Draft(_player(event), (UNREAD_DIE, UNREAD_DIE), frame, time,
                              [f"{VOID_THROW} {event['rule']}"])
                void.ending = event
                drafts.append(void)
            elif kind == "roll" or (kind == "roll_reread" and event.get("read") is None):
                flags = [f"{PREMATURE_THROW} 5.4.18"] if event.get("premature") else []
                drafts.append(_Draft(_player(event), _dice(event["dice"]), event["frame"],
                                     event["time"], flags))
            elif kind in ("roll_reread", "roll_changed", "illegal_move", "correction", "move",
                          "move_unseen"):
                _update(_open(drafts, _player(event), event), kind, event)
            elif kind == "move_accepted":
                draft = _open(drafts, Side(event["opponent"]), event)
                draft.flags.append(ILLEGAL_ACCEPTED)
                draft.ending = event
            elif kind == "game_end":
                found = event["result"]
                result = GameResult(Side(found["winner"]), ResultKind(found["kind"]),
                                    int(found["points"]))
        except (KeyError, TypeError, ValueError) as error:
            seq = event.get("seq", index)
            raise RecordError(f"event {seq} ({kind}) is malformed: {error!r}") from None
    return _assemble(variant, drafts, result, events)


def _update(draft: _Draft, kind: str, event: dict[str, Any]) -> None:
    if kind in ("roll_reread", "roll_changed"):
        draft.dice = _dice(event["dice"])
    elif kind == "illegal_move":
        draft.observed_moves = event.get("observed_moves")
    elif kind == "correction" and ILLEGAL_CORRECTED not in draft.flags:
        draft.flags.append(ILLEGAL_CORRECTED)
    elif kind in ("move", "move_unseen"):
        if "dice" in event:
            draft.dice = _dice(event["dice"])
        if kind == "move_unseen":
            draft.flags.append(MOVE_UNSEEN)
        draft.ending = event


def _open(drafts: list[_Draft], player: Side | None, event: dict[str, Any]) -> _Draft:
    """The player's turn still open; a closing event with no roll before it (a damaged log)
    opens one of its own."""
    for draft in reversed(drafts):
        if draft.ending is None and (draft.player is None or draft.player is player):
            draft.player = draft.player or player
            return draft
    dice = _dice(event["dice"]) if "dice" in event else (UNREAD_DIE, UNREAD_DIE)
    drafts.append(_Draft(player, dice, event.get("frame"), event.get("time")))
    return drafts[-1]


def _assemble(
    variant: Variant, drafts: list[_Draft], result: GameResult | None,
    events: Sequence[dict[str, Any]],
) -> ReadGame:
    closed = [draft for draft in drafts if draft.ending is not None]
    # A void throw read before the clock showed who moves: the same player throws next.
    following: Side | None = None
    for draft in reversed(closed):
        draft.player = draft.player or following
        following = draft.player
    first = next((draft.player for draft in closed if draft.player), Side.WHITE)
    record = GameRecord(Position.start(variant, first), result=result)
    seqs = []
    for draft in closed:
        assert draft.ending is not None
        before, player = record.position, draft.player or record.position.turn
        seq = draft.ending.get("seq", events.index(draft.ending))
        try:
            record.turns.append(_turn(draft, draft.ending, before, player))
        except (KeyError, TypeError, ValueError) as error:
            raise RecordError(f"event {seq} cannot end a turn: {error!r}") from None
        seqs.append(seq)
    unfinished = None
    if drafts and drafts[-1].ending is None:
        last = drafts[-1]
        who = last.player.value if last.player else "the player"
        dice = _dice_text(last.dice)
        unfinished = f"the log ends in {who}'s turn: {dice} rolled, no move decided"
    return ReadGame(record, seqs, unfinished)


def _turn(draft: _Draft, ending: dict[str, Any], before: Position, player: Side) -> Turn:
    kind = ending.get("event")
    moves: tuple[tuple[int, int], ...] = ()
    legal = kind != "move_accepted"
    if kind == "throw_void":
        after = before.with_turn(player)  # the same player throws again
    elif kind == "move_unseen":
        after = before.with_turn(player.other)
    else:
        after = Position.from_json(ending["position"])
        moves = _moves(ending["moves"] if legal else draft.observed_moves or [])
    return Turn(player, draft.dice, moves, after, legal, tuple(draft.flags), draft.frame,
                draft.time)


def _player(event: dict[str, Any]) -> Side | None:
    return Side(event["player"]) if event.get("player") else None


def _dice(value: Any) -> tuple[int, int]:
    first, second = value
    return int(first), int(second)


def _moves(value: Any) -> tuple[tuple[int, int], ...]:
    return tuple((int(start), int(end)) for start, end in value)


def _dice_text(dice: tuple[int, int]) -> str:
    return "-".join(str(die) if die != UNREAD_DIE else "?" for die in dice)


# -- the files --------------------------------------------------------------------------------


@dataclass
class ReviewFiles:
    """What a review folder holds, as the report reads it."""

    folder: Path
    events: list[dict[str, Any]]
    unreadable_lines: int
    chain: Audit
    summary: dict[str, Any] | None
    game: ReadGame | None = None
    notes: list[str] = field(default_factory=list)


def write_report(out: Path) -> Path:
    """Write record.json, record.txt, match.mat (short nardy, when it has a .mat form) and
    report.html into the review folder `out`; returns the report's path. Raises OSError when
    out/events.jsonl cannot be read. A damaged log or a missing summary is reported, not
    raised: the report shows what is there."""
    files = read_review(out)
    if files.game is None:
        for name in ("record.json", "record.txt", "match.mat"):
            (out / name).unlink(missing_ok=True)  # left by an earlier report, now unfounded
    else:
        record = files.game.record
        (out / "record.json").write_text(json.dumps(record.to_json(), indent=1) + "\n",
                                         encoding="utf-8")
        (out / "record.txt").write_text(record.notation() + "\n", encoding="utf-8")
        _write_mat(out / "match.mat", record, files.notes)
    report = out / "report.html"
    report.write_text(render(files), encoding="utf-8")
    return report


def read_review(out: Path) -> ReviewFiles:
    """The review folder's log (every readable line), its audit, the summary and the game
    record, with notes on what is missing or damaged."""
    events, unreadable = _read_events(out / "events.jsonl")
    files = ReviewFiles(out, events, unreadable, audit(out / "events.jsonl"), _read_summary(out))
    if files.summary is None:
        files.notes.append("summary.json is missing or unreadable: the review did not finish")
    if unreadable:
        files.notes.append(f"{unreadable} line(s) of the event log could not be read")
    try:
        files.game = read_game(events)
    except RecordError as error:
        files.notes.append(f"no game record: {error}")
    return files


def _write_mat(path: Path, record: GameRecord, notes: list[str]) -> None:
    if record.variant is not Variant.SHORT:
        return
    try:
        text = to_mat(MatchRecord(("white", "black"), 0, [record]))
    except MatExportError as error:
        path.unlink(missing_ok=True)  # an older export would no longer match the record
        notes.append(f"no match.mat: {error}")
        return
    path.write_text(text, encoding="utf-8")


def _read_events(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Every line that is a JSON object, whatever the chain says; the count of the others."""
    events, unreadable = [], 0
    with open(path, "rb") as log:
        for line in log:
            try:
                event = json.loads(line)
            except ValueError:
                event = None
            if isinstance(event, dict):
                events.append(event)
            else:
                unreadable += 1
    return events, unreadable


def _read_summary(out: Path) -> dict[str, Any] | None:
    try:
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return summary if isinstance(summary, dict) else None
