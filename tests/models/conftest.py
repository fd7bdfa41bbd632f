"""Rendered-scene folders for the dice training and evaluation tests."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

# A camera that followed a die far off the tray: its tray's corners make no quadrilateral.
FAR_OFF = {"position": [-0.963931, 1.018455, 0.415351],
           "xmat": [-0.040641, -0.926489, 0.374121, 0.99913, -0.034194, 0.023855,
                    -0.009309, 0.374765, 0.927073],
           "fovy_deg": 48.414, "size": [640, 480],
           "intrinsics": [[533.851, 0.0, 320.0], [0.0, 533.851, 240.0], [0.0, 0.0, 1.0]]}
ABOVE = {**FAR_OFF, "position": [0.13, 0.0, 0.4], "xmat": [0, -1, 0, 1, 0, 0, 0, 0, 1]}


@pytest.fixture
def two_scenes_one_unmeasurable(tmp_path: Path) -> Path:
    """A `synth dice` folder of two grey scenes with a flat die each: the first seen by the
    far-off camera, the second from above the tray."""
    die = {"box": [300, 220, 24, 24], "cocked": False, "value": 3, "visible_px": 500}
    (tmp_path / "images").mkdir()
    lines = []
    for index, camera in enumerate((FAR_OFF, ABOVE)):
        cv2.imwrite(str(tmp_path / "images" / f"{index}.png"), np.full((480, 640), 90, np.uint8))
        lines.append({"image": f"images/{index}.png", "camera": camera, "dice": [die]})
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    return tmp_path
