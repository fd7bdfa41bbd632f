"""Find the playing field without markers, from the board's own lines and triangles.

1. Candidates: quadrilaterals among the contours of edge maps and of light/dark threshold
   masks (several thresholds), at a reduced size; also the field inside a candidate frame.
2. Each candidate is rectified (the reader's warp) and scored by how well 12 alternating
   triangles per half fit it: along each row, the triangle centres alternate in colour and
   differ from the field between the tips.
3. The best candidate's corners are refined on the full-size edges (the strongest edge line
   near each side); then the top and bottom sides are settled on the edge line under which
   the triangles' bases alternate in colour and above which (outside the field) nothing
   does. That brings back a side found on the board's outer frame, the commonest wrong
   line; a side found inward, on a row of checkers, is brought back less often (the
   checkers hide the alternation). The corners are returned in read-board order.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.board import field_sides
from calibration.layout import BoardGeometry, FloatArray
from vision.board.strips import estimate_bar_width
from vision.board.warp import Image, field_homography, project, rectify

WORK_WIDTH = 640
MIN_AREA = 0.12  # of the image
MIN_SCORE = 0.3
ROW_REACH = 0.15  # how far (of the field's height) a top or bottom side may be moved


@dataclass(frozen=True)
class FieldFit:
    """`corners` (4, 2) in pixels (top-left, top-right, bottom-right, bottom-left); `score`
    how well 12 triangles per half fit (0-1); `candidates` how many quadrilaterals were tried."""

    corners: FloatArray
    score: float
    candidates: int


def order_corners(quad: FloatArray) -> FloatArray:
    """Four points as top-left, top-right, bottom-right, bottom-left."""
    q = np.asarray(quad, float).reshape(4, 2)
    c = q.mean(0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]  # clockwise on screen (y down) from the left-most angle
    start = int(np.argmin(q.sum(1)))  # top-left: smallest x + y
    return np.roll(q, -start, axis=0)


def _quads(small: Image) -> list[FloatArray]:
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    area_min = MIN_AREA * grey.shape[0] * grey.shape[1]
    masks: list[Image] = []
    blur = cv2.GaussianBlur(grey, (5, 5), 0)
    for lo, hi in ((30, 90), (60, 160)):
        e = cv2.Canny(blur, lo, hi)
        masks.append(np.asarray(cv2.dilate(e, np.ones((3, 3), np.uint8)), np.uint8))
    for q in (20, 35, 50, 65, 80):
        t = float(np.percentile(blur, q))
        m = np.asarray((blur > t).astype(np.uint8) * 255, np.uint8)
        m = np.asarray(cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)), np.uint8)
        masks.extend([m, np.asarray(255 - m, np.uint8)])
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    sat = cv2.GaussianBlur(hsv[..., 1], (5, 5), 0)
    for q in (30, 50, 70):
        t = float(np.percentile(sat, q))
        m = np.asarray((sat > t).astype(np.uint8) * 255, np.uint8)
        masks.extend([m, np.asarray(255 - m, np.uint8)])
    out: list[FloatArray] = []
    for mask in masks:
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for cnt in contours:
            if cv2.contourArea(cnt) < area_min:
                continue
            hull = cv2.convexHull(cnt)
            for eps in (0.01, 0.02, 0.04):
                approx = cv2.approxPolyDP(hull, eps * cv2.arcLength(hull, True), True)
                if len(approx) == 4 and cv2.isContourConvex(approx):
                    out.append(order_corners(approx.reshape(4, 2).astype(float)))
                    break
    return out


def _line_quads(small: Image, keep: int = 80) -> list[FloatArray]:
    """Quadrilaterals from pairs of near-horizontal and near-vertical straight lines (Hough),
    the best `keep` by how much edge lies along their four sides."""
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1)
    hi = max(20.0, float(np.percentile(np.hypot(gx, gy), 90)))
    edges = cv2.Canny(grey, hi / 2, hi)  # thresholds follow the image's own contrast
    h, w = grey.shape
    found = cv2.HoughLines(edges, 1, np.pi / 360, threshold=int(0.12 * min(h, w)))
    if found is None:
        return []
    horiz: list[tuple[float, float]] = []
    vert: list[tuple[float, float]] = []
    for rho, theta in found[:, 0, :]:
        deg = np.degrees(theta)
        group = horiz if 65 < deg < 115 else vert if (deg < 25 or deg > 155) else None
        if group is None:
            continue
        if len(group) < 14 and all(abs(rho - r) > 6 or abs(theta - t) > 0.05
                                   for r, t in group):
            group.append((float(rho), float(theta)))
    dil = cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0

    def meet(a: tuple[float, float], b: tuple[float, float]) -> FloatArray | None:
        (r1, t1), (r2, t2) = a, b
        m = np.array([[np.cos(t1), np.sin(t1)], [np.cos(t2), np.sin(t2)]])
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        return np.asarray(np.linalg.solve(m, [r1, r2]), float)

    scored: list[tuple[float, FloatArray]] = []
    for i, top in enumerate(horiz):
        for bottom in horiz[i + 1:]:
            for j, left in enumerate(vert):
                for right in vert[j + 1:]:
                    pts = [meet(top, left), meet(top, right), meet(bottom, right),
                           meet(bottom, left)]
                    if any(p is None for p in pts):
                        continue
                    q = order_corners(np.array(pts))
                    if (np.any(q < -0.02 * w) or np.any(q[:, 0] > 1.02 * w)
                            or np.any(q[:, 1] > 1.02 * h)):
                        continue
                    area = cv2.contourArea(q.astype(np.float32))
                    if area < MIN_AREA * w * h:
                        continue
                    side_w = float(np.linalg.norm(q[1] - q[0]))
                    side_h = float(np.linalg.norm(q[3] - q[0]))
                    if not 0.8 < side_w / max(side_h, 1e-6) < 1.8:
                        continue
                    support = []
                    for k in range(4):
                        a, b = q[k], q[(k + 1) % 4]
                        t = np.linspace(0.05, 0.95, 40)[:, None]
                        xy = np.round(a + t * (b - a)).astype(int)
                        xy = np.clip(xy, 0, [w - 1, h - 1])
                        support.append(float(dil[xy[:, 1], xy[:, 0]].mean()))
                    scored.append((float(np.mean(support)) + 0.2 * min(support), q))
    scored.sort(key=lambda item: -item[0])
    return [q for _, q in scored[:keep]]


def triangle_score(image: Image, corners: FloatArray) -> float:
    """How well 12 alternating triangles per half fit the field inside `corners` (0-1).

    Per row, samples on each point's centre line from near the edge to near the tip (inside
    the triangle) and between neighbouring tips (the field): the triangles must alternate in
    colour and stand out from the field around their tips; a misplaced field puts the tip
    samples off the triangles.
    """
    bar = estimate_bar_width(image, corners)
    g = BoardGeometry(bar_width=bar)
    scale = 0.25
    field = cv2.GaussianBlur(rectify(image, corners, g, scale), (3, 3), 0).astype(np.float32)
    hh, ww = field.shape[:2]

    def at(x: float, y: float) -> FloatArray:
        xi = int(np.clip(x * scale, 0, ww - 1))
        yi = int(np.clip(y * scale, 0, hh - 1))
        return np.asarray(field[yi, xi], np.float64)

    scores = []
    for top in (True, False):
        points = range(13, 25) if top else range(12, 0, -1)
        depth = np.array([0.04, 0.1, 0.16, 0.22, 0.26])  # of the height, from the edge
        inner, tips, between = [], [], []
        for p in points:
            x = g.point_x(p)
            ys = depth * g.height if top else g.height - depth * g.height
            vals = np.array([at(x, y) for y in ys])
            inner.append(vals[:3].mean(0))
            tips.append(vals[3:].mean(0))
            for dx in (-0.5, 0.5):
                y = 0.24 * g.height if top else 0.76 * g.height
                between.append(at(x + dx * g.point_width, y))
        c = np.array(inner)
        t = np.array(tips)
        sign = np.array([1 if k % 2 == 0 else -1 for k in range(12)])[:, None]
        spread = float(np.linalg.norm(c.std(0))) + 8.0
        alternation = float(np.linalg.norm((c * sign).mean(0))) / spread
        background = np.median(np.array(between), axis=0)
        stand_out = np.linalg.norm(t - background, axis=1)
        tip_ok = float(np.mean(stand_out > 25.0))
        diffs = np.linalg.norm(np.diff(c, axis=0), axis=1)
        neighbours = float(np.mean(diffs > 0.5 * np.median(diffs) + 5.0))
        scores.append(min(1.0, alternation) * tip_ok * neighbours)
    return float(np.mean(scores))


def find_field(image: Image) -> FieldFit:
    """The field's corners; ValueError when no quadrilateral fits a board."""
    h, w = image.shape[:2]
    f = WORK_WIDTH / w if w > WORK_WIDTH else 1.0
    small = np.asarray(cv2.resize(image, (round(w * f), round(h * f)),
                                  interpolation=cv2.INTER_AREA), np.uint8)
    quads = _quads(small) + _line_quads(small)
    # Dedupe near-identical candidates.
    unique: list[FloatArray] = []
    for q in quads:
        if all(np.abs(q - u).max() > 3 for u in unique):
            unique.append(q)
    scored = sorted(((triangle_score(image, q / f), q / f) for q in unique),
                    key=lambda item: -item[0])
    if not scored or scored[0][0] < MIN_SCORE:
        raise ValueError("no board field found (no quadrilateral with 12 triangles per half)")
    fits = [(triangle_score(image, c), c) for c in
            (refine(image, corners) for _, corners in scored[:3])]
    score, corners = max(fits, key=lambda item: item[0])
    return FieldFit(settle_rows(image, corners), score, len(unique))


