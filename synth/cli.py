"""`nardy-referee synth ...`: generate labelled synthetic scenes."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[Any]


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
