"""Training targets and augmentation for the dice detector (CenterNet-style heatmaps)."""

from __future__ import annotations

import cv2
import numpy as np

STRIDE = 4
SIZE_UNIT = 16.0  # the size channels predict log(size / SIZE_UNIT)


def augment(
    image: np.ndarray, boxes: np.ndarray, rng: np.random.Generator, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """A random square view of the image with its boxes (x, y, w, h), `size` pixels wide:
    scale, crop, flips, quarter turns, colour and grey, blur and noise."""
    height, width = image.shape[:2]
    zoom = size / max(height, width) * rng.uniform(0.7, 1.6)
    out_w, out_h = width * zoom, height * zoom
    offset_x = rng.uniform(min(0.0, size - out_w), max(0.0, size - out_w))
    offset_y = rng.uniform(min(0.0, size - out_h), max(0.0, size - out_h))
    matrix = np.array([[zoom, 0, offset_x], [0, zoom, offset_y]], np.float32)
    view = cv2.warpAffine(image, matrix, (size, size), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))
    boxes = boxes.copy()
    boxes[:, :2] = boxes[:, :2] * zoom + (offset_x, offset_y)
    boxes[:, 2:] *= zoom
    if rng.random() < 0.5:
        view = view[:, ::-1]
        boxes[:, 0] = size - boxes[:, 0] - boxes[:, 2]
    for _ in range(int(rng.integers(4))):
        view = np.rot90(view)  # counter-clockwise: (x, y) -> (y, size - x)
        x, y, w, h = boxes.T.copy()
        boxes = np.stack([y, size - x - w, h, w], axis=1)
    view = np.ascontiguousarray(view)
    view = _photometric(view, rng)
    return view, _keep_visible(boxes, size)


def _photometric(view: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    pixels: np.ndarray = view.astype(np.float32)
    pixels = pixels * rng.uniform(0.6, 1.4, 3) + rng.uniform(-40, 40)
    if rng.random() < 0.3:
        pixels[:] = pixels.mean(axis=2, keepdims=True)
    if rng.random() < 0.3:
        sigma = rng.uniform(0.5, 1.5)
        pixels = cv2.GaussianBlur(pixels, (0, 0), sigma)
    pixels += rng.normal(0, rng.uniform(0, 8), pixels.shape)
    return np.clip(pixels, 0, 255).astype(np.uint8)


def _keep_visible(boxes: np.ndarray, size: int) -> np.ndarray:
    """Clip boxes to the view and drop those mostly outside it."""
    x0 = np.clip(boxes[:, 0], 0, size)
    y0 = np.clip(boxes[:, 1], 0, size)
    x1 = np.clip(boxes[:, 0] + boxes[:, 2], 0, size)
    y1 = np.clip(boxes[:, 1] + boxes[:, 3], 0, size)
    area = boxes[:, 2] * boxes[:, 3]
    visible = (x1 - x0) * (y1 - y0) >= 0.5 * np.maximum(area, 1e-6)
    clipped = np.stack([x0, y0, x1 - x0, y1 - y0], axis=1)
    kept: np.ndarray = clipped[visible & (clipped[:, 2] >= 2) & (clipped[:, 3] >= 2)]
    return kept


def targets(boxes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Heatmap (1, S, S), regression targets (4, S, S) and their mask (S, S), S = size/4."""
    cells = size // STRIDE
    heat = np.zeros((1, cells, cells), np.float32)
    regress = np.zeros((4, cells, cells), np.float32)
    mask = np.zeros((cells, cells), np.float32)
    ys, xs = np.mgrid[0:cells, 0:cells]
    for x, y, w, h in boxes:
        cx, cy = (x + w / 2) / STRIDE, (y + h / 2) / STRIDE
        ix, iy = min(int(cx), cells - 1), min(int(cy), cells - 1)
        sigma = max(0.5, min(w, h) / STRIDE / 6)
        blob = np.exp(-((xs - ix) ** 2 + (ys - iy) ** 2) / (2 * sigma**2))
        heat[0] = np.maximum(heat[0], blob)
        regress[:, iy, ix] = (np.log(w / SIZE_UNIT), np.log(h / SIZE_UNIT), cx - ix, cy - iy)
        mask[iy, ix] = 1.0
    return heat, regress, mask
