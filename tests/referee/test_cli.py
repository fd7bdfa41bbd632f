"""The command-line contract of FORMATS.md: output shapes, batch mode, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
START_LONG = json.dumps({"variant": "long", "turn": "white", "white": {"24": 15},
                         "black": {"24": 15}})


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_legal_from_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "legal", "--position", str(EXAMPLES / "start-short.json"),
                       "--dice", "3-1")
    assert code == 0
    outcomes = json.loads(out)["outcomes"]
    assert len(outcomes) == 16
    for outcome in outcomes:
        assert outcome["position"]["turn"] == "black"
        assert all(len(move) == 2 for move in outcome["moves"])


def test_legal_from_a_json_string(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "legal", "--position", START_LONG, "--dice", "6-5")
    assert code == 0
    (outcome,) = json.loads(out)["outcomes"]
    assert outcome["position"]["white"] == {"24": 14, "13": 1}


def test_head_exception_option(capsys: pytest.CaptureFixture[str]) -> None:
    _, text, _ = run(capsys, "legal", "--position", START_LONG, "--dice", "6-6")
    _, club, _ = run(capsys, "legal", "--position", START_LONG, "--dice", "6-6",
                     "--head-exception", "both")
    assert json.loads(text)["outcomes"][0]["position"]["white"] == {"24": 14, "18": 1}
    assert json.loads(club)["outcomes"][0]["position"]["white"] == {"24": 13, "18": 2}


def test_no_legal_step_passes_the_turn(capsys: pytest.CaptureFixture[str]) -> None:
    blocked = {"variant": "long", "turn": "white", "white": {"24": 15},
               "black": {"24": 13, "6": 1, "7": 1}}
    _, out, _ = run(capsys, "legal", "--position", json.dumps(blocked), "--dice", "6-5")
    (outcome,) = json.loads(out)["outcomes"]
    assert outcome["moves"] == []
    assert outcome["position"] == {**blocked, "turn": "black"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["legal", "--position", "{nope", "--dice", "6-5"], "not valid JSON"),
        (["legal", "--position", "/no/such/file.json", "--dice", "6-5"], "cannot read"),
        (["legal", "--position", START_LONG, "--dice", "7-1"], "from 1 to 6"),
        (["legal", "--position", START_LONG, "--dice", "six"], "two values"),
        (["legal", "--position", START_LONG.replace("15}}", "16}}"), "--dice", "6-5"],
         "16 checkers"),
        (["legal", "--dice", "6-5"], "needs --position"),
        (["check", "--before", START_LONG, "--dice", "6-5", "--after", "[]"], "JSON object"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_unknown_option_is_status_2_too() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", "legal", "--bogus"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1


def test_batch_answers_every_line_in_order(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = [
        json.dumps({"position": json.loads(START_LONG), "dice": [6, 5]}),
        "not json",
        json.dumps({"position": json.loads(START_LONG), "dice": [0, 5]}),
        json.dumps({"dice": [6, 5]}),
        json.dumps({"position": json.loads(START_LONG.replace("15}}", "14}}")), "dice": [1, 2]}),
        json.dumps({"position": json.loads(START_LONG), "dice": [6, 6]}),
    ]
    monkeypatch.setattr(sys, "stdin", __import__("io").StringIO("\n".join(requests) + "\n"))
    code, out, _ = run(capsys, "legal", "--batch")
    assert code == 0
    replies = [json.loads(line) for line in out.splitlines()]
    assert len(replies) == len(requests)
    assert replies[0]["outcomes"][0]["position"]["white"] == {"24": 14, "13": 1}
    assert "not valid JSON" in replies[1]["error"]
    assert "from 1 to 6" in replies[2]["error"]
    assert "position" in replies[3]["error"]
    assert "14 checkers" in replies[4]["error"]
    assert replies[5]["outcomes"][0]["moves"] == [[24, 18]]


def test_check_reports_violations(capsys: pytest.CaptureFixture[str]) -> None:
    after = {"variant": "long", "turn": "black", "white": {"24": 13, "18": 1, "19": 1},
             "black": {"24": 15}}
    code, out, _ = run(capsys, "check", "--before", START_LONG, "--dice", "6-5",
                       "--after", json.dumps(after))
    assert code == 0
    verdict = json.loads(out)
    assert verdict["legal"] is False and verdict["moves"] is None
    assert [v["rule"] for v in verdict["violations"]] == ["5.4.11"]
    assert verdict["nearest_legal"][0]["white"] == {"24": 14, "13": 1}


def test_check_accepts_an_impossible_observed_position(
    capsys: pytest.CaptureFixture[str],
) -> None:
    after = {"variant": "long", "turn": "black", "white": {"24": 14, "13": 1, "12": 1},
             "black": {"24": 15}}
    code, out, _ = run(capsys, "check", "--before", START_LONG, "--dice", "6-5",
                       "--after", json.dumps(after))
    assert code == 0
    rules = {v["rule"] for v in json.loads(out)["violations"]}
    assert {"5.4.45", "5.4.12"} <= rules
