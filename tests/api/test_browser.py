"""The station and the overlay in a real browser (Debian's chromium driven by Playwright):
a replayed game's flags appear at the station, a judge's click decides one and the decision
reaches the record; the overlay follows the table's events. Screenshots are kept under the
test's folder (artifacts/)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from api.app import create_app
from api.settings import Settings
from tests.api.conftest import Game
from tests.knocked import knock_camera

CHROMIUM = Path("/usr/bin/chromium")
sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium is not installed")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, uvicorn.Server]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(Settings(tmp_path / "referee.db"))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", server
    server.should_exit = True
    thread.join(timeout=10)


def _register(base: str, judge: str, video: Path,
              calibration: dict[str, Any]) -> tuple[httpx.Client, dict[str, Any]]:
    """A judge's API client, and the table it registered for `video` (replayed unpaced)."""
    api = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {judge}"})
    table = api.post("/api/tables", json={"name": "Table 1", "source": str(video),
                                          "calibration": calibration, "paced": False}).json()
    return api, table


def test_a_flag_decided_at_the_station_reaches_the_record(
        server: tuple[str, uvicorn.Server], game: Game, tmp_path: Path) -> None:
    base, running = server
    store = running.config.app.state.store
    judge, viewer = store.make_token("Anna", "judge"), store.make_token("overlay", "viewer")
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    api, table = _register(base, judge, game.video, game.calibration)

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        overlay = browser.new_page(viewport={"width": 700, "height": 400})
        overlay.goto(f"{base}/overlay/{table['id']}?token={viewer}")
        overlay.wait_for_selector("#board svg")
        api.post(f"/api/tables/{table['id']}/start")

        station = browser.new_page(viewport={"width": 1400, "height": 900})
        station.goto(f"{base}/station?token={judge}")
        station.locator(".alert").first.wait_for()
        # That alert by its key: a newer one prepended meanwhile is not the one decided.
        key = station.locator(".alert").first.get_attribute("data-key")
        alert = station.locator(f'.alert[data-key="{key}"]')
        station.screenshot(path=str(artifacts / "station-flag.png"))
        alert.locator("button.accept").click()
        station.locator(f'.alert.decided[data-key="{key}"]').wait_for()
        station.screenshot(path=str(artifacts / "station-decided.png"))

        deadline = time.monotonic() + 30
        while api.get(f"/api/tables/{table['id']}").json()["state"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        last_seq = api.get(f"/api/tables/{table['id']}/state").json()["last_seq"]
        overlay.wait_for_function(f"document.body.dataset.seq === '{last_seq}'")
        drawn_at = float(overlay.evaluate("document.body.dataset.drawnAt")) / 1000
        stored_at = api.get(f"/api/tables/{table['id']}/events",
                            params={"since": last_seq - 1}).json()[0]["received_at"]
        background = overlay.evaluate("getComputedStyle(document.body).backgroundColor")
        overlay.screenshot(path=str(artifacts / "overlay.png"), omit_background=True)

        # Calibrating by the field's corners, clicked on the camera's frame.
        station.get_by_role("button", name="Timeline & calibration").click()
        station.locator("#timeline li").first.wait_for()
        station.get_by_role("button", name="Show the camera frame").click()
        station.wait_for_function("document.getElementById('frame').width > 300")
        frame = station.locator("#frame")
        box = frame.bounding_box()
        assert box is not None
        scale = box["width"] / game.calibration["image_size"][0]
        for x, y in game.calibration["corners"]:
            frame.click(position={"x": x * scale, "y": y * scale})
        station.get_by_role("button", name="Save the corners").click()
        station.get_by_text("calibrated", exact=True).wait_for()
        # And the dice zones, outlined point by point.
        station.evaluate("document.getElementById('calibration-status').textContent = ''")
        for zone in ("tray", "box"):
            station.select_option("#click-what", zone)
            for x, y in game.calibration["dice_zones"][zone]:
                frame.click(position={"x": x * scale, "y": y * scale})
        station.fill("#tray-length", "260")  # the tray's floor: its view is measured too
        station.fill("#tray-width", "220")
        station.get_by_role("button", name="Save the dice zones").click()
        station.get_by_text("calibrated", exact=True).wait_for()
        station.screenshot(path=str(artifacts / "station-calibrated.png"), full_page=True)

        # A viewer's token made at the station, shown once, then revoked.
        station.get_by_text("Access tokens").click()
        station.fill("#token-name", "stream PC")
        station.get_by_role("button", name="Make a token").click()
        station.get_by_text("viewer token for stream PC", exact=False).wait_for()
        made = station.locator("#new-token-shown").inner_text().split(": ")[1].split(".")[0]
        station.on("dialog", lambda dialog: dialog.accept())
        station.locator("#tokens tr", has_text="stream PC").get_by_role(
            "button", name="Revoke").click()
        station.locator("#tokens tr", has_text="stream PC").get_by_text("revoked").wait_for()

        # A new table, to be calibrated by clicks before it starts.
        station.get_by_text("Add a table").click()
        station.fill("#table-name", "Table 2")
        station.fill("#table-source", str(game.video))
        station.get_by_role("button", name="Add the table").click()
        station.get_by_text("Table 2 added", exact=False).wait_for()
        assert station.locator("article.table").count() == 2
        browser.close()

    assert background == "rgba(0, 0, 0, 0)"
    # The bar is 200 ms; a loaded test machine gets some slack.
    assert drawn_at - stored_at < 1.0, f"the overlay drew {drawn_at - stored_at:.3f} s late"
    record = api.get(f"/api/tables/{table['id']}/record").json()
    assert record["decisions"][0]["judge"] == "Anna"
    assert "judge: accepted by Anna" in record["notation"]
    calibration = store.table(table["id"]).calibration
    for name, clicked, true in (
            ("corners", calibration["corners"], game.calibration["corners"]),
            ("tray", calibration["dice_zones"]["tray"], game.calibration["dice_zones"]["tray"]),
            ("box", calibration["dice_zones"]["box"], game.calibration["dice_zones"]["box"])):
        assert len(clicked) == len(true), name
        assert all(abs(a - b) < 2 for point, truth in zip(clicked, true, strict=True)
                   for a, b in zip(point, truth, strict=True)), name
    assert calibration["dice_zones"]["tray_mm"] == [260, 220]
    assert len(calibration["dice_zones"]["view"]["up"]) == 3
    assert store.token_holder(made) is None, "the token revoked at the station"
    assert all((artifacts / name).stat().st_size > 0 for name in (
        "station-flag.png", "station-decided.png", "overlay.png", "station-calibrated.png"))


def test_a_knocked_camera_is_an_alert_with_nothing_to_decide(
        server: tuple[str, uvicorn.Server], game: Game, tmp_path: Path) -> None:
    base, running = server
    judge = running.config.app.state.store.make_token("Anna", "judge")
    truth = [json.loads(line) for line in (game.video.parent / "events.jsonl").open()]
    knocked = next(e["frame"] for e in truth if e["event"] == "clock_press") + 10
    knock_camera(game.video, tmp_path / "knocked.avi", knocked, 20, 10)
    api, table = _register(base, judge, tmp_path / "knocked.avi", game.calibration)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        station = browser.new_page(viewport={"width": 1400, "height": 900})
        station.goto(f"{base}/station?token={judge}")
        station.locator("article.table").first.wait_for()
        api.post(f"/api/tables/{table['id']}/start")
        notice = station.locator(".alert.notice", has_text="camera moved since its calibration")
        notice.wait_for()
        assert notice.locator("button").count() == 0
        # The table stays marked, a reload of the page too.
        station.reload()
        station.locator("article.table", has_text="calibrate the table again").wait_for()
        station.screenshot(path=str(tmp_path / "station-knocked.png"))
        browser.close()
