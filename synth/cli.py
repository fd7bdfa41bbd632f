"""`nardy-referee synth ...`: generate labelled synthetic scenes."""

from __future__ import annotations

import argparse


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `synth` and its generators under the main command line."""
    synth = commands.add_parser("synth", help="generate labelled synthetic scenes")
    kinds = synth.add_subparsers(dest="kind", required=True)
    for register in _generators():
        register(kinds)


def _generators() -> list[object]:
    # Each generator module offers `add_command(kinds)`; listed here as they land.
    return []
