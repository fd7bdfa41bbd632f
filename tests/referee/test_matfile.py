"""Short nardy as Jellyfish .mat: the text written, what the format cannot hold, and GNU
Backgammon's own import of random games, move by move."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.matfile import MatExportError, to_mat, write_mat
from referee.position import BAR, OFF, GameResult, Position, ResultKind, Side, Variant
from referee.record import ILLEGAL_ACCEPTED, GameRecord, MatchRecord, Turn
from tests.builders import position
from tests.referee.test_record import opening, played, recorded_game

# Debian installs gnubg in /usr/games, which is not always on PATH.
GNUBG = shutil.which("gnubg", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/games"]))

# Runs inside gnubg: imports each .mat file and prints what gnubg made of it as one JSON line.
GNUBG_SCRIPT = """
import json, os
import gnubg

print("GNUBG-PYTHON")
for path in os.environ["NARDY_MAT_FILES"].split(os.pathsep):
    gnubg.command("import mat " + path)
    match = gnubg.match()
    games = []
    for game in match["games"]:
        actions = []
        for action in game["game"]:
            board = action.get("board")
            actions.append({
                "player": action["player"], "action": action["action"],
                "dice": action.get("dice"), "move": action.get("move"),
                "board": gnubg.positionfromid(board) if board else None,
            })
        games.append({"info": game["info"], "actions": actions})
    print("MATCH " + json.dumps({
        "names": [match["match-info"][p]["name"] for p in "XO"],
        "length": match["match-info"]["match-length"],
        "games": games, "board": gnubg.board(),
    }))
"""


def finished_opening() -> GameRecord:
    game = opening()
    game.result = GameResult(Side.BLACK, ResultKind.SINGLE, 1)
    return game


def test_the_text_of_a_match() -> None:
    second = GameRecord(Position.start(Variant.SHORT, Side.BLACK), white_player=1)
    played(second, (3, 1), (8, 5), (6, 5))
    match = MatchRecord(("Anna", "Boris"), 5, [finished_opening(), second])
    assert to_mat(match) == (
        " 5 point match\n"
        "\n"
        " Game 1\n"
        " Anna : 0                           Boris : 0\n"
        "  1) 64: 24/18 13/9                 62: 13/7* 13/11\n"
        "  2) 55: 25/20 13/8 13/8 8/3\n"  # the void throw before it is left out
        "                                    Wins 1 point\n"
        "\n"
        " Game 2\n"
        " Anna : 0                           Boris : 1\n"
        "  1) 31: 8/5 6/5\n"  # Anna holds black and moves first
        "\n"
    )


def test_a_first_move_on_the_right_and_the_deciding_game() -> None:
    game = GameRecord(Position.start(Variant.SHORT, Side.BLACK))
    played(game, (6, 5), (24, 18), (18, 13))
    played(game, (2, 1), (13, 11), (6, 5))
    game.result = GameResult(Side.WHITE, ResultKind.MARS, 2)
    text = to_mat(MatchRecord(("Anna", "Boris"), 3, [finished_opening(), game]))
    assert text.endswith(
        "  1)                                65: 24/18 18/13\n"
        "  2) 21: 13/11 6/5\n"
        "     Wins 2 points\n\n"
    )
    match = MatchRecord(("Anna", "Boris"), 2, [game, finished_opening()])
    assert "     Wins 2 points and the match\n" in to_mat(match)
    assert to_mat(match).endswith("Wins 1 point\n\n")  # played on after the match was won


def test_bar_and_off_are_numbers_and_a_dance_is_the_dice_alone() -> None:
    start = Position.start(Variant.SHORT)
    game = GameRecord(start, [Turn(Side.WHITE, (6, 6), (), start.with_turn(Side.BLACK))])
    assert "  1) 66:\n" in to_mat(MatchRecord(("A", "B"), 1, [game]))
    assert (BAR, OFF) == (25, 0)  # what .mat files write for the bar and borne off


def test_names_gnubg_can_read() -> None:
    match = MatchRecord(("Anna Maria: the  first " + "x" * 40, " :"), 1, [finished_opening()])
    score_line = to_mat(match).splitlines()[3]
    assert score_line == " Anna_Maria_the_first_xxxxxxxxx : 0 Player_2 : 0"


def test_an_empty_match() -> None:
    assert to_mat(MatchRecord(("A", "B"), 7)) == " 7 point match\n\n"


@pytest.mark.parametrize(
    ("game", "message"),
    [
        (GameRecord(Position.start(Variant.LONG)), "long nardy"),
        (GameRecord(position("short", white={24: 2, 13: 5, 8: 3, 6: 4, 5: 1},
                             black={24: 2, 13: 5, 8: 3, 6: 5})), "set position"),
    ],
)
def test_what_mat_cannot_hold(game: GameRecord, message: str) -> None:
    with pytest.raises(MatExportError, match=message):
        to_mat(MatchRecord(("A", "B"), 3, [finished_opening(), game]))


def test_an_accepted_illegal_move_or_a_double_turn_is_refused() -> None:
    game = opening()
    game.turns[1] = replace(game.turns[1], legal=False, flags=(ILLEGAL_ACCEPTED,))
    with pytest.raises(MatExportError, match="turn 2: an illegal move"):
        to_mat(MatchRecord(("A", "B"), 3, [game]))
    game = opening()
    del game.turns[1]
    with pytest.raises(MatExportError, match="turn 3: white moves twice"):
        to_mat(MatchRecord(("A", "B"), 3, [game]))


def test_write_mat(tmp_path: Path) -> None:
    match = MatchRecord(("Anna", "Борис"), 3, [finished_opening()])
    write_mat(match, tmp_path / "match.mat")
    assert (tmp_path / "match.mat").read_text(encoding="utf-8") == to_mat(match)


# -- GNU Backgammon's import -----------------------------------------------------------------


def with_void_throw(game: GameRecord, index: int) -> GameRecord:
    """The game with a void throw (a die stalled in the box) before turn `index`."""
    before, turn = list(game.turns_with_positions())[index]
    void = Turn(turn.player, (4, 1), (), before, flags=("void throw 5.4.32",))
    game.turns.insert(index, void)
    return game


def features(match: MatchRecord) -> set[str]:
    """What the games show: the cases the import must get right."""
    found = set()
    for game in match.games:
        found.add(f"first {game.first_player.value}, white player {game.white_player}")
        for before, turn in game.turns_with_positions():
            if turn.void:
                found.add("void throw")
            elif not turn.moves:
                found.add("dance")
            if any(start == BAR for start, _ in turn.moves):
                found.add("bar entry")
            if any(end == OFF for _, end in turn.moves):
                found.add("bearing off")
            if turn.position_after.counts(turn.player.other)[BAR] > before.counts(
                turn.player.other
            )[BAR]:
                found.add("hit")
        if game.result is not None and game.result.kind is not ResultKind.SINGLE:
            found.add("mars or koks")
    return found


def run_gnubg(tmp_path: Path, files: list[Path]) -> tuple[list[dict[str, Any]], str, float]:
    assert GNUBG is not None
    script = tmp_path / "import_mat.py"
    script.write_text(GNUBG_SCRIPT)
    env = {**os.environ, "HOME": str(tmp_path), "NARDY_MAT_FILES": os.pathsep.join(map(str, files))}
    started = time.perf_counter()
    done = subprocess.run(
        [GNUBG, "-t", "-q", "-r", "-p", str(script)],
        env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - started
    output = done.stdout + done.stderr
    if "GNUBG-PYTHON" not in output:
        pytest.skip("this gnubg runs no Python scripts")
    matches = [json.loads(line[6:]) for line in output.splitlines() if line.startswith("MATCH ")]
    assert len(matches) == len(files), output[-3000:]
    return matches, output, seconds


def gnubg_board(position: Position, mover: Side) -> list[list[int]]:
    """`position` as gnubg's board: [opponent, mover], points 1-24 then the bar."""
    return [list(position.counts(mover.other)[1:]), list(position.counts(mover)[1:])]


