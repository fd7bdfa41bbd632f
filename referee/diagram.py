"""Board diagrams as inline SVG, for reports that must stand alone (no images, no scripts).

The board is drawn from white's side, as in backgammon diagrams: white's points 1-12 along
the bottom from right to left, 13-24 along the top from left to right, the bar between the
halves and the borne-off checkers in a tray on the right (black's above, white's below).
Black's point b sits on white's `opposite_point(b)`, so in long nardy the heads (white's 24,
black's 24 = white's 12) are diagonally opposite, and in short nardy black's 24 is white's 1.

A stack shows at most five checkers; a stack of two or more has its count written on its
outermost checker. A move's steps are drawn as arrows from point to point, their start points
outlined dashed and their end points outlined solid; `marked` points (a change no move
explains, say) are outlined in red.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from html import escape

from referee.position import BAR, BOARD_POINTS, OFF, Position, Side, Variant, opposite_point

_POINT_WIDTH = 26
_RADIUS = 12
_SHOWN = 5  # checkers drawn per stack; the count says the rest
_POINT_HEIGHT = 2 * _RADIUS * _SHOWN + 6
_BAR_WIDTH = 30
_TRAY_WIDTH = 40
_LABEL = 14  # the rows of point numbers above and below the field
_GAP = 24  # between the two rows of points
_LEFT = 4
_TOP = _LABEL
_FIELD_HEIGHT = 2 * _POINT_HEIGHT + _GAP
_BOTTOM = _TOP + _FIELD_HEIGHT
_HALF = 6 * _POINT_WIDTH
_TRAY_LEFT = _LEFT + 2 * _HALF + _BAR_WIDTH
WIDTH = _TRAY_LEFT + _TRAY_WIDTH + 4
HEIGHT = _BOTTOM + _LABEL

_FILL = {Side.WHITE: "#fbfaf5", Side.BLACK: "#2b2b2b"}
_INK = {Side.WHITE: "#222", Side.BLACK: "#fff"}
_MOVE = "#e07000"
_MARK = "#c00000"
_STYLE = 'font-family="sans-serif" text-anchor="middle" dominant-baseline="central"'


def board_svg(
    position: Position,
    moves: Sequence[tuple[int, int]] = (),
    mover: Side | None = None,
    marked: Collection[int] = (),
    width: int = WIDTH,
    title: str | None = None,
) -> str:
    """The position as an `<svg>` element `width` pixels wide.

    `moves` are (from, to) steps in `mover`'s numbering (25 the bar, 0 borne off); `marked`
    are board points in white's numbering. Points are labelled in `mover`'s numbering, so
    that the moves read off the diagram, or in white's when there is no mover.
    """
    numbering = mover or Side.WHITE
    if moves and mover is None:
        raise ValueError("moves need the side that made them")
    label = title or f"{position.variant.value} nardy, {position.turn.value} to play"
    height = round(width * HEIGHT / WIDTH)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(label)}">',
        f"<title>{escape(label)}</title>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
        f'<rect x="{_LEFT}" y="{_TOP}" width="{2 * _HALF + _BAR_WIDTH}" '
        f'height="{_FIELD_HEIGHT}" fill="#efe0bd" stroke="#5a4020"/>',
        f'<rect x="{_LEFT + _HALF}" y="{_TOP}" width="{_BAR_WIDTH}" height="{_FIELD_HEIGHT}" '
        'fill="#8a6a40"/>',
        f'<rect x="{_TRAY_LEFT + 4}" y="{_TOP}" width="{_TRAY_WIDTH - 4}" '
        f'height="{_FIELD_HEIGHT}" fill="#f6f0e0" stroke="#5a4020"/>',
    ]
    starts = {_board_point(position.variant, mover, start) for start, _ in moves}
    ends = {_board_point(position.variant, mover, end) for _, end in moves}
    for point in BOARD_POINTS:
        parts.append(_triangle(point, starts, ends, marked))
        number = point if numbering is Side.WHITE else opposite_point(position.variant, point)
        x, top = _column_x(point), point > 12
        y = _TOP - _LABEL / 2 if top else _BOTTOM + _LABEL / 2
        parts.append(f'<text x="{x}" y="{y}" font-size="10" {_STYLE}>{number}</text>')
    for side in Side:
        counts = position.counts(side)
        for own_point in BOARD_POINTS:
            point = own_point if side is Side.WHITE else opposite_point(position.variant, own_point)
            parts += _stack(side, counts[own_point], _column_x(point), point > 12)
        parts += _single(side, counts[BAR], _LEFT + _HALF + _BAR_WIDTH / 2, _bar_y(side))
        parts += _single(side, counts[OFF], _TRAY_LEFT + 4 + (_TRAY_WIDTH - 4) / 2,
                         _tray_y(side))
    parts.append(f'<text x="{_TRAY_LEFT + 2 + _TRAY_WIDTH / 2}" y="{_TOP + _FIELD_HEIGHT / 2}" '
                 f'font-size="10" {_STYLE}>off</text>')
    for start, end in moves:
        parts.append(_arrow(_anchor(position.variant, mover, start),
                            _anchor(position.variant, mover, end)))
    parts.append("</svg>")
    return "".join(parts)


def changed_points(before: Position, after: Position) -> frozenset[int]:
    """The board points (white's numbering) whose checkers differ between two positions."""
    changed = set()
    for point in BOARD_POINTS:
        black_point = opposite_point(before.variant, point)
        if (before.white[point], before.black[black_point]) != (
            after.white[point], after.black[black_point]
        ):
            changed.add(point)
    return frozenset(changed)


def _board_point(variant: Variant, mover: Side | None, point: int) -> int:
    """A point of the mover's numbering in white's; the bar and off stay as they are."""
    if mover is Side.BLACK and point in BOARD_POINTS:
        return opposite_point(variant, point)
    return point


def _column_x(point: int) -> float:
    """The centre x of a board point (white's numbering)."""
    column = point - 13 if point > 12 else 12 - point
    x = _LEFT + column * _POINT_WIDTH + _POINT_WIDTH / 2
    return x + _BAR_WIDTH if column >= 6 else x


def _triangle(point: int, starts: set[int], ends: set[int], marked: Collection[int]) -> str:
    x, top = _column_x(point), point > 12
    base = _TOP if top else _BOTTOM
    tip = base + _POINT_HEIGHT if top else base - _POINT_HEIGHT
    half = _POINT_WIDTH / 2 - 1
    fill = "#b98b4e" if point % 2 else "#7c5a34"
    outline = 'stroke="none"'
    if point in marked:
        outline = f'stroke="{_MARK}" stroke-width="3"'
    elif point in ends:
        outline = f'stroke="{_MOVE}" stroke-width="3"'
    elif point in starts:
        outline = f'stroke="{_MOVE}" stroke-width="2.5" stroke-dasharray="4 3"'
    return (f'<polygon points="{x - half},{base} {x + half},{base} {x},{tip}" '
            f'fill="{fill}" {outline}/>')


def _stack(side: Side, count: int, x: float, top: bool) -> list[str]:
    parts = []
    for index in range(min(count, _SHOWN)):
        offset = _RADIUS + 2 * _RADIUS * index
        y = _TOP + offset if top else _BOTTOM - offset
        outermost = index == min(count, _SHOWN) - 1
        parts += _checker(side, x, y, count if outermost and count > 1 else None)
    return parts


def _single(side: Side, count: int, x: float, y: float) -> list[str]:
    """The bar or the tray: one checker with the count, when there are any."""
    return _checker(side, x, y, count) if count else []


def _checker(side: Side, x: float, y: float, count: int | None) -> list[str]:
    parts = [f'<circle cx="{x}" cy="{y}" r="{_RADIUS - 1}" fill="{_FILL[side]}" '
             'stroke="#000" stroke-width="1.2"/>']
    if count is not None:
        parts.append(f'<text x="{x}" y="{y}" font-size="11" font-weight="bold" '
                     f'fill="{_INK[side]}" {_STYLE}>{count}</text>')
    return parts


def _bar_y(side: Side) -> float:
    # White's bar checkers below the middle, black's above, as each side's home is drawn.
    middle = _TOP + _FIELD_HEIGHT / 2
    return middle + 2 * _RADIUS if side is Side.WHITE else middle - 2 * _RADIUS


def _tray_y(side: Side) -> float:
    return _BOTTOM - 2 * _RADIUS if side is Side.WHITE else _TOP + 2 * _RADIUS


def _anchor(variant: Variant, mover: Side | None, point: int) -> tuple[float, float]:
    """Where an arrow starts or ends for a point of the mover's numbering."""
    side = mover or Side.WHITE
    if point == BAR:
        return _LEFT + _HALF + _BAR_WIDTH / 2, _bar_y(side)
    if point == OFF:
        return _TRAY_LEFT + 4 + (_TRAY_WIDTH - 4) / 2, _tray_y(side)
    board = _board_point(variant, mover, point)
    depth = _POINT_HEIGHT * 0.55
    return _column_x(board), _TOP + depth if board > 12 else _BOTTOM - depth


def _arrow(start: tuple[float, float], end: tuple[float, float]) -> str:
    (x1, y1), (x2, y2) = start, end
    length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1e-6)
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    # The head: a triangle 9 units long at the end, 4 either side of the shaft.
    bx, by = x2 - 9 * ux, y2 - 9 * uy
    left, right = (bx - 4 * uy, by + 4 * ux), (bx + 4 * uy, by - 4 * ux)
    head = " ".join(f"{x:.1f},{y:.1f}" for x, y in ((x2, y2), left, right))
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{bx:.1f}" y2="{by:.1f}" stroke="{_MOVE}" '
            f'stroke-width="3" stroke-linecap="round" opacity="0.9"/>'
            f'<polygon points="{head}" fill="{_MOVE}"/>')
