"""The `nardy-referee` command line (the contract of shared spec FORMATS.md)."""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

from referee.check import check
from referee.position import Position, PositionError, Variant
from referee.rules import DiceError, Rules, parse_dice, rules_for

EXIT_BAD_INPUT = 2


class InputError(ValueError):
    """Input the command cannot use; reported as one line and exit status 2."""


def load_position(text: str) -> Position:
    """A position from a JSON string or from the path of a file holding one."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        path = Path(text)
        try:
            stripped = path.read_text(encoding="utf-8")
        except OSError as error:
            raise InputError(f"cannot read position file {text!r}: {error.strerror}") from None
    return Position.from_json(stripped)


class RulesBook:
    """One `Rules` per variant, made on first use."""

    def __init__(self, head_exception: str) -> None:
        self.head_exception = head_exception
        self._rules: dict[Variant, Rules] = {}

    def __getitem__(self, variant: Variant) -> Rules:
        if variant not in self._rules:
            self._rules[variant] = rules_for(variant, self.head_exception)
        return self._rules[variant]


def legal_json(book: RulesBook, position: Position, dice: Any) -> dict[str, Any]:
    position.validate()
    outcomes = book[position.variant].outcomes(position, parse_dice(dice))
    return {"outcomes": [outcome.to_json() for outcome in outcomes]}


def _batch(lines: Iterable[str], out: TextIO, answer: Callable[[dict[str, Any]], Any]) -> None:
    """Answer each JSON request line; a bad line gets an error line and the run goes on."""
    dumps = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
    # Requests build no reference cycles; the collector would only walk the outcomes.
    gc.disable()
    try:
        _answer_lines(lines, out, answer, dumps)
    finally:
        gc.enable()


def _answer_lines(
    lines: Iterable[str],
    out: TextIO,
    answer: Callable[[dict[str, Any]], Any],
    dumps: Callable[[Any], str],
) -> None:
    for line in lines:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise InputError("request must be a JSON object")
            reply = answer(request)
        except json.JSONDecodeError as error:
            reply = {"error": f"request is not valid JSON: {error.msg}"}
        except (ValueError, KeyError, TypeError) as error:
            reply = {"error": _message(error)}
        out.write(dumps(reply))
        out.write("\n")


def _message(error: BaseException) -> str:
    if isinstance(error, KeyError):
        return f"request lacks the field {error.args[0]!r}"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def cmd_legal(args: argparse.Namespace) -> int:
    book = RulesBook(args.head_exception)
    if args.batch:
        _batch(
            sys.stdin,
            sys.stdout,
            lambda r: legal_json(book, Position.from_json(r["position"]), r["dice"]),
        )
        return 0
    if args.position is None or args.dice is None:
        raise InputError("legal needs --position and --dice, or --batch")
    result = legal_json(book, load_position(args.position), args.dice)
    print(json.dumps(result))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    book = RulesBook(args.head_exception)
    before = load_position(args.before)
    after = load_position(args.after)
    verdict = check(book[before.variant], before, parse_dice(args.dice), after)
    print(json.dumps(verdict.to_json()))
    return 0


class _OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line and exit status 2, like every other bad input."""

    def error(self, message: str) -> Any:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="nardy-referee", description="A computer-vision referee for long and short nardy."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    def head_exception(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--head-exception",
            choices=("second", "both"),
            default="second",
            help="whose first throw of 3-3, 4-4 or 6-6 may take two checkers off the head "
            "(rule 5.4.11): the second player's only (the text), or both players'",
        )

    legal = commands.add_parser("legal", help="all legal outcomes of a roll")
    legal.add_argument("--position", help="position JSON, or a file holding it")
    legal.add_argument("--dice", help="the roll, such as 6-5")
    legal.add_argument("--batch", action="store_true", help="JSON lines on stdin")
    head_exception(legal)
    legal.set_defaults(run=cmd_legal)

    judge = commands.add_parser("check", help="judge an observed move")
    judge.add_argument("--before", required=True, help="position JSON, or a file holding it")
    judge.add_argument("--dice", required=True, help="the roll, such as 6-5")
    judge.add_argument("--after", required=True, help="position JSON, or a file holding it")
    head_exception(judge)
    judge.set_defaults(run=cmd_check)

    from api.cli import add_commands as add_service_commands
    from calibration.cli import add_command as add_calibrate
    from referee.evidence import add_command as add_verify
    from referee.review_cli import add_command as add_review
    from synth.cli import add_commands as add_synth_commands
    from vision.board.cli import add_command as add_read_board
    from vision.cli import add_commands as add_vision_commands

    add_vision_commands(commands)
    add_read_board(commands)
    add_calibrate(commands)
    add_synth_commands(commands)
    add_verify(commands)
    add_review(commands)
    add_service_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
    except (InputError, PositionError, DiceError, ValueError) as error:
        print(f"nardy-referee {args.command}: {_message(error)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return code


if __name__ == "__main__":
    sys.exit(main())
