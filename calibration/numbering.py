"""Each player's own point numbering against the image-relative numbering of FORMATS.md.

Image-relative: 1 is the bottom-right triangle, rising leftward to 12 (bottom-left), 13
top-left, rising rightward to 24 (top-right). A `Layout` says which image corner holds white's
point 1; white's points 1-12 then run along that corner's row away from it and 13-24 come back
along the other row, so the corner also fixes the direction (clockwise on screen from the
bottom-right or top-left corner, counter-clockwise from the other two). Black's numbering
follows from white's through the variant (RULES.md): long nardy b -> (b + 11) % 24 + 1, short
nardy b -> 25 - b.

No drawing and no randomness: `calibration/` can take it over unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from referee.position import Side, Variant, opposite_point

Corner = Literal["bottom-right", "bottom-left", "top-left", "top-right"]
CORNERS: tuple[Corner, ...] = ("bottom-right", "bottom-left", "top-left", "top-right")


def mirror_left_right(point: int) -> int:
    """The image point in the same row, mirrored about the bar."""
    return 13 - point if point <= 12 else 37 - point


def mirror_top_bottom(point: int) -> int:
    """The image point in the same column, in the other row."""
    return 25 - point


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the players' numberings lie on the image.

    `white_corner`: the image corner holding white's point 1 (its home is the quarter there).
    """

    variant: Variant
    white_corner: Corner = "bottom-right"

    def __post_init__(self) -> None:
        if self.white_corner not in CORNERS:
            raise ValueError(f"white_corner must be one of {CORNERS}, got {self.white_corner!r}")

    @property
    def direction(self) -> Literal["clockwise", "counterclockwise"]:
        """Direction of white's numbering 1 -> 24 as the image shows it (y down)."""
        if self.white_corner in ("bottom-right", "top-left"):
            return "clockwise"
        return "counterclockwise"

    @property
    def black_corner(self) -> Corner:
        """The image corner holding black's point 1."""
        return self.image_corner(Side.BLACK)

    def image_corner(self, side: Side) -> Corner:
        point = self.to_image(side, 1)
        row = "bottom" if point <= 12 else "top"
        col = "right" if point in (1, 24) else "left"
        corner = f"{row}-{col}"
        assert corner in CORNERS
        return corner

    def tray_side(self, side: Side) -> Literal["left", "right"]:
        """The tray beside the side's home, where its borne-off checkers go."""
        return "right" if self.image_corner(side).endswith("right") else "left"

    def to_image(self, side: Side, point: int) -> int:
        """A side's own point (1-24) in image-relative numbering."""
        if not 1 <= point <= 24:
            raise ValueError(f"points are numbered 1-24, got {point}")
        white = point if side is Side.WHITE else opposite_point(self.variant, point)
        if self.white_corner in ("bottom-left", "top-left"):
            white = mirror_left_right(white)
        if self.white_corner in ("top-left", "top-right"):
            white = mirror_top_bottom(white)
        return white

    def from_image(self, side: Side, image_point: int) -> int:
        """An image-relative point (1-24) in the side's own numbering."""
        if not 1 <= image_point <= 24:
            raise ValueError(f"points are numbered 1-24, got {image_point}")
        white = image_point
        if self.white_corner in ("top-left", "top-right"):
            white = mirror_top_bottom(white)
        if self.white_corner in ("bottom-left", "top-left"):
            white = mirror_left_right(white)
        return white if side is Side.WHITE else opposite_point(self.variant, white)

    def to_json(self) -> dict[str, str]:
        return {"white_point1": self.white_corner, "black_point1": self.black_corner,
                "direction": self.direction}
