"""A generated game replayed into a table: its events stored and streamed, its record, the
service restarted on the same database, and a table's process lost."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.store import Store
from synth.game.score import score
from synth.light import Light, relight_video
from tests.api.conftest import Game, Service
from tests.knocked import knock_camera
from tests.referee.test_review import split_cameras


@pytest.mark.parametrize("table_processes", [True, False], ids=["process", "thread"])
def test_a_replayed_game_reaches_the_record(make_service: Callable[..., Service], game: Game,
                                            table_processes: bool) -> None:
    service = make_service(table_processes=table_processes)
    table = service.register(game)
    started = service.client.post(f"/api/tables/{table['id']}/start", headers=service.judge)
    assert started.status_code == 200, started.text
    assert service.wait_state(table["id"], ("finished", "error"))["state"] == "finished"

    events = service.client.get(f"/api/tables/{table['id']}/events",
                                headers=service.viewer).json()
    kinds = [e["event"]["event"] for e in events]
    assert kinds[0] == "table_start" and "illegal_move" in kinds and "move" in kinds
    assert [e["seq"] for e in events] == list(range(len(events)))

    state = service.client.get(f"/api/tables/{table['id']}/state", headers=service.viewer).json()
    assert state["open_flags"] and state["open_flags"][0]["event"] == "illegal_move"
    assert state["pips"]["white"] + state["pips"]["black"] < 2 * 15 * 24
    flag = state["open_flags"][-1]["seq"]

    decided = service.client.post(f"/api/tables/{table['id']}/flags/{flag}/decision",
                                  headers=service.judge, json={"decision": "accept"})
    assert decided.status_code == 201, decided.text
    assert decided.json()["event"]["judge"] == "Anna"
    again = service.client.post(f"/api/tables/{table['id']}/flags/{flag}/decision",
                                headers=service.judge, json={"decision": "correct"})
    assert again.status_code == 409

    record = service.client.get(f"/api/tables/{table['id']}/record",
                                headers=service.viewer).json()
    assert len(record["record"]["turns"]) >= 3
    assert "judge: accepted by Anna" in record["notation"]
    assert record["decisions"][0]["flag_seq"] == flag

    svg = service.client.get(f"/api/tables/{table['id']}/board.svg", headers=service.viewer)
    assert svg.headers["content-type"].startswith("image/svg+xml") and "<svg" in svg.text
    still = state["open_flags"][0]["detail"]["evidence"]["still"]
    image = service.client.get(f"/api/tables/{table['id']}/files/{still}",
                               headers=service.viewer)
    assert image.status_code == 200 and image.content[:2] == b"\xff\xd8"


def test_events_survive_a_restart(make_service: Callable[..., Service], game: Game) -> None:
    first = make_service()
    table = first.register(game)
    first.client.post(f"/api/tables/{table['id']}/start", headers=first.judge)
    first.wait_state(table["id"], ("finished",))
    before = first.client.get(f"/api/tables/{table['id']}/events", headers=first.viewer).json()

    second = make_service()
    after = second.client.get(f"/api/tables/{table['id']}/events", headers=second.viewer).json()
    assert after == before
    log = second.client.get(f"/api/tables/{table['id']}/events.jsonl", headers=second.viewer)
    assert log.text.count("\n") == len(before)


def test_a_restarted_service_resumes_its_running_table(
        make_service: Callable[..., Service], game: Game) -> None:
    """Cut off after the first move, the replay resumes from it and ends with the events an
    uninterrupted replay has, none twice."""
    whole = make_service()
    reference = whole.register(game, "uninterrupted")
    whole.client.post(f"/api/tables/{reference['id']}/start", headers=whole.judge)
    whole.wait_state(reference["id"], ("finished",))

    first = make_service(replay_speed=4.0)
    table = first.register(game, paced=True)
    first.client.post(f"/api/tables/{table['id']}/start", headers=first.judge)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any(
            e["event"]["event"] == "move" for e in first.client.get(
                f"/api/tables/{table['id']}/events", headers=first.viewer).json()):
        time.sleep(0.1)

    second = make_service(replay_speed=100.0)
    assert second.wait_state(table["id"], ("finished", "error"))["state"] == "finished"

    def decided(table_id: int) -> list[tuple[str, int]]:
        events = second.client.get(f"/api/tables/{table_id}/events",
                                   headers=second.viewer).json()
        return sorted((e["event"]["event"], e["event"]["frame"]) for e in events
                      if "frame" in e["event"])  # the referee's, not the service's

    resumed = second.client.get(f"/api/tables/{table['id']}/events",
                                headers=second.viewer).json()
    assert sum(e["event"]["event"] == "table_start" for e in resumed) == 2
    assert decided(table["id"]) == decided(reference["id"])


def test_a_table_whose_process_dies_is_marked_in_error_and_the_others_go_on(
        service: Service, game: Game) -> None:
    doomed = service.register(game, "doomed", paced=True)
    other = service.register(game, "other")
    assert service.client.post(f"/api/tables/{doomed['id']}/start",
                               headers=service.judge).json()["state"] == "running"
    process = next(p for p in multiprocessing.active_children()
                   if p.name == f"table-{doomed['id']}")
    os.kill(process.pid or 0, signal.SIGKILL)
    failed = service.wait_state(doomed["id"], ("error",))
    assert failed["state"] == "error" and "process ended" in failed["error"]
    stops = [e["event"] for e in service.client.get(
        f"/api/tables/{doomed['id']}/events", headers=service.viewer).json()
        if e["event"]["event"] == "table_stop"]
    assert stops[-1]["state"] == "error"
    service.client.post(f"/api/tables/{other['id']}/start", headers=service.judge)
    assert service.wait_state(other["id"], ("finished", "error"))["state"] == "finished"


def test_a_table_with_a_camera_for_the_tray(service: Service, game: Game,
                                            tmp_path: Path) -> None:
    board_calibration, tray_calibration = split_cameras(game.video.parent, tmp_path)
    table = {"name": "two cameras", "source": str(tmp_path / "board.avi"),
             "calibration": json.loads(board_calibration.read_text()), "paced": False,
             "tray_source": str(tmp_path / "tray.avi"),
             "tray_calibration": json.loads(tray_calibration.read_text())}
    post = service.client.post
    assert post("/api/tables", headers=service.judge,
                json={**table, "tray_calibration": None}).status_code == 422
    mixed = post("/api/tables", headers=service.judge, json={**table, "tray_source": "0"})
    assert mixed.status_code == 422 and "both" in mixed.json()["detail"]
    made = post("/api/tables", headers=service.judge, json=table)
    assert made.status_code == 201, made.text
    assert made.json()["tray_source"] == table["tray_source"]
    table_id = made.json()["id"]
    post(f"/api/tables/{table_id}/start", headers=service.judge)
    assert service.wait_state(table_id, ("finished", "error"))["state"] == "finished"
    seen = [e["event"] for e in service.client.get(
        f"/api/tables/{table_id}/events?limit=1000", headers=service.viewer).json()]
    truth = [json.loads(line) for line in (game.video.parent / "events.jsonl").open()]
    result = score(truth, seen)
    assert result.turns_right == result.turns > 0, (result.missed, result.false_flags)


def descendants(pid: int) -> set[int]:
    """The processes below `pid` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_table_processes_end_with_a_killed_service(game: Game, tmp_path: Path) -> None:
    """A service killed outright leaves no table refereeing on its own (holding a camera)."""
    db = tmp_path / "referee.db"
    store = Store(db)
    token = store.make_token("Anna", "judge")
    row = store.add_table("table", str(game.video), game.calibration, "long", paced=True)
    store.set_state(row.id, "running")  # resumed when the service starts
    store.close()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "--db", str(db),
                               "--port", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(
                "table_start" in e.get("event", {}).get("event", "") for e in _events(port, token)):
            time.sleep(0.2)
        tables = descendants(server.pid)
        assert tables, "the table runs in a process of its own"
    finally:
        server.kill()
        server.wait(timeout=10)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in tables):
        time.sleep(0.2)
    left = [pid for pid in tables if Path(f"/proc/{pid}/stat").exists()
            and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"]
    assert not left, f"processes left running: {left}"


def _events(port: int, token: str) -> list[dict[str, Any]]:
    try:
        answer = httpx.get(f"http://127.0.0.1:{port}/api/tables/1/events",
                           headers={"Authorization": f"Bearer {token}"}, timeout=2)
    except httpx.HTTPError:
        return []
    events: list[dict[str, Any]] = answer.json() if answer.is_success else []
    return events


def test_a_knocked_camera_is_shown_until_the_table_is_calibrated_again(
        service: Service, game: Game, tmp_path: Path) -> None:
    truth = [json.loads(line) for line in (game.video.parent / "events.jsonl").open()]
    knocked = next(e["frame"] for e in truth if e["event"] == "clock_press") + 10
    knock_camera(game.video, tmp_path / "knocked.avi", knocked, 20, 10)
    table = service.register(game, source=str(tmp_path / "knocked.avi"))
    service.client.post(f"/api/tables/{table['id']}/start", headers=service.judge)
    assert service.wait_state(table["id"], ("finished", "error"))["state"] == "finished"
    state = service.client.get(f"/api/tables/{table['id']}/state", headers=service.viewer).json()
    assert state["camera_moved"] and ("moved by" in state["camera_moved"]
                                      or "no longer where" in state["camera_moved"])
    kinds = [e["event"]["event"] for e in service.client.get(
        f"/api/tables/{table['id']}/events", headers=service.viewer).json()]
    assert kinds.count("camera_moved") == 1
    # Started again (as a new calibration restarts it): the camera is judged afresh.
    service.client.post(f"/api/tables/{table['id']}/start", headers=service.judge)
    assert service.wait_state(table["id"], ("finished", "error"))["state"] == "finished"
    state = service.client.get(f"/api/tables/{table['id']}/state", headers=service.viewer).json()
    assert state["camera_moved"] is None


def test_a_camera_seeing_the_light_flicker_in_bands_is_told_to_the_station(
        service: Service, game: Game, tmp_path: Path) -> None:
    # A rolling shutter under mains light beating against it: the game is read as under a
    # steady light, and the station is told once to set the camera's anti-flicker.
    video = tmp_path / "banded.mp4"
    video.write_bytes(game.video.read_bytes())
    relight_video(video, Light(flicker=0.08, phase=1.0, readout=0.03))
    table = service.register(game, source=str(video))
    service.client.post(f"/api/tables/{table['id']}/start", headers=service.judge)
    assert service.wait_state(table["id"], ("finished", "error"))["state"] == "finished"
    state = service.client.get(f"/api/tables/{table['id']}/state", headers=service.viewer).json()
    assert state["camera_flicker"] and "anti-flicker" in state["camera_flicker"]
    seen = [e["event"] for e in service.client.get(
        f"/api/tables/{table['id']}/events?limit=1000", headers=service.viewer).json()]
    assert [e["event"] for e in seen].count("camera_flicker") == 1
    truth = [json.loads(line) for line in (game.video.parent / "events.jsonl").open()]
    result = score(truth, seen)
    assert result.turns_right == result.turns > 0, (result.missed, result.false_flags)
