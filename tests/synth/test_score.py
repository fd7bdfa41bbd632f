"""Scoring a referee's log against a generated game's truth."""

from __future__ import annotations

from typing import Any

from synth.game.score import score

POSITION = {"variant": "long", "turn": "black", "white": {"24": 14, "13": 1}, "black": {"24": 15}}
TRUTH: list[dict[str, Any]] = [
    {"event": "game_start", "frame": 0},
    {"event": "roll", "frame": 50, "player": "white", "dice": [6, 5]},
    {"event": "move_complete", "frame": 120, "player": "white", "legal": True,
     "position": POSITION},
    {"event": "roll", "frame": 200, "player": "black", "dice": [3, 1]},
    {"event": "move_complete", "frame": 260, "player": "black", "legal": True,
     "position": {**POSITION, "turn": "white"}},
]


def referee_log() -> list[dict[str, Any]]:
    return [
        {"event": "roll", "frame": 52, "player": "white", "dice": [5, 6]},
        {"event": "move", "frame": 129, "player": "white", "position": POSITION},
        {"event": "roll", "frame": 200, "player": "black", "dice": [3, 1]},
        {"event": "move", "frame": 262, "player": "black",
         "position": {**POSITION, "turn": "white"}},
    ]


def test_a_faithful_log_gets_every_turn_right() -> None:
    result = score(TRUTH, referee_log())
    assert (result.turns, result.turns_right, result.missed) == (2, 2, [])


def test_a_misread_roll_costs_its_turn() -> None:
    log = referee_log()
    log[2]["dice"] = [3, 2]
    result = score(TRUTH, log)
    assert result.turns_right == 1 and result.missed[0]["frame"] == 200


def test_an_event_far_from_its_frame_is_not_matched() -> None:
    log = referee_log()
    log[1]["frame"] = 160
    assert score(TRUTH, log).turns_right == 1


def test_a_flag_the_truth_does_not_have_is_a_false_flag() -> None:
    log = [*referee_log(), {"event": "illegal_move", "frame": 240, "player": "black"}]
    result = score(TRUTH, log)
    assert result.turns_right == 1 and len(result.false_flags) == 1


def test_a_decision_dated_by_the_throw_may_be_seen_as_the_dice_first_move() -> None:
    truth = [*TRUTH[:3], {"event": "move_accepted", "frame": 190, "player": "black"},
             *TRUTH[3:]]
    for offset, right in ((-17, 2), (-25, 1)):
        log = [*referee_log(), {"event": "move_accepted", "frame": 190 + offset,
                                "player": "black"}]
        assert score(truth, log).turns_right == right


def test_the_timing_of_three_second_decisions_is_kept_to_the_frame() -> None:
    truth = [*TRUTH[:3],
             {"event": "count_start", "frame": 170, "player": "black", "rule": "5.4.33"},
             {"event": "throw_void", "frame": 260 - 60, "player": "black", "rule": "5.4.33"},
             *TRUTH[3:]]
    log = [*referee_log(),
           {"event": "count_start", "frame": 173, "player": "black", "rule": "5.4.33"},
           {"event": "throw_void", "frame": 199, "player": "black", "rule": "5.4.33"}]
    result = score(truth, log)
    assert result.count_offsets == [("count_start", 3), ("throw_void", -1)]
    assert result.turns_right == 2