@pytest.mark.skipif(GNUBG is None, reason="gnubg is not installed (apt-get install gnubg)")
def test_gnubg_replays_every_move(tmp_path: Path) -> None:
    games = [
        with_void_throw(recorded_game(1, Side.WHITE, white_player=0), 7),
        recorded_game(2, Side.BLACK, white_player=1),
        recorded_game(5, Side.WHITE, white_player=1),
    ]
    match = MatchRecord(("Anna Ivanova", "Boris"), 15, games)
    assert features(match) >= {
        "void throw", "dance", "bar entry", "bearing off", "hit", "mars or koks",
        "first white, white player 0", "first black, white player 1",
        "first white, white player 1",
    }
    single = MatchRecord(("Anna", "Boris"), 1, [recorded_game(4, Side.BLACK)])
    files = [tmp_path / "match.mat", tmp_path / "single.mat"]
    for record, path in zip([match, single], files, strict=True):
        write_mat(record, path)

    imported, output, seconds = run_gnubg(tmp_path, files)

    assert "WARNING" not in output and "Unrecognised" not in output, output[-3000:]
    for record, found in zip([match, single], imported, strict=True):
        assert found["names"] == [name.replace(" ", "_") for name in record.players]
        assert found["length"] == record.match_length
        assert len(found["games"]) == len(record.games)
        scores_before = [(0, 0), *record.running_score()[:-1]]
        for game, score, gnubg_game in zip(record.games, scores_before, found["games"],
                                           strict=True):
            counted = [(b, t) for b, t in game.turns_with_positions() if not t.void]
            actions = [a for a in gnubg_game["actions"] if a["action"] in ("move", "set")]
            # Every counted turn arrived, none dropped or added, each from the same board.
            assert len(actions) == len(counted)
            pairs = zip(counted, actions, strict=True)
            for number, ((before, turn), action) in enumerate(pairs, 1):
                where = f"{game.first_player} game, turn {number}: {action}"
                assert action["player"] == "XO"[game.player_index(turn.player)], where
                assert sorted(action["dice"]) == sorted(turn.dice), where
                assert sorted(map(tuple, action["move"] or ())) == sorted(turn.moves), where
                if action["board"] is not None:
                    assert action["board"] == gnubg_board(before, turn.player), where
            info = gnubg_game["info"]
            assert (info["score-X"], info["score-O"]) == score
            assert game.result is not None
            assert info["winner"] == "XO"[game.player_index(game.result.winner)]
            assert info["points-won"] == game.result.points
            assert not info["resigned"]
        final = record.games[-1].position
        assert found["board"] == gnubg_board(final, final.turn)
    assert seconds < 10, f"gnubg took {seconds:.1f} s"