def _corners_from(lines: list[tuple[FloatArray, FloatArray]]) -> FloatArray:
    return np.asarray([_intersect(*lines[(i - 1) % 4], *lines[i]) for i in range(4)], float)


def refine(image: Image, corners: FloatArray, reach: float = 0.04) -> FloatArray:
    """Move each side onto one of the strong straight edges within `reach` of the field's
    size (the one under which the triangles fit best) and intersect the sides again."""
    from calibration.moved import border_profiles

    size = float(np.linalg.norm(corners[1] - corners[0]))
    r = max(3, int(reach * size))
    prof = border_profiles(image, corners, r)
    sides = field_sides(corners)
    options: list[list[float]] = []
    for i in range(4):
        p = prof[i]
        peaks = [k for k in range(1, len(p) - 1) if p[k] >= p[k - 1] and p[k] >= p[k + 1]
                 and p[k] >= 0.4 * p.max()]
        options.append([float(k - r) for k in peaks] or [0.0])
    shifts = [min(o, key=abs) for o in options]

    def lines(sh: list[float]) -> list[tuple[FloatArray, FloatArray]]:
        return [(a + n * s, b + n * s) for (a, b, n), s in zip(sides, sh, strict=True)]

    best = triangle_score(image, _corners_from(lines(shifts)))
    for i in range(4):
        for option in options[i]:
            trial = list(shifts)
            trial[i] = option
            score = triangle_score(image, _corners_from(lines(trial)))
            if score > best + 0.01:
                best, shifts = score, trial
    return _corners_from(lines(shifts))


