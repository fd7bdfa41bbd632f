"""`nardy-referee synth ...`: generate labelled synthetic scenes."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[Any]


def parse_size(text: str, smallest: int = 64, largest: int = 8192) -> tuple[int, int]:
    """An image size given as WIDTHxHEIGHT (an argparse type)."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x720, got {text!r}") from None
    if not (smallest <= width <= largest and smallest <= height <= largest):
        raise argparse.ArgumentTypeError(f"size out of range: {text!r}")
    return width, height


def add_commands(commands: Subcommands) -> None:
    """Register `synth` and its generators under the main command line."""
    synth = commands.add_parser("synth", help="generate labelled synthetic scenes")
    kinds = synth.add_subparsers(dest="kind", required=True)
    for register in _generators():
        register(kinds)


def _generators() -> list[Callable[[Subcommands], None]]:
    # Each generator module offers `add_command(kinds)`; listed here as they land.
    from synth.board.cli import add_command as board
    from synth.board3d.cli import add_command as board3d
    from synth.dice.cli import add_command as dice
    from synth.game.cli import add_command as game

    return [board, board3d, dice, game]
