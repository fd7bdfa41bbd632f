"""The dice networks (PyTorch, training only; inference runs their ONNX export)."""

from __future__ import annotations

import torch
from torch import nn


def conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


class DiceDetector(nn.Module):
    """CenterNet-style: a heatmap of die centres and each die's size, at stride 4.

    Outputs (N, 5, H/4, W/4): centre logit, log width, log height (in input pixels / 16),
    and the sub-cell offset of the centre (x, y) in [0, 1).
    """

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(conv(3, 16, 2), conv(16, 16, 2))  # stride 4
        self.down8 = nn.Sequential(conv(16, 32, 2), conv(32, 32))
        self.down16 = nn.Sequential(conv(32, 48, 2), conv(48, 48))
        self.down32 = nn.Sequential(conv(48, 64, 2), conv(64, 64))
        self.lat16 = nn.Conv2d(48, 64, 1)
        self.lat8 = nn.Conv2d(32, 64, 1)
        self.lat4 = nn.Conv2d(16, 64, 1)
        self.smooth = conv(64, 32)
        self.head = nn.Conv2d(32, 5, 1)
        nn.init.constant_(self.head.bias[:1], -4.0)  # start with few centres

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s4 = self.stem(x)
        s8 = self.down8(s4)
        s16 = self.down16(s8)
        s32 = self.down32(s16)
        up = nn.functional.interpolate(s32, scale_factor=2.0, mode="nearest") + self.lat16(s16)
        up = nn.functional.interpolate(up, scale_factor=2.0, mode="nearest") + self.lat8(s8)
        up = nn.functional.interpolate(up, scale_factor=2.0, mode="nearest") + self.lat4(s4)
        out = self.head(self.smooth(up))
        return torch.cat([out[:, :3], torch.sigmoid(out[:, 3:])], dim=1)


class Residual(nn.Module):
    """x + conv-BN-ReLU-conv-BN(x), then ReLU; the last BN starts at zero, so a block added
    to trained weights starts as the identity (its input is already rectified)."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            conv(channels, channels), nn.Conv2d(channels, channels, 3, 1, 1, bias=False),
            nn.BatchNorm2d(channels),
        )
        nn.init.zeros_(self.body[2].weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.body(x))


def crop_features(channels: int, width: int = 16) -> list[nn.Module]:
    """The crop networks' convolutions: `width` channels at the crop's size, twice as many at
    each halving, down to an eighth (6x6 of a 48 crop) with 8 * `width` channels."""
    w = width
    return [
        conv(channels, w), conv(w, 2 * w, 2),  # 24
        conv(2 * w, 2 * w), conv(2 * w, 4 * w, 2),  # 12
        conv(4 * w, 4 * w), conv(4 * w, 8 * w, 2),  # 6
        conv(8 * w, 8 * w),
    ]


class DieClassifier(nn.Module):
    """Grey crops of one die (`channels`: the die's, and a wider one of its surroundings) to
    logits over `classes` (see models/dice/classifier.json).

    `blocks` residual blocks refine the features at 12x12 and again at 6x6 (a 48 crop);
    `features` keeps its layout, so weights of a classifier without them load unchanged."""

    def __init__(self, classes: int, blocks: int = 0, channels: int = 1) -> None:
        super().__init__()
        self.features = nn.Sequential(*crop_features(channels), nn.AdaptiveAvgPool2d(1))
        self.refine12 = nn.Sequential(*[Residual(64) for _ in range(blocks)])
        self.refine6 = nn.Sequential(*[Residual(128) for _ in range(blocks)])
        self.classify = nn.Linear(128, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.refine12(self.features[:5](x))
        x = self.refine6(self.features[5:7](x))
        return self.classify(self.features[7](x).flatten(1))


class TwoHeads(DieClassifier):
    """One trunk, two calls on the straight-down crop: logits over `calls` (flat, cocked)
    and over `faces` (cocked, 1-6), one linear layer split in two (models/dice/train_joint)."""

    def __init__(self, calls: int, faces: int, blocks: int = 1, channels: int = 2) -> None:
        super().__init__(calls + faces, blocks, channels)
        self.calls = calls

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = super().forward(x)
        return logits[:, :self.calls], logits[:, self.calls:]


class DieFramer(nn.Module):
    """A grey crop around a detector's box to where the die at its centre is: its centre's
    offset and the log of its sides (vision/dice/preprocess.py: framing_target). The
    classifier's convolutions at `width` channels first (16 is the classifier's own, whose
    weights then load: the names match), then the map (an eighth of the crop's `size`)
    flattened: pooling it would throw away where the die lies."""

    def __init__(self, width: int = 16, size: int = 48, hidden: int = 64) -> None:
        super().__init__()
        cells = size // 8
        self.features = nn.Sequential(*crop_features(1, width))
        self.locate = nn.Sequential(
            nn.Flatten(), nn.Linear(8 * width * cells * cells, hidden), nn.ReLU(inplace=True),
            nn.Linear(hidden, 4),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.locate(self.features(x))
