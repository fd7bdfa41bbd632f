"""The sheets on which held-out dice are judged readable by eye."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.dice import judging_sheets
from models.dice.data import LabelledImage


def test_every_labelled_die_is_numbered_on_a_sheet(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "dice.png"
    cv2.imwrite(str(path), np.full((200, 300, 3), 90, np.uint8))
    scene = LabelledImage(path, np.array([(10, 10, 40, 40), (100, 10, 40, 40),
                                          (200, 100, 40, 40)], np.float32), np.array([1, 2, 3]))
    monkeypatch.setattr(judging_sheets, "held_out_set",
                        lambda name: ("three photographs", [scene] * 3))
    out = tmp_path / "sheets"
    monkeypatch.setattr(sys, "argv", ["judging_sheets", "--set", "three", "--out", str(out),
                                      "--rows", "1"])
    judging_sheets.main()
    index = json.loads((out / "dice.json").read_text())
    assert index["set"] == "three photographs"
    assert [(d["image"], d["die"]) for d in index["dice"]] == [("dice.png", k)
                                                               for k in (0, 1, 2) * 3]
    # 9 dice at one row of 6 a sheet: two sheets, the second padded black.
    sheets = [cv2.imread(str(out / f"sheet-{n}.png")) for n in (0, 1)]
    assert all(sheet is not None for sheet in sheets)
    side = judging_sheets.TILE
    assert [sheet.shape for sheet in sheets if sheet is not None] == [(side, 6 * side, 3)] * 2
    assert not (out / "sheet-2.png").exists()
