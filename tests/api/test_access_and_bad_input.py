"""Tokens and roles, and bad input: clear errors, and the service goes on."""

from __future__ import annotations

import json
import socket

import pytest

from tests.api.conftest import Game, Service


def test_no_token_is_401_and_a_viewer_cannot_write(service: Service, game: Game) -> None:
    table = service.register(game)
    assert service.client.get("/api/tables").status_code == 401
    bad = {"Authorization": "Bearer not-a-token"}
    assert service.client.get("/api/tables", headers=bad).status_code == 401
    assert service.client.get("/api/tables", headers=service.viewer).status_code == 200
    assert service.client.get("/api/tables", params={"token": service.viewer_token}
                              ).status_code == 200
    forbidden = service.client.post(f"/api/tables/{table['id']}/start", headers=service.viewer)
    assert forbidden.status_code == 403
    # A token in the query string or a cookie reads, never writes.
    assert service.client.post(f"/api/tables/{table['id']}/start",
                               params={"token": service.judge_token}).status_code == 401
    assert service.client.get(f"/api/tables/{table['id']}", headers=service.viewer
                              ).json()["state"] == "registered"


def test_malformed_requests(service: Service, game: Game) -> None:
    post = service.client.post
    broken = post("/api/tables", headers={**service.judge, "Content-Type": "application/json"},
                  content=b"{not json")
    assert broken.status_code == 422
    assert post("/api/tables", headers=service.judge, json={"name": "x"}).status_code == 422
    no_corners = {k: v for k, v in game.calibration.items() if k != "corners"}
    unusable = post("/api/tables", headers=service.judge, json={
        "name": "x", "source": str(game.video), "calibration": no_corners})
    assert unusable.status_code == 422 and "corners" in str(unusable.json()["detail"])
    turned = {**game.calibration, "layout": {"white_point1": "middle"}}
    unusable = post("/api/tables", headers=service.judge, json={
        "name": "x", "source": str(game.video), "calibration": turned})
    assert unusable.status_code == 422 and "unusable calibration" in unusable.json()["detail"]
    missing = post("/api/tables", headers=service.judge, json={
        "name": "x", "source": "/no/such/video.mp4", "calibration": game.calibration})
    assert missing.status_code == 422 and "no such video" in missing.json()["detail"]
    assert service.client.get("/api/tables/999/state", headers=service.viewer
                              ).status_code == 404
    table = service.register(game)
    assert post(f"/api/tables/{table['id']}/flags/0/decision", headers=service.judge,
                json={"decision": "maybe"}).status_code == 422
    assert post(f"/api/tables/{table['id']}/overrides", headers=service.judge,
                json={"kind": "dice", "value": [7, 1]}).status_code == 422
    assert post(f"/api/tables/{table['id']}/overrides", headers=service.judge,
                json={"kind": "position", "value": {"variant": "long"}}).status_code == 422
    assert service.client.get("/api/tables", headers=service.viewer).status_code == 200


def test_a_camera_that_does_not_answer(service: Service, game: Game) -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    table = service.register(game, source=f"http://127.0.0.1:{port}/camera.mjpg")
    started = service.client.post(f"/api/tables/{table['id']}/start", headers=service.judge)
    assert started.status_code == 422 and "cannot open" in started.json()["detail"]
    after = service.client.get(f"/api/tables/{table['id']}", headers=service.viewer).json()
    assert after["state"] == "error" and "cannot open" in after["error"]
    assert service.client.get(f"/api/tables/{table['id']}/frame.jpg",
                              headers=service.viewer).status_code == 422
    # The rest of the service goes on: another table still runs.
    other = service.register(game, "table 2")
    assert service.client.post(f"/api/tables/{other['id']}/start", headers=service.judge
                               ).status_code == 200
    assert service.wait_state(other["id"], ("finished",))["state"] == "finished"


def test_a_tray_cameras_view_and_size_are_kept_and_checked() -> None:
    from pydantic import ValidationError

    from api.models import TableIn

    tray = [[210, 100], [180, 390], [440, 410], [450, 120]]
    zones = {"tray": tray, "box": [[390, 115], [400, 0], [270, 0], [270, 107]],
             "tray_mm": [260, 220],
             "view": {"intrinsics": [[579.4, 0, 320], [0, 579.4, 240], [0, 0, 1]],
                      "up": [0, -0.145, -0.989]}}
    table = {"name": "t", "source": "0", "tray_source": "1",
             "tray_calibration": {"image_size": [640, 480], "dice_zones": zones}}
    kept = TableIn.model_validate(table).tray_calibration
    assert kept is not None
    stored = json.loads(json.dumps(kept.model_dump(exclude_unset=True)))  # as the store keeps it
    assert stored["dice_zones"] == zones
    for broken in ({"tray_mm": [260, -1]}, {"tray": [*tray, [300, 300]]},
                   {"view": {"intrinsics": [[1, 0, 0]], "up": [0, 0, 1]}}):
        with pytest.raises(ValidationError):
            TableIn.model_validate({**table, "tray_calibration": {
                "image_size": [640, 480], "dice_zones": {**zones, **broken}}})
