"""The strip classifier: a small CNN from one strip (3 x 128 x 24, BGR 0-255) to 32 classes."""

from __future__ import annotations

import torch
from torch import nn

from vision.board.classes import N_CLASSES


def _block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class StripNet(nn.Module):
    """Input: float32 (N, 3, 128, 24), BGR in 0-255 (normalised inside); output: logits (N, 32).

    The layout keeps the position along the strip (16 rows at the end, averaged over the
    width only), as counting checkers is about how far along they reach.
    """

    def __init__(self, width: int = 1, rows: int = 16,
                 channels: tuple[int, int, int, int] = (16, 24, 32, 48)) -> None:
        """`rows`: the input's height over 8 (16 for strips, 24 for the trays' patches);
        `channels` of the four blocks (the trays' larger patches use fewer: time)."""
        super().__init__()
        c = [n * width for n in channels]
        self.features = nn.Sequential(
            _block(3, c[0], 2),  # 64 x 12
            _block(c[0], c[1], 2),  # 32 x 6
            _block(c[1], c[2]), nn.MaxPool2d(2),  # 16 x 3
            _block(c[2], c[3]),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c[3] * rows, 96), nn.ReLU(inplace=True),
                                  nn.Dropout(0.1), nn.Linear(96, N_CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = (x - 128.0) / 64.0
        f = self.features(x).mean(dim=3)  # (N, C, 16)
        out: torch.Tensor = self.head(f)
        return out
