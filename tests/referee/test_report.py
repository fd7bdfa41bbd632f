"""The review's human outputs: the game record built from the referee's events, and the
report folder (record files, .mat export, the HTML page) from an event log, whole, tampered
with or cut short."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.evidence import EventLog
from referee.position import Position, ResultKind, Side, Variant
from referee.record import ILLEGAL_ACCEPTED, ILLEGAL_CORRECTED, UNREAD_DIE, RecordError
from referee.report import MOVE_UNSEEN, game_record, read_game, write_report
from referee.report_words import describe
from referee.rules import Move, rules_for
from tests.builders import position

SHORT = rules_for(Variant.SHORT)
START = Position.start(Variant.SHORT, Side.WHITE)
P1 = SHORT.play(START, (6, 4), [Move(24, 18), Move(13, 9)])
P2 = SHORT.play(P1, (6, 2), [Move(13, 7), Move(13, 11)])  # black's 7 is white's 18: a hit
# White's 3-1 from the bar, seen as bar/21 9/4: nine pips for a roll of four.
ILLEGAL = position("short", "black", white={24: 1, 21: 1, 13: 4, 8: 3, 6: 5, 4: 1},
                   black={24: 2, 13: 3, 11: 1, 8: 3, 7: 1, 6: 5})
NEAREST = SHORT.play(P2, (3, 1), [Move(25, 22), Move(22, 21)])
MESSAGE = "<script>alert('x')</script> moved 5 points"


def ev(event: str, frame: int, **fields: Any) -> dict[str, Any]:
    return {"event": event, "frame": frame, "time": round(frame / 30, 3), **fields}


def evidence(number: int, kind: str) -> dict[str, str]:
    return {"still": f"flags/{number:03d}-{kind}.jpg", "clip": f"flags/{number:03d}-{kind}.mp4"}


def match_events() -> list[dict[str, Any]]:
    """A short nardy opening as the tracker logs it: a void throw, a legal move, an illegal
    move corrected, a premature throw with the move it interrupted logged late, an illegal
    move accepted, then the end."""
    return [
        ev("review_start", 0, video="game.mp4", variant="short", fps=30.0, frames=900),
        ev("throw_start", 10, player="white"),
        ev("count_start", 30, player="white", rule="5.4.33", reason="cocked"),
        ev("throw_void", 120, player="white", rule="5.4.33", evidence=evidence(1, "throw_void")),
        ev("throw_start", 150, player="white"),
        ev("roll", 170, player="white", dice=[6, 4], confidence=0.99),
        ev("clock_press", 240, player="white"),
        ev("move", 230, player="white", dice=[6, 4], moves=[[24, 18], [13, 9]],
           position=P1.to_json()),
        ev("throw_start", 260, player="black"),
        ev("roll", 280, player="black", dice=[6, 3], confidence=0.5),
        ev("roll_reread", 330, player="black", dice=[6, 2], read=[6, 3]),
        ev("illegal_move", 330, player="black", dice=[6, 2], position=P1.to_json(), legal=False,
           moves=None, violations=[{"rule": "5.4.24", "message": MESSAGE}],
           nearest_legal=[P2.to_json()], observed_moves=None,
           evidence=evidence(2, "illegal_move")),
        ev("correction", 350, player="black", claimant="white", rule="5.4.47",
           position=P1.with_turn(Side.BLACK).to_json()),
        ev("premature_throw", 420, player="white", opponent="black", rule="5.4.18",
           evidence=evidence(3, "premature_throw")),
        ev("move", 400, player="black", dice=[6, 2], moves=[[13, 7], [13, 11]],
           position=P2.to_json()),
        ev("throw_start", 420, player="white"),
        ev("clock_press", 440, player="black"),
        ev("roll", 460, player="white", dice=[3, 1], premature=True),
        ev("illegal_move", 500, player="white", dice=[3, 1], position=ILLEGAL.to_json(),
           legal=False, moves=None, violations=[{"rule": "5.4.24", "message": "too far"}],
           nearest_legal=[NEAREST.to_json()], observed_moves=[[25, 21], [9, 4]],
           evidence=evidence(4, "illegal_move")),
        ev("throw_start", 560, player="black"),
        ev("move_accepted", 560, player="black", opponent="white", rule="5.5.1",
           position=ILLEGAL.to_json()),
        ev("game_end", 600, result={"winner": "white", "kind": "mars", "points": 2},
           position=ILLEGAL.to_json()),
    ]


def review_folder(tmp_path: Path, events: list[dict[str, Any]], summary: bool = True) -> Path:
    """A review folder as review.py leaves it: the chained log, the flag files, a summary."""
    out = tmp_path / "review"
    (out / "flags").mkdir(parents=True)
    with EventLog(out / "events.jsonl") as log:
        for event in events:
            log.append(event)
            for path in event.get("evidence", {}).values():
                (out / path).write_bytes(b"x")
    if summary:
        (out / "summary.json").write_text(json.dumps({
            "frames": 900, "video_seconds": 30.0, "seconds": 6.0, "speed": 5.0,
            "events": len(events), "flags": 4, "complete": True, "problem": None}))
    return out


def test_each_counted_roll_is_a_turn_with_its_move_and_flags() -> None:
    record = game_record(match_events())
    assert record.start == START and record.variant is Variant.SHORT
    void, white, black, accepted = record.turns
    assert void.void and void.player is Side.WHITE and void.dice == (UNREAD_DIE, UNREAD_DIE)
    assert void.flags == ("void throw 5.4.33",) and void.frame == 30  # the dice at rest
    assert void.position_after == START
    assert white.moves == ((24, 18), (13, 9)) and white.position_after == P1
    assert (white.frame, white.time) == (170, round(170 / 30, 3)) and white.legal
    # The re-read dice, the corrected move, its record after the opponent's early throw.
    assert black.dice == (6, 2) and black.flags == (ILLEGAL_CORRECTED,) and black.legal
    assert black.position_after == P2
    assert not accepted.legal and accepted.position_after == ILLEGAL
    assert accepted.moves == ((25, 21), (9, 4))
    assert accepted.flags == ("premature throw 5.4.18", ILLEGAL_ACCEPTED)
    assert record.result is not None and record.result.kind is ResultKind.MARS
    assert record.notation().splitlines() == [
        "1. white ?-?: [void throw 5.4.33]",
        "2. white 6-4: 24/18 13/9",
        "3. black 6-2: 13/7* 13/11 [illegal: corrected]",
        "4. white 3-1: bar/21 9/4 [premature throw 5.4.18] [illegal: accepted]",
        "white wins a mars (2 points)",
    ]


def test_a_move_logged_after_the_opponents_roll_ends_its_own_turn() -> None:
    # The board was not seen settled when the opponent threw: the move is judged on the next
    # clear view, after the opponent's roll was read.
    events = [
        *match_events()[:7],
        ev("throw_start", 260, player="black"),
        ev("roll", 280, player="black", dice=[6, 2], confidence=0.99),
        match_events()[7],
        ev("move", 400, player="black", dice=[6, 2], moves=[[13, 7], [13, 11]],
           position=P2.to_json()),
    ]
    record = game_record(events)
    assert [turn.player for turn in record.turns] == [Side.WHITE, Side.WHITE, Side.BLACK]
    assert record.position == P2 and record.turns[2].frame == 280


def test_a_roll_changed_before_the_move_is_the_turns_roll() -> None:
    # A cocked die read as a 4 fell and shows a 6: the move is logged without its dice.
    events = [*match_events()[:5],
              ev("roll", 170, player="white", dice=[4, 4], confidence=0.9),
              ev("roll_changed", 200, player="white", dice=[6, 4], read=[4, 4],
                 confidence=0.9),
              ev("clock_press", 240, player="white"),
              ev("move", 230, player="white", moves=[[24, 18], [13, 9]], position=P1.to_json())]
    white = game_record(events).turns[1]
    assert white.dice == (6, 4) and white.frame == 170 and white.legal
    assert describe(events[6]) == (
        "white's roll now 6-4: a die moved after it was read (read: 4-4)")


def test_a_count_and_a_void_say_how_surely_the_die_was_read() -> None:
    # The judges decide on a void: one on a doubtful cocked call says so.
    assert describe(ev("count_start", 100, rule="5.4.33", reason="cocked", confidence=0.65)) == (
        "3-second count: a cocked die (5.4.33), the die read 65% sure")
    assert describe(ev("throw_void", 190, player="white", rule="5.4.33", confidence=0.65)) == (
        "white's throw is void (5.4.33), the die read 65% sure; white throws again")
    # A die counted unseen in the box: no reading to be sure of.
    assert describe(ev("throw_void", 190, player="white", rule="5.4.32")) == (
        "white's throw is void (5.4.32); white throws again")


def test_a_roll_read_with_doubt_says_so() -> None:
    # A cocked die read flat hides in a doubtful roll: the panel is told how sure it was.
    assert describe(ev("roll", 100, player="white", dice=[5, 5], confidence=0.48)) == (
        "white rolls 5-5, read only 48% sure")
    assert describe(ev("roll", 100, player="white", dice=[5, 5], confidence=0.93)) == (
        "white rolls 5-5")


def test_a_roll_with_a_die_at_the_box_exit_asks_the_panel_to_look() -> None:
    # There a die leaning on the lip looks flat from above (vision/dice/stream.py).
    assert describe(ev("roll", 100, player="white", dice=[6, 3], confidence=0.95,
                       at_exit=True, die_box=[300, 172, 40, 40])) == (
        "white rolls 6-3, a die at the box's exit: look whether it leans on the lip")


def test_a_move_not_seen_passes_the_turn_on_an_unchanged_board() -> None:
    events = [*match_events()[:8],
              ev("throw_start", 260, player="black"),
              ev("roll", 280, player="black", dice=[5, 5], confidence=0.99),
              ev("throw_start", 400, player="white"),
              ev("move_unseen", 420, player="black", dice=[5, 5], detail="an arm over it")]
    read = read_game(events)
    last = read.record.turns[-1]
    assert last.flags == (MOVE_UNSEEN,) and last.moves == ()
    assert last.position_after == P1.with_turn(Side.WHITE)
    assert read.unfinished is None


def test_a_turn_the_log_leaves_open_is_left_out_and_named() -> None:
    read = read_game(match_events()[:11])
    assert len(read.record.turns) == 2
    assert read.unfinished == "the log ends in black's turn: 6-2 rolled, no move decided"


def test_a_malformed_event_is_a_record_error() -> None:
    events = match_events()
    events[7] = {**events[7], "moves": "24/18"}
    with pytest.raises(RecordError, match="event 7"):
        game_record(events)


def test_the_report_shows_flags_clauses_evidence_and_an_intact_chain(tmp_path: Path) -> None:
    out = review_folder(tmp_path, match_events())
    page = write_report(out).read_text(encoding="utf-8")
    assert "Evidence chain intact: 22 records" in page
    for clause in ("5.4.33", "5.4.24", "5.4.18", "5.4.47", "5.5.1"):
        assert clause in page
    for number, kind in ((1, "throw_void"), (2, "illegal_move"), (3, "premature_throw")):
        assert f"<img src='flags/{number:03d}-{kind}.jpg'" in page
        assert f"width='480' src='flags/{number:03d}-{kind}.mp4'></video>" in page
    assert "Decision:</b> corrected" in page and "Decision:</b> accepted" in page
    assert page.count("<svg") == 2 + 3 + 2  # each move, and each flag's board and nearest
    assert "00:05.7" in page and "white wins a mars (2 points)" in page
    record = json.loads((out / "record.json").read_text())
    assert len(record["turns"]) == 4
    assert (out / "record.txt").read_text().startswith("1. white ?-?: [void throw 5.4.33]")
    # An accepted illegal move has no .mat form: the report says so.
    assert not (out / "match.mat").exists() and "no match.mat" in page


def test_every_string_from_the_log_is_escaped(tmp_path: Path) -> None:
    events = match_events()
    events[0] = {**events[0], "video": "<script>bad()</script>.mp4"}
    events[3] = {**events[3], "evidence": {"still": "javascript:alert(1)", "clip": "../x.mp4"}}
    page = write_report(review_folder(tmp_path, events)).read_text(encoding="utf-8")
    assert "<script" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "&lt;script&gt;bad()&lt;/script&gt;.mp4" in page
    assert "src='javascript" not in page and "src='../x.mp4'" not in page


def test_a_short_game_of_legal_moves_exports_a_match_file(tmp_path: Path) -> None:
    events = match_events()[:8]
    out = review_folder(tmp_path, events)
    page = write_report(out).read_text(encoding="utf-8")
    assert "1) 64: 24/18 13/9" in (out / "match.mat").read_text()  # the void throw left out
    assert "<a href='match.mat'>" in page and "no match.mat" not in page


def test_a_broken_chain_is_reported_with_its_seq(tmp_path: Path) -> None:
    out = review_folder(tmp_path, match_events())
    log = out / "events.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[5] = lines[5].replace('"dice":[6,4]', '"dice":[6,6]')
    log.write_text("".join(lines), encoding="utf-8")
    page = write_report(out).read_text(encoding="utf-8")
    assert "Evidence chain BROKEN at seq 5" in page
    assert page.count("<tr class='unverified'>") + page.count("<tr class='flag unverified'>") == 17


def test_a_log_cut_short_still_gives_a_report_of_what_is_there(tmp_path: Path) -> None:
    out = review_folder(tmp_path, match_events()[:12], summary=False)
    log = out / "events.jsonl"
    log.write_bytes(log.read_bytes()[:-40])  # the last record torn in the middle
    page = write_report(out).read_text(encoding="utf-8")
    assert "Evidence chain BROKEN at seq 11" in page and "incomplete" in page
    assert "summary.json is missing" in page and "1 line(s) of the event log" in page
    assert "the log ends in black&#x27;s turn: 6-2 rolled" in page
    assert "flags/002-illegal_move.jpg" not in page  # its event was the torn one
    assert json.loads((out / "record.json").read_text())["turns"][1]["moves"] == [[24, 18],
                                                                                 [13, 9]]


def test_missing_evidence_files_and_an_unknown_event_are_shown_as_text(tmp_path: Path) -> None:
    events = [*match_events()[:8], ev("new_kind", 300, note="<i>")]
    out = review_folder(tmp_path, events)
    (out / "flags/001-throw_void.mp4").unlink()
    page = write_report(out).read_text(encoding="utf-8")
    assert "<code>flags/001-throw_void.mp4</code> is missing" in page
    assert "&lt;i&gt;" in page and "<i>" not in page.split("<body>")[1].replace("<i>seq</i>", "")
