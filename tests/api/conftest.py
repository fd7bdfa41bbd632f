"""Fixtures of the service's tests: a tiny generated game, and a service on a fresh database
with a judge's and a viewer's token."""

from __future__ import annotations

import contextlib
import io
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.app import create_app
from api.settings import Settings
from referee.cli import main as referee_cli


@dataclass(frozen=True)
class Game:
    video: Path
    calibration: dict[str, Any]


@pytest.fixture(scope="session")
def game(tmp_path_factory: pytest.TempPathFactory) -> Game:
    """A 17-second long-nardy game with three illegal moves (one corrected), at 640x360, made
    in about 2 s."""
    out = tmp_path_factory.mktemp("game")
    with contextlib.redirect_stdout(io.StringIO()):
        code = referee_cli(["synth", "game", "--variant", "long", "--out", str(out), "--seed",
                            "2", "--max-turns", "4", "--inject", "illegal", "--size", "640x360",
                            "--tempo", "0.5"])
    assert code == 0
    return Game(out / "game.mp4", json.loads((out / "calibration.json").read_text()))


@dataclass
class Service:
    app: FastAPI
    client: TestClient
    judge: dict[str, str]  # the headers of a judge's requests
    viewer: dict[str, str]
    judge_token: str
    viewer_token: str

    def register(self, game: Game, name: str = "table 1", paced: bool = False,
                 source: str | None = None) -> dict[str, Any]:
        response = self.client.post("/api/tables", headers=self.judge, json={
            "name": name, "source": source or str(game.video),
            "calibration": game.calibration, "paced": paced})
        assert response.status_code == 201, response.text
        table: dict[str, Any] = response.json()
        return table

    def wait_state(self, table_id: int, states: tuple[str, ...], timeout: float = 30.0
                   ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            table: dict[str, Any] = self.client.get(f"/api/tables/{table_id}",
                                                    headers=self.viewer).json()
            if table["state"] in states or time.monotonic() > deadline:
                return table
            time.sleep(0.1)


@pytest.fixture
def make_service(tmp_path: Path) -> Iterator[Callable[..., Service]]:
    """Start a service on the test's database; a second call is the service restarted."""
    started: list[contextlib.ExitStack] = []

    def make(replay_speed: float = 1.0, table_processes: bool = True) -> Service:
        for stack in started:
            stack.close()
        app = create_app(Settings(tmp_path / "referee.db", replay_speed=replay_speed,
                                  table_processes=table_processes))
        stack = contextlib.ExitStack()
        client = stack.enter_context(TestClient(app))
        started.append(stack)
        judge = app.state.store.make_token("Anna", "judge")
        viewer = app.state.store.make_token("overlay", "viewer")
        return Service(app, client, {"Authorization": f"Bearer {judge}"},
                       {"Authorization": f"Bearer {viewer}"}, judge, viewer)

    yield make
    for stack in started:
        stack.close()


@pytest.fixture
def service(make_service: Callable[..., Service]) -> Service:
    return make_service()
