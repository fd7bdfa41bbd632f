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


def timed(lines: list[str], answer: Callable[[dict[str, Any]], Any], repeats: int) -> float:
    """Best wall time of answering every line, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        out = io.StringIO()
        start = time.perf_counter()
        _batch(lines, out, answer)
        best = min(best, time.perf_counter() - start)
        assert '"error"' not in out.getvalue()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    book = RulesBook("second")

    def ours(request: dict[str, Any]) -> Any:
        return legal_json(book, Position.from_json(request["position"]), request["dice"])

    figures = {}
    for variant in Variant:
        lines = requests(variant, args.positions, args.seed)
        seconds = timed(lines, ours, args.repeats)
        figures[variant] = seconds
        print(f"{variant.value:5} nardy: {len(lines) / seconds:9.0f} positions/s "
              f"({seconds / len(lines) * 1e6:.0f} us each, {len(lines)} positions)")
    try:
        from bench import bgsage_reference
    except ImportError:
        print("bgsage not installed (pip install bgsage): no reference ratio")
        return
    lines = requests(Variant.SHORT, args.positions, args.seed)
    reference = timed(lines, bgsage_reference.legal_json, args.repeats)
    print(f"bgsage short: {len(lines) / reference:9.0f} positions/s "
          f"({reference / len(lines) * 1e6:.0f} us each, same JSON in and out)")
    print(f"ratio ours/bgsage (short nardy, time per position): "
          f"{figures[Variant.SHORT] / reference:.2f}")


if __name__ == "__main__":
    main()
