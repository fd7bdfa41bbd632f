"""Detectors trained apart, exported as one network whose maps are the average of theirs.

    python -m models.dice.ensemble /tmp/photo_a/detector.pt /tmp/photo_b/detector.pt \\
        --out models/dice --name photo_detector

The photographs' detector is two runs of `train_detector` averaged (models/dice/README.md):
one finds more of a photograph's dice, the other takes fewer desk things for dice, and a die
both see stays while a peak one of them alone raises is weakened, as with the reader's
mirrored looks. The maps (centre logits, log sizes, offsets) are averaged as those looks'
are, so the reader runs the export as it runs one detector. Each member's state dict is a
`.pt` that `train_detector` wrote, its config the `.json` beside it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from torch import nn

from models.dice.detector_targets import STRIDE
from models.dice.nets import DiceDetector
from models.dice.train_detector import DETECTOR_AXES, DETECTOR_NAMES
from models.dice.training import export_onnx
from vision.dice.preprocess import DETECTOR_SIZE


class AveragedDetector(nn.Module):
    """The mean of its members' output maps."""

    def __init__(self, members: list[nn.Module]) -> None:
        super().__init__()
        self.members = nn.ModuleList(members)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return torch.stack([member(image) for member in self.members]).mean(dim=0)


def export(members: list[Path], out: Path, name: str) -> Path:
    """`name`.onnx and `name`.json in `out`, averaging the detectors whose state dicts are
    `members`."""
    detectors = []
    for path in members:
        detector = DiceDetector()
        detector.load_state_dict(torch.load(path))
        detectors.append(detector)
    out.mkdir(parents=True, exist_ok=True)
    onnx_path = out / f"{name}.onnx"
    export_onnx(AveragedDetector(detectors), torch.zeros(1, 3, DETECTOR_SIZE, DETECTOR_SIZE),
                onnx_path, DETECTOR_NAMES, DETECTOR_AXES)
    configs = [path.with_suffix(".json") for path in members]
    config = {"input_size": DETECTOR_SIZE, "stride": STRIDE,
              "members": [{"weights": str(path),
                           "config": json.loads(json_path.read_text())
                           if json_path.exists() else None}
                          for path, json_path in zip(members, configs, strict=True)]}
    (out / f"{name}.json").write_text(json.dumps(config, indent=2) + "\n")
    return onnx_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("members", type=Path, nargs="+", help="detector.pt state dicts")
    parser.add_argument("--out", type=Path, required=True, help="folder to write into")
    parser.add_argument("--name", default="photo_detector", help="the export's file name")
    args = parser.parse_args()
    path = export(args.members, args.out, args.name)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
