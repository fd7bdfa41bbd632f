"""Held-out dice judged by eye, die by die: which a person could read, and what they show.

`judgements.json` holds, for each judged set (by its name in `evaluate.held_out_photographs`):
- `verdicts`: for each image file, one character per labelled die in the labels' order:
  '1'-'6' the value the picture shows (the label's, unless the picture plainly shows
  another), 'x' when no person could read it (top face out of sight or cut off by the
  image's edge, pips lost in blur, glare or a dark die's own colour, or no die at all);
- `unlabelled`: real dice the labels leave out, `[x, y, w, h, value]` in pixels, found where
  the reader read a die no label holds. They are marked unreadable too: a reading of one is
  not an invented die, and since only the dice the reader found were looked for, crediting
  them would flatter its recall.
The sheets to judge on: `python -m models.dice.judging_sheets`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from models.dice.data import LabelledImage

JUDGEMENTS = Path(__file__).parent / "judgements.json"
UNREADABLE = "x"


@dataclass(frozen=True)
class Judgement:
    """One set's verdicts and unlabelled dice, by image file name."""

    verdicts: dict[str, str]
    unlabelled: dict[str, list[list[float]]]


def load_judgements(path: Path = JUDGEMENTS) -> dict[str, Judgement]:
    return {name: Judgement(judged_set["verdicts"], judged_set.get("unlabelled", {}))
            for name, judged_set in json.loads(path.read_text())["sets"].items()}


def judged(items: list[LabelledImage], judgement: Judgement) -> list[LabelledImage]:
    """The items with each die's value as judged, the unreadable dice marked and the
    unlabelled ones added, so that scoring counts a reading of either neither right nor
    invented. Every item must be judged: a set judged in part would be another set under
    the same name."""
    out = []
    for item in items:
        verdict = judgement.verdicts.get(item.path.name)
        if verdict is None or len(verdict) != len(item.values):
            raise ValueError(f"{item.path.name}: {len(item.values)} dice labelled, "
                             f"verdict {verdict!r}")
        if set(verdict) - set("123456" + UNREADABLE):
            raise ValueError(f"{item.path.name}: verdict {verdict!r} holds a stray character")
        added = np.array(judgement.unlabelled.get(item.path.name, []), np.float32).reshape(-1, 5)
        readable = np.array([mark != UNREADABLE for mark in verdict] + [False] * len(added))
        values = np.array([int(mark) if mark != UNREADABLE else int(label)
                           for mark, label in zip(verdict, item.values, strict=True)]
                          + [int(value) for value in added[:, 4]], int)
        boxes = np.concatenate([item.boxes, added[:, :4]]).astype(item.boxes.dtype)
        out.append(replace(item, boxes=boxes, values=values, readable=readable))
    return out
