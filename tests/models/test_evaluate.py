"""The still-picture evaluation: matching readings to labelled dice, and its scores."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.tray_view import TrayView
from models.dice.data import LabelledImage, rune55_source
from models.dice.evaluate import match, read_still_tray, score
from models.dice.judgements import Judgement, judged
from vision.dice.reader import DieReading
from vision.dice.zones import DiceZones


def picture(*dice: tuple[tuple[float, float, float, float], int]) -> LabelledImage:
    return LabelledImage(Path("scene.jpg"), np.array([box for box, _ in dice], np.float32),
                         np.array([value for _, value in dice]))


def read(box: tuple[float, float, float, float], value: int | None,
         confidence: float = 0.9) -> DieReading:
    return DieReading(box, value, value is None, confidence)


def test_touching_dice_are_credited_with_their_own_readings() -> None:
    # A cocked die leaning on a flat 5: each lies within the other's box grown by half. The
    # surer reading frames the 5 and must not be credited to the cocked die listed first.
    scene = picture(((100, 100, 40, 40), 0), ((130, 120, 40, 40), 5))
    five, cocked = read((131, 121, 38, 38), 5, 0.95), read((101, 99, 40, 42), None, 0.6)
    assert match(scene, [five, cocked]) == [(0, 0), (5, 5)]


def test_a_pair_framed_once_counts_for_the_nearer_die() -> None:
    scene = picture(((100, 100, 40, 40), 0), ((130, 120, 40, 40), 5))
    assert match(scene, [read((125, 115, 44, 44), 5)]) == [(0, None), (5, 5)]


def test_a_top_face_label_matches_a_reading_of_the_whole_die() -> None:
    # desk-webcam labels frame the top face; an oblique view's whole die is centred lower.
    scene = picture(((100, 100, 20, 14), 3))
    assert match(scene, [read((95, 98, 30, 40), 3)]) == [(3, 3)]


def test_readings_of_no_die_are_invented() -> None:
    scene = picture(((100, 100, 40, 40), 2))
    assert match(scene, [read((300, 300, 40, 40), 4), read((101, 101, 40, 40), 2)]) == [
        (2, 2), (-1, 4)]


def test_rune55_photographs_are_told_apart_by_their_source() -> None:
    def source(name: str) -> str:
        return rune55_source(LabelledImage(Path(name), np.zeros((0, 4)), np.zeros(0, int)))

    assert source("00053_jpg.rf.6461ba679270384071a2669df70.jpg") == "grey fisheye close-ups"
    assert source("IMG_20191208_112342_jpg.rf.1c2.jpg") == "grey phone photographs of dark dice"
    assert source("PXL_20211106_183510_jpg.rf.9e1.jpg") == "colour phone photographs of piles"
    assert source("IMG_0659_jpeg.rf.4a1.jpg") == "other"


class FixedReader:
    """Gives the same readings for every picture."""

    def __init__(self, readings: list[DieReading]) -> None:
        self.readings = readings

    def read(self, image: np.ndarray) -> list[DieReading]:
        return self.readings


def test_sure_readings_are_scored_alone(tmp_path: Path) -> None:
    path = tmp_path / "dice.png"
    cv2.imwrite(str(path), np.zeros((400, 400, 3), np.uint8))
    scene = LabelledImage(path, np.array([(10, 10, 40, 40), (100, 10, 40, 40), (200, 10, 40, 40),
                                          (300, 10, 40, 40)], np.float32), np.array([1, 2, 3, 4]))
    readings = [read((10, 10, 40, 40), 1, 0.95), read((100, 10, 40, 40), 5, 0.4),
                read((200, 10, 40, 40), 3, 0.85), read((10, 300, 40, 40), 6, 0.9),
                read((300, 300, 40, 40), 2, 0.3)]
    scores = score(FixedReader(readings), [scene], sure=0.8)
    # Three of four dice found, two read right; an unsure misread, an unread die.
    assert (scores["recall"], scores["value_accuracy"], scores["invented"]) == (0.75, 0.6667, 2)
    # The sure readings alone: two of the four dice, both right, one sure invention.
    assert (scores["sure_share_of_dice"], scores["sure_value_accuracy"],
            scores["sure_invented"]) == (0.5, 1.0, 1)



def test_a_scene_whose_tray_no_calibration_could_measure_has_no_view(
        two_scenes_one_unmeasurable: Path) -> None:
    from models.dice.data import synthetic

    scenes = synthetic(two_scenes_one_unmeasurable)
    assert scenes[0].view is None and scenes[1].view is not None


def test_a_die_judged_unreadable_counts_neither_way(tmp_path: Path) -> None:
    path = tmp_path / "dice.png"
    cv2.imwrite(str(path), np.zeros((200, 400, 3), np.uint8))
    scene = LabelledImage(path, np.array([(10, 10, 40, 40), (100, 10, 40, 40),
                                          (200, 10, 40, 40)], np.float32), np.array([1, 2, 3]))
    # The second die misread, the third missed; the judge finds the second unreadable and the
    # first's label wrong.
    (judged_scene,) = judged([scene], Judgement({"dice.png": "5x3"}, {}))
    reader = FixedReader([read((10, 10, 40, 40), 5), read((100, 10, 40, 40), 6)])
    as_labelled, as_judged = score(reader, [scene]), score(reader, [judged_scene])
    assert (as_labelled["dice"], as_labelled["recall"], as_labelled["value_accuracy"]) == (
        3, 0.6667, 0.0)
    # The reading of the unreadable die is not invented, and the judged value is the truth.
    assert (as_judged["dice"], as_judged["recall"], as_judged["value_accuracy"],
            as_judged["invented"], as_judged["judged_unreadable"]) == (2, 0.5, 1.0, 0, 1)


def test_an_unlabelled_die_the_reader_finds_is_not_invented(tmp_path: Path) -> None:
    path = tmp_path / "dice.png"
    cv2.imwrite(str(path), np.zeros((200, 400, 3), np.uint8))
    scene = LabelledImage(path, np.array([(10, 10, 40, 40)], np.float32), np.array([4]))
    (judged_scene,) = judged([scene], Judgement({"dice.png": "4"},
                                                {"dice.png": [[200, 100, 40, 40, 2]]}))
    reader = FixedReader([read((10, 10, 40, 40), 4), read((201, 99, 40, 40), 2)])
    assert score(reader, [scene])["invented"] == 1
    scores = score(reader, [judged_scene])
    assert (scores["dice"], scores["recall"], scores["invented"]) == (1, 1.0, 0)


def test_every_image_of_a_judged_set_needs_a_verdict_for_each_die() -> None:
    scene = picture(((10, 10, 40, 40), 1), ((100, 10, 40, 40), 2))
    for verdicts in ({}, {"scene.jpg": "1"}, {"scene.jpg": "1?"}):
        with pytest.raises(ValueError):
            judged([scene], Judgement(verdicts, {}))


SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "dice-photos"


@pytest.mark.skipif(not SHARED.exists(), reason="shared dice photographs absent")
@pytest.mark.parametrize(("name", "dice", "unreadable", "relabelled", "unlabelled"), [
    ("rune55 test+valid without near-duplicates", 1350, 102, 7, 3),
    ("desk-webcam (never trained on)", 1206, 1, 1, 3)])
def test_the_judgements_cover_each_judged_set_die_by_die(
        name: str, dice: int, unreadable: int, relabelled: int, unlabelled: int) -> None:
    from models.dice.evaluate import held_out_photographs

    sets = held_out_photographs()
    labelled, judged_set = sets[name], sets[f"{name}, judged readable die by die"]
    assert [item.path for item in judged_set] == [item.path for item in labelled]
    counts = [0, 0, 0, 0]
    for before, after in zip(labelled, judged_set, strict=True):
        n = len(before.values)
        readable = after.readable_dice()
        counts[0] += n
        counts[1] += int(np.sum(~readable[:n]))
        counts[2] += int(np.sum((before.values != after.values[:n]) & readable[:n]))
        counts[3] += len(after.values) - n
        assert not readable[n:].any()  # an unlabelled die is never scored
    assert counts == [dice, unreadable, relabelled, unlabelled]


def test_a_held_out_set_is_named_in_full_or_by_the_start_of_its_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from models.dice import evaluate

    sets: dict[str, list[LabelledImage]] = {"rune55 all": [], "rune55 all, judged": [],
                                            "desk": []}
    monkeypatch.setattr(evaluate, "held_out_photographs", lambda: sets)
    assert evaluate.held_out_set("rune55 all")[0] == "rune55 all"
    assert evaluate.held_out_set("rune55 all,")[0] == "rune55 all, judged"
    assert evaluate.held_out_set("de")[0] == "desk"
    with pytest.raises(KeyError, match="names 2"):
        evaluate.held_out_set("rune55")


def test_copies_of_one_photograph_and_neighbouring_frames_share_a_half() -> None:
    from models.dice.evaluate import in_selection_half

    def half(name: str) -> bool:
        return in_selection_half(LabelledImage(Path(name), np.zeros((0, 4)), np.zeros(0, int)))

    assert half("00012_jpg.rf.b384bc5bf903337ca.jpg") == half("00012_jpg.rf.8d9c3f46c.jpg")
    assert half("one_10.jpg") == half("one_19.jpg")
    names = [f"{kind}_{n}.jpg" for kind in ("one", "two", "dice", "valid")
             for n in range(0, 400, 10)]
    names += [f"{n:05d}_jpg.rf.a.jpg" for n in range(200)]
    share = np.mean([half(name) for name in names])
    assert 0.4 < share < 0.6


def test_a_die_of_a_heap_hidden_in_part_counts_neither_way(tmp_path: Path) -> None:
    from models.dice.data import heaps

    cv2.imwrite(str(tmp_path / "heap.jpg"), np.zeros((100, 200, 3), np.uint8))

    def die(box: list[int], shown: int, value: int | None) -> dict[str, object]:
        return {"box": box, "visible_px": shown, "value": value, "cocked": value is None}

    # three dice whole in sight (one of them leaning, cocked), one half hidden, one a sliver
    dice = [die([0, 0, 20, 20], 400, 3), die([30, 0, 20, 20], 380, None),
            die([60, 0, 20, 20], 410, 5), die([90, 0, 20, 20], 190, 2), die([120, 0, 9, 9], 60, 1)]
    (tmp_path / "labels.jsonl").write_text(json.dumps({"image": "heap.jpg", "dice": dice}))
    (heap,) = heaps(tmp_path)
    assert heap.values.tolist() == [3, 0, 5, 2]  # the sliver is out of sight
    assert heap.readable_dice().tolist() == [True, True, True, False]


LEANING_PAIR = [(100.0, 100.0, 20.0, 20.0), (112.0, 84.0, 20.0, 20.0)]


class PairAsOne:
    """Stands in for the reader: over the whole tray, two dice leaning together are one
    reading, a thing beside the tray another; in a crop a few dice wide, the two apart."""

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        if image.shape[1] > 200:
            return [read(LEANING_PAIR[0], 3), read((380.0, 10.0, 20.0, 20.0), 5)]
        left, top = int(image[0, 0, 0]), int(image[0, 0, 1])  # where the crop was cut
        return [read((x - left, y - top, w, h), value)
                for (x, y, w, h), value in zip(LEANING_PAIR, (3, None), strict=True)]


def test_a_still_tray_frame_is_read_as_the_tray_camera_reads_it() -> None:
    image = np.zeros((300, 400, 3), np.uint8)
    ys, xs = np.mgrid[0:300, 0:400]
    image[..., 0], image[..., 1] = xs.clip(0, 255), ys.clip(0, 255)
    zones = DiceZones(np.array([[50, 50], [300, 50], [300, 250], [50, 250]], np.float32),
                      np.array([[50, 0], [300, 0], [300, 50], [50, 50]], np.float32))
    whole = PairAsOne().read(image)
    assert [d.box for d in whole] == [LEANING_PAIR[0], (380.0, 10.0, 20.0, 20.0)]
    found = read_still_tray(PairAsOne(), image, zones)
    # the thing off the tray dropped; one die read, so the closer look finds its neighbour
    assert [d.box for d in found] == LEANING_PAIR
    assert [d.value for d in found] == [3, None]


class SecondLookFinds:
    """Stands in for the reader: the whole tray's first reading finds one die, a closer look
    around it nothing more; reading the whole tray again (as the camera reads a still tray
    for a die missing from it) finds the other, faint, die too."""

    def __init__(self) -> None:
        self.whole_reads = 0

    def read(self, image: np.ndarray, view: TrayView | None = None,
             floor: object = None) -> list[DieReading]:
        if image.shape[1] <= 200:  # a crop
            return []
        self.whole_reads += 1
        first = read((100.0, 100.0, 20.0, 20.0), 3)
        return [first] if self.whole_reads == 1 else [first, read((200.0, 150.0, 20.0, 20.0), 5)]


def test_a_still_tray_missing_a_die_is_read_again_for_it() -> None:
    image = np.zeros((300, 400, 3), np.uint8)
    zones = DiceZones(np.array([[50, 50], [300, 50], [300, 250], [50, 250]], np.float32),
                      np.array([[50, 0], [300, 0], [300, 50], [50, 50]], np.float32))
    reader = SecondLookFinds()
    found = read_still_tray(reader, image, zones)
    # the die read first keeps its reading; the one found looking again joins it, once
    assert [(d.box, d.value) for d in found] == [((100.0, 100.0, 20.0, 20.0), 3),
                                                 ((200.0, 150.0, 20.0, 20.0), 5)]
