"""Positions per second of `legal --batch`, and the ratio against bgsage on short nardy.

Both engines read the same JSON request lines and write JSON lines (bgsage's answer has the
positions only: it gives no move sequences). The requests come from random legal games.

    python bench/legal_batch.py [--positions 3000] [--seed 1]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.cli import RulesBook, _batch, legal_json
from referee.position import Position, Variant
from referee.selfplay import random_game


def requests(variant: Variant, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    lines: list[str] = []
    while len(lines) < count:
        for ply in random_game(variant, rng):
            lines.append(json.dumps({"position": ply.before.to_json(), "dice": list(ply.dice)}))
    return lines[:count]


def timed(lines: list[str], answer: Callable[[dict[str, Any]], Any]) -> float:
    """CPU seconds of this process to answer every line (steadier than wall time on a
    shared machine)."""
    out = io.StringIO()
    start = time.process_time()
    _batch(lines, out, answer)
    seconds = time.process_time() - start
    assert '"error"' not in out.getvalue()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    book = RulesBook("second")

    def ours(request: dict[str, Any]) -> Any:
        return legal_json(book, Position.from_json(request["position"]), request["dice"])

    try:
        from bench import bgsage_reference
    except ImportError:
        bgsage_reference = None  # type: ignore[assignment]
        print("bgsage not installed (pip install bgsage): no reference ratio")
    batches = {variant: requests(variant, args.positions, args.seed) for variant in Variant}
    best: dict[str, float] = {}
    # Rounds alternate between the engines so that both see the same machine load.
    for _ in range(args.repeats):
        for variant, lines in batches.items():
            best[variant.value] = min(best.get(variant.value, 1e9), timed(lines, ours))
        if bgsage_reference is not None:
            seconds = timed(batches[Variant.SHORT], bgsage_reference.legal_json)
            best["bgsage"] = min(best.get("bgsage", 1e9), seconds)
    for name, seconds in best.items():
        label = "bgsage short" if name == "bgsage" else f"{name:5} nardy"
        print(f"{label}: {args.positions / seconds:9.0f} positions/s "
              f"({seconds / args.positions * 1e6:.0f} us each, {args.positions} positions)")
    if "bgsage" in best:
        print(f"ratio ours/bgsage (short nardy, time per position, same JSON in and out): "
              f"{best['short'] / best['bgsage']:.2f}")


if __name__ == "__main__":
    main()
