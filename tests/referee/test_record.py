"""The game record: its notation, its JSON round trip and the match score."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.position import GameResult, Position, ResultKind, Scoring, Side, Variant
from referee.record import (
    ILLEGAL_ACCEPTED,
    ILLEGAL_CORRECTED,
    GameRecord,
    MatchRecord,
    RecordError,
    Turn,
)
from referee.rules import Move, rules_for
from referee.selfplay import random_game
from tests.builders import position

SHORT = rules_for(Variant.SHORT)
LONG = rules_for(Variant.LONG)


def played(
    game: GameRecord, dice: tuple[int, int], *moves: tuple[int, int], **extra: object
) -> Turn:
    """Append the legal play of `moves` to `game` and return its turn."""
    before = game.position
    rules = SHORT if game.variant is Variant.SHORT else LONG
    after = rules.play(before, dice, [Move(*m) for m in moves])
    turn = Turn(before.turn, dice, moves, after, **extra)  # type: ignore[arg-type]
    game.turns.append(turn)
    return turn


def void_throw(game: GameRecord, dice: tuple[int, int], clause: str) -> None:
    before = game.position
    game.turns.append(Turn(before.turn, dice, (), before, flags=(f"void throw {clause}",)))


def opening() -> GameRecord:
    game = GameRecord(Position.start(Variant.SHORT))
    played(game, (6, 4), (24, 18), (13, 9), frame=120, time=4.8)
    played(game, (6, 2), (13, 7), (13, 11))  # black's 7 is white's 18: a hit
    void_throw(game, (5, 0), "5.4.33")
    played(game, (5, 5), (25, 20), (13, 8), (13, 8), (8, 3))
    return game


def recorded_game(seed: int, first: Side = Side.WHITE, white_player: int = 0) -> GameRecord:
    game = GameRecord(Position.start(Variant.SHORT, first), white_player=white_player)
    for ply in random_game(Variant.SHORT, random.Random(seed), first=first):
        game.turns.append(Turn(ply.before.turn, ply.dice, ply.outcome.moves, ply.outcome.position))
    game.result = game.position.result()
    return game


def test_notation_of_an_opening() -> None:
    assert opening().notation().splitlines() == [
        "1. white 6-4: 24/18 13/9",
        "2. black 6-2: 13/7* 13/11",
        "3. white 5-?: [void throw 5.4.33]",
        "4. white 5-5: bar/20 13/8 13/8 8/3",
    ]


def test_notation_of_bearing_off_hits_flags_and_the_result() -> None:
    start = position("short", "white", white={2: 1, 1: 1}, black={6: 2, 3: 2}, bar=(0, 1),
                     fill_off=True)
    game = GameRecord(start)
    played(game, (2, 1), (2, 1), (1, 0), flags=(ILLEGAL_CORRECTED,))
    played(game, (1, 1), (25, 24), (24, 23), (23, 22), (6, 5))  # black's 24 is white's 1
    played(game, (6, 5), (25, 19), (19, 14))  # white's 19 is black's 6
    last = game.position
    game.turns.append(Turn(Side.BLACK, (4, 4), (), last.with_turn(Side.WHITE), legal=False,
                           flags=(ILLEGAL_ACCEPTED,)))
    game.turns.append(Turn(Side.WHITE, (3, 3), ((14, 11),), last, legal=False))
    game.result = GameResult(Side.WHITE, ResultKind.KOKS, 3)
    lines = game.notation().splitlines()
    assert lines[0] == f"start: {json.dumps(start.to_json())}"
    assert lines[1:] == [
        "1. white 2-1: 2/1 1/off [illegal: corrected]",
        "2. black 1-1: bar/24* 24/23 23/22 6/5",
        "3. white 6-5: bar/19* 19/14",
        "4. black 4-4: ? [illegal: accepted]",
        "5. white 3-3: 14/11 [illegal]",
        "white wins a koks (3 points)",
    ]


def test_a_dance_is_no_move() -> None:
    start = position("short", "black", white={k: 2 for k in range(1, 7)}, black={13: 1},
                     bar=(0, 1), fill_off=True)
    game = GameRecord(start)
    (outcome,) = SHORT.outcomes(start, (6, 6))
    assert outcome.moves == ()
    game.turns.append(Turn(Side.BLACK, (6, 6), (), outcome.position))
    assert game.notation().splitlines()[1] == "1. black 6-6: no move"


def test_long_nardy_marks_no_hits() -> None:
    game = GameRecord(Position.start(Variant.LONG))
    played(game, (6, 5), (24, 18), (18, 13))
    played(game, (3, 1), (24, 21), (21, 20))
    assert game.notation() == "1. white 6-5: 24/18 18/13\n2. black 3-1: 24/21 21/20"


def test_the_game_record_follows_the_position() -> None:
    game = opening()
    assert game.variant is Variant.SHORT and game.first_player is Side.WHITE
    assert game.position == game.turns[-1].position_after
    befores = [before for before, _ in game.turns_with_positions()]
    assert befores[0] == game.start and befores[1:] == [t.position_after for t in game.turns[:-1]]
    assert game.turns[2].void and not game.turns[0].void
    assert game.turns[0].frame == 120 and game.turns[0].time == 4.8


@pytest.mark.parametrize(
    ("dice", "moves", "flags", "message"),
    [
        ((7, 1), (), (), "dice must be 1-6"),
        ((0, 1), (), (), "0 only in a void throw"),
        ((1, 2, 3), (), (), "two dice"),
        ((6, 5), ((26, 20),), (), "leaves the points"),
        ((6, 5), ((6, -1),), (), "leaves the points"),
    ],
)
def test_a_turn_checks_what_it_holds(
    dice: tuple[int, ...], moves: tuple[tuple[int, int], ...], flags: tuple[str, ...],
    message: str,
) -> None:
    with pytest.raises(RecordError, match=message):
        Turn(Side.WHITE, dice, moves, Position.start(Variant.SHORT), flags=flags)  # type: ignore[arg-type]


def test_a_turn_stores_plain_tuples() -> None:
    after = Position.start(Variant.SHORT)
    turn = Turn(Side.WHITE, [6, 4], [Move(24, 18), [13, 9]], after, flags=["x"])  # type: ignore[arg-type]
    assert turn.dice == (6, 4) and turn.moves == ((24, 18), (13, 9)) and turn.flags == ("x",)
    assert type(turn.moves[0]) is tuple


def test_running_score_with_colours_swapped_and_an_unfinished_game() -> None:
    white_wins_mars = GameResult(Side.WHITE, ResultKind.MARS, Scoring().points(ResultKind.MARS))
    black_wins_koks = GameResult(Side.BLACK, ResultKind.KOKS, 5)  # a competition's own scoring
    start = Position.start(Variant.SHORT)
    match = MatchRecord(("Anna", "Boris"), 7, [
        GameRecord(start, result=white_wins_mars),  # Anna white
        GameRecord(start, result=white_wins_mars, white_player=1),  # Boris white
        GameRecord(start, result=black_wins_koks, white_player=1),  # Anna black
        GameRecord(start),
    ])
    assert match.running_score() == [(2, 0), (2, 2), (7, 2), (7, 2)]
    assert match.score == (7, 2) and match.winner() == 0
    assert MatchRecord(("a", "b"), 9, match.games).winner() is None
    assert MatchRecord(("a", "b"), 0, match.games).winner() is None
    assert MatchRecord(("a", "b")).score == (0, 0)


def test_match_notation() -> None:
    first = opening()
    first.result = GameResult(Side.BLACK, ResultKind.SINGLE, 1)
    second = GameRecord(Position.start(Variant.SHORT, Side.BLACK), white_player=1)
    played(second, (3, 1), (8, 5), (6, 5))
    text = MatchRecord(("Anna", "Boris"), 5, [first, second]).notation()
    assert text.startswith("Anna - Boris, match to 5 points\n\n"
                           "Game 1: white Anna, black Boris; short nardy\n"
                           "1. white 6-4: 24/18 13/9\n")
    assert "4. white 5-5: bar/20 13/8 13/8 8/3\nblack wins a single game (1 point)\n" \
           "Score: Anna 0, Boris 1\n\n" in text
    assert text.endswith("Game 2: white Boris, black Anna; short nardy\n"
                         "1. black 3-1: 8/5 6/5\n")
    assert MatchRecord(("A", "B")).notation() == "A - B, no fixed length\n"


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), white_player=st.sampled_from([0, 1]),
       first=st.sampled_from(list(Side)))
def test_json_round_trip(seed: int, white_player: int, first: Side) -> None:
    game = recorded_game(seed, first, white_player)
    rng = random.Random(seed)
    flagged = rng.randrange(len(game.turns))
    game.turns[flagged] = replace(game.turns[flagged], legal=False, frame=4242, time=141.4,
                                  flags=(ILLEGAL_ACCEPTED, "note: ✓"))
    match = MatchRecord(("Anna Ivanova", "Борис"), 11, [game, opening()])
    text = json.dumps(match.to_json())
    again = MatchRecord.from_json(text)
    assert again == match
    assert json.loads(text)["score"] == list(match.score)
    assert GameRecord.from_json(game.to_json()) == game
    assert again.notation() == match.notation()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.update(players=["only one"]), "two players"),
        (lambda m: m.update(players="Anna"), "must be a list"),
        (lambda m: m.update(match_length="7"), "whole number"),
        (lambda m: m["games"][0].update(white_player=2), "0 or 1"),
        (lambda m: m["games"][0].update(result={"winner": "red", "kind": "mars", "points": 2}),
         "'white' or 'black'"),
        (lambda m: m["games"][0].update(result={"winner": "white", "kind": "gammon",
                                                "points": 2}), "single, mars, koks"),
        (lambda m: m["games"][0]["turns"][0].update(dice=[6]), "two dice"),
        (lambda m: m["games"][0]["turns"][0].update(dice=[6, True]), "whole number"),
        (lambda m: m["games"][0]["turns"][0].update(moves=[[24, 18, 3]]), "pairs"),
        (lambda m: m["games"][0]["turns"][0].update(legal="yes"), "true or false"),
        (lambda m: m["games"][0]["turns"][0].update(flags=[1]), "strings"),
        (lambda m: m["games"][0]["turns"][0].update(time="noon"), "seconds"),
        (lambda m: m["games"][0]["turns"][0].update(player=None), "'white' or 'black'"),
        (lambda m: m["games"][0]["turns"].append([]), "JSON object"),
    ],
)
def test_malformed_json_is_a_record_error(
    change: Callable[[dict[str, Any]], object], message: str
) -> None:
    data = MatchRecord(("Anna", "Boris"), 5, [opening()]).to_json()
    change(data)
    with pytest.raises(RecordError, match=message):
        MatchRecord.from_json(data)


def test_not_json_is_a_record_error() -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        MatchRecord.from_json("{players")
    with pytest.raises(RecordError, match="JSON object"):
        GameRecord.from_json("[]")
