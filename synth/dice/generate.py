"""`synth dice`: many labelled still pictures, in parallel, identical for a given seed.

Picture i depends only on (seed, i): its scenario, style and throw come from generators seeded
with [seed, i, stream], and its model (die size, rounding, pips, ramp) from the chunk it falls
in, [seed, CHUNK_STREAM + i // chunk]. So the worker count never changes the output.
"""

from __future__ import annotations

import json
import multiprocessing
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from synth.dice.scene import BoxGeometry, DieShape, SceneParams

CHUNK = 40  # pictures per model build
CHUNK_STREAM = 1_000_000
MIX = {"throw": 0.40, "lean": 0.35, "stall": 0.25}


@dataclass(frozen=True)
class Options:
    out: Path
    count: int
    seed: int
    scenario: str = "mix"  # "mix" or a Scenario value
    width: int = 640
    height: int = 480
    image_format: str = "jpg"  # jpg | png
    workers: int = 1
    top_down: bool = False  # straight-down camera, no image effects (for checks)
    against: str | None = None  # lean scenario: "wall", "die" or either


def scene_params(seed: int, chunk: int, width: int, height: int,
                 pile: bool = False) -> SceneParams:
    """The chunk's model; a pile's chunk holds 3-30 dice, every other chunk two."""
    rng = np.random.default_rng([seed, CHUNK_STREAM + chunk])
    half = float(rng.uniform(0.0065, 0.0095))
    die = DieShape(half=half, edge_radius=half * float(rng.uniform(0.1, 0.22)),
                   pip_spacing=float(rng.uniform(0.46, 0.54)),
                   pip_radius=float(rng.uniform(0.13, 0.18)))
    box = BoxGeometry(ramp_deg=float(rng.uniform(18.0, 27.0)))
    dice = int(rng.integers(3, 31)) if pile else 2
    return SceneParams(box=box, die=die, width=width, height=height, dice=dice)


def pick_scenario(options: Options, rng: np.random.Generator) -> str:
    if options.scenario != "mix":
        return options.scenario
    return str(rng.choice(list(MIX), p=list(MIX.values())))


def render_chunk(options: Options, chunk: int) -> list[str]:
    """Simulate, render and write the pictures of one chunk; their label lines."""
    from synth.dice.labels import ImageLabel, camera_json, die_labels
    from synth.dice.physics import DiceWorld, Scenario, run_scenario
    from synth.dice.render import SceneRenderer, apply_effects
    from synth.dice.style import sample_pile_style, sample_style

    first = chunk * CHUNK
    indices = range(first, min(first + CHUNK, options.count))
    world = DiceWorld(scene_params(options.seed, chunk, options.width, options.height,
                                   pile=options.scenario == "pile"))
    renderer = SceneRenderer(world)
    lines = []
    try:
        for i in indices:
            pick = np.random.default_rng([options.seed, i, 0])
            scenario = pick_scenario(options, pick)
            style_rng = np.random.default_rng([options.seed, i, 1])
            style = sample_pile_style(style_rng, world.dice) if scenario == "pile" else \
                sample_style(style_rng, options.top_down,
                             into_box=scenario == "stall" and pick.random() < 0.7)
            run_scenario(world, Scenario(scenario), np.random.default_rng([options.seed, i, 2]),
                         floor_friction=style.tray_friction, against=options.against)
            renderer.apply(style)
            rgb, mask = renderer.render()
            if not options.top_down:
                rgb = apply_effects(rgb, style, np.random.default_rng([options.seed, i, 3]))
            name = f"images/{i:06d}.{options.image_format}"
            mask_name = f"masks/{i:06d}.png"
            _write_image(options.out / name, rgb, style.effects.jpeg_quality)
            cv2.imwrite(str(options.out / mask_name), mask)
            label = ImageLabel(image=name, mask=mask_name, dice=die_labels(world, mask),
                               scenario=scenario, seed=[options.seed, i],
                               camera=camera_json(world, renderer.camera),
                               style=style.summary())
            lines.append(json.dumps(label.to_json(), separators=(",", ":")))
    finally:
        renderer.close()
    return lines


def _write_image(path: Path, rgb: np.ndarray, quality: int) -> None:
    bgr = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if path.suffix == ".jpg" else []
    if not cv2.imwrite(str(path), bgr, params):
        raise OSError(f"cannot write {path}")


def _chunk_job(job: tuple[Options, int]) -> tuple[int, list[str]]:
    options, chunk = job
    return chunk, render_chunk(options, chunk)


def generate(options: Options) -> Iterator[tuple[int, int]]:
    """Write the pictures, masks and labels.jsonl; yields (done, total) as chunks finish."""
    (options.out / "images").mkdir(parents=True, exist_ok=True)
    (options.out / "masks").mkdir(parents=True, exist_ok=True)
    chunks = list(range((options.count + CHUNK - 1) // CHUNK))
    results: dict[int, list[str]] = {}
    done = 0
    if options.workers <= 1 or len(chunks) <= 1:
        for chunk in chunks:
            results[chunk] = render_chunk(options, chunk)
            done += len(results[chunk])
            yield done, options.count
    else:
        # spawn: every worker opens its own GL context from scratch
        context = multiprocessing.get_context("spawn")
        with context.Pool(options.workers) as pool:
            for chunk, lines in pool.imap_unordered(_chunk_job,
                                                    [(options, c) for c in chunks]):
                results[chunk] = lines
                done += len(lines)
                yield done, options.count
    with open(options.out / "labels.jsonl", "w", encoding="utf-8") as out:
        for chunk in chunks:
            for line in results[chunk]:
                out.write(line + "\n")


def run(options: Options) -> float:
    """Generate everything; pictures per second."""
    start = time.perf_counter()
    for _ in generate(options):
        pass
    return options.count / max(time.perf_counter() - start, 1e-9)