def _intersect(p1: FloatArray, p2: FloatArray, p3: FloatArray, p4: FloatArray) -> FloatArray:
    d1, d2 = p2 - p1, p4 - p3
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-9:
        return np.asarray((p2 + p3) / 2, float)
    t = ((p3[0] - p1[0]) * d2[1] - (p3[1] - p1[1]) * d2[0]) / den
    return np.asarray(p1 + t * d1, float)


def settle_rows(image: Image, corners: FloatArray) -> FloatArray:
    """Move the top and the bottom side each onto the straight edge within ROW_REACH of the
    field's height where the points' colours alternate just inside and not just outside."""
    from calibration.moved import border_profiles

    geometry = BoardGeometry(bar_width=estimate_bar_width(image, corners))
    reach = max(3, int(ROW_REACH * float(np.linalg.norm(corners[3] - corners[0]))))
    profiles = border_profiles(image, corners, reach)
    sides = field_sides(corners)  # top, right, bottom, left; normals point inside
    shifts = [0.0] * 4

    def lines(trial: list[float]) -> list[tuple[FloatArray, FloatArray]]:
        return [(a + n * s, b + n * s) for (a, b, n), s in zip(sides, trial, strict=True)]

    for side in (0, 2):
        p = profiles[side]
        peaks = [float(k - reach) for k in range(1, len(p) - 1)
                 if p[k] >= p[k - 1] and p[k] >= p[k + 1] and p[k] >= 0.3 * p.max()]
        best: tuple[float, float] | None = None
        for shift in sorted({0.0, *peaks}):
            trial = list(shifts)
            trial[side] = shift
            score = _edge_row_score(image, _corners_from(lines(trial)), side == 0, geometry)
            if best is None or score > best[0]:
                best = (score, shift)
        assert best is not None
        shifts[side] = best[1]
    return _corners_from(lines(shifts))


def _edge_row_score(image: Image, corners: FloatArray, top: bool,
                    geometry: BoardGeometry) -> float:
    """How much the row of points along one long side alternates just inside the side (at
    4 and 8 % of the height) more than just outside it (2 %)."""
    h = field_homography(corners, geometry)
    points = range(13, 25) if top else range(1, 13)
    height = geometry.height

    def at(depth: float) -> float:
        return _alternation(image, h, geometry, depth * height if top else height - depth * height,
                            points)

    return (at(0.04) + at(0.08)) / 2 - at(-0.02)


def _alternation(image: Image, h: FloatArray, geometry: BoardGeometry, y: float,
                 points: range) -> float:
    """Colour contrast between alternate points along the row y (field units), over the
    spread within each set: high on the triangles' bases, low off the field."""
    offsets = np.linspace(-0.25, 0.25, 5) * geometry.point_width
    xs = np.concatenate([geometry.point_x(p) + offsets for p in points])
    where = project(h, np.stack([xs, np.full_like(xs, y)], 1)).astype(np.float32)
    values = cv2.remap(image, where[:, 0].reshape(1, -1), where[:, 1].reshape(1, -1),
                       cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    colours = values.reshape(len(points), len(offsets), -1).mean(1).astype(np.float64)
    even, odd = colours[0::2], colours[1::2]
    spread = float(np.sqrt((even.var(0).sum() + odd.var(0).sum()) / 2))
    return float(np.linalg.norm(even.mean(0) - odd.mean(0))) / (spread + 10.0)
