"""The WebSocket stream of a replayed table, and review jobs from upload to report."""

from __future__ import annotations

import json
import time

import pytest
from starlette.websockets import WebSocketDisconnect

from tests.api.conftest import Game, Service


def test_a_websocket_receives_a_replayed_tables_events(service: Service, game: Game) -> None:
    table = service.register(game)
    path = f"/ws/tables/{table['id']}?token={service.viewer_token}"
    with service.client.websocket_connect(path) as socket, \
            service.client.websocket_connect(f"/ws/tables?token={service.viewer_token}") as every:
        service.client.post(f"/api/tables/{table['id']}/start", headers=service.judge)
        received = [socket.receive_json()]
        while received[-1]["event"]["event"] != "move":
            received.append(socket.receive_json())
        assert every.receive_json()["table_id"] == table["id"]
    assert [m["seq"] for m in received] == list(range(len(received)))
    assert received[0]["event"]["event"] == "table_start"
    assert all(m["received_at"] <= time.time() for m in received)
    # A client that reconnects catches up from the seq it last saw.
    service.wait_state(table["id"], ("finished",))
    with service.client.websocket_connect(f"{path}&since={received[-1]['seq']}") as socket:
        assert socket.receive_json()["seq"] == received[-1]["seq"] + 1


def test_a_websocket_needs_a_token(service: Service, game: Game) -> None:
    with pytest.raises(WebSocketDisconnect) as refused, \
            service.client.websocket_connect("/ws/tables?token=wrong") as socket:
        socket.receive_json()
    assert refused.value.code == 4401


def test_a_review_job_from_upload_to_report(service: Service, game: Game) -> None:
    calibration = json.dumps(game.calibration).encode()
    not_a_video = service.client.post("/api/reviews", headers=service.judge, files={
        "video": ("match.mp4", b"this is not a video", "video/mp4"),
        "calibration": ("calibration.json", calibration, "application/json")})
    assert not_a_video.status_code == 422 and "not a video" in not_a_video.json()["detail"]
    with game.video.open("rb") as video:
        uploaded = service.client.post("/api/reviews", headers=service.judge, files={
            "video": ("match.mp4", video, "video/mp4"),
            "calibration": ("calibration.json", calibration, "application/json")})
    assert uploaded.status_code == 201, uploaded.text
    job = uploaded.json()
    deadline = time.monotonic() + 30
    while job["state"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        job = service.client.get(f"/api/reviews/{job['id']}", headers=service.viewer).json()
    assert job["state"] == "done" and job["summary"]["complete"], job
    assert job["frames_done"] == job["summary"]["frames"]
    report = service.client.get(f"/api/reviews/{job['id']}/files/report.html",
                                headers=service.viewer)
    assert report.status_code == 200 and "<html" in report.text.lower()
    assert service.client.get(f"/api/reviews/{job['id']}/files/%2E%2E/%2E%2E/referee.db",
                              headers=service.viewer).status_code == 404
    # The refused upload left nothing behind.
    assert [r["id"] for r in service.client.get("/api/reviews", headers=service.viewer).json()
            ] == [job["id"]]
