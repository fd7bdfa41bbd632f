"""Tokens and roles, and bad input: clear errors, and the service goes on."""

from __future__ import annotations

import socket

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
