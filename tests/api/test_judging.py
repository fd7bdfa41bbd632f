"""A judge's overrides and the calibration of a table by its corners."""

from __future__ import annotations

from tests.api.conftest import Game, Service


def test_a_position_override_is_the_live_position(service: Service, game: Game) -> None:
    table = service.register(game)
    position = {"variant": "long", "turn": "black", "white": {"24": 14, "18": 1},
                "black": {"24": 15}}
    made = service.client.post(f"/api/tables/{table['id']}/overrides", headers=service.judge,
                               json={"kind": "position", "value": position, "note": "seen"})
    assert made.status_code == 201, made.text
    assert made.json()["event"]["judge"] == "Anna"
    state = service.client.get(f"/api/tables/{table['id']}/state", headers=service.viewer)
    assert state.json()["position"] == position and state.json()["mover"] == "black"
    dice = service.client.post(f"/api/tables/{table['id']}/overrides", headers=service.judge,
                               json={"kind": "dice", "value": [6, 5]})
    assert dice.status_code == 201 and dice.json()["event"]["value"] == [6, 5]


def test_calibrating_by_the_corners_of_a_frame(service: Service, game: Game) -> None:
    table = service.register(game)
    frame = service.client.get(f"/api/tables/{table['id']}/frame.jpg", headers=service.viewer)
    assert frame.status_code == 200 and frame.content[:2] == b"\xff\xd8"
    corners = [[x + 1, y + 1] for x, y in game.calibration["corners"]]
    made = service.client.post(f"/api/tables/{table['id']}/calibration/corners",
                               headers=service.judge, json={"corners": corners})
    assert made.status_code == 200, made.text
    stored = service.app.state.store.table(table["id"]).calibration
    assert stored["corners"] == corners and stored["dice_zones"] == game.calibration["dice_zones"]
    crossed = [corners[0], corners[2], corners[1], corners[3]]
    refused = service.client.post(f"/api/tables/{table['id']}/calibration/corners",
                                  headers=service.judge, json={"corners": crossed})
    assert refused.status_code == 422
