"""Judges list, make and revoke tokens; a revoked token reads and writes nothing, and its
open streams close."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from api.store import Store
from referee.cli import main
from tests.api.conftest import Game, Service


def test_a_judge_makes_lists_and_revokes_tokens(service: Service) -> None:
    made = service.client.post("/api/tokens", headers=service.judge,
                               json={"name": "stream PC", "role": "viewer"})
    assert made.status_code == 201, made.text
    new = made.json()
    assert new["role"] == "viewer" and new["revoked_at"] is None
    fresh = {"Authorization": f"Bearer {new['token']}"}
    assert service.client.get("/api/tables", headers=fresh).status_code == 200

    listed = service.client.get("/api/tokens", headers=service.judge).json()
    assert [t["name"] for t in listed] == ["Anna", "overlay", "stream PC"]
    assert all("token" not in t for t in listed), "a token is shown only when made"

    revoked = service.client.delete(f"/api/tokens/{new['id']}", headers=service.judge)
    assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
    assert service.client.get("/api/tables", headers=fresh).status_code == 401
    # Still listed, so the record of who could act stays whole.
    listed = service.client.get("/api/tokens", headers=service.judge).json()
    assert [t["revoked_at"] is not None for t in listed] == [False, False, True]


def test_only_judges_manage_tokens(service: Service) -> None:
    assert service.client.get("/api/tokens", headers=service.viewer).status_code == 403
    assert service.client.post("/api/tokens", headers=service.viewer,
                               json={"name": "me", "role": "judge"}).status_code == 403
    assert service.client.get("/api/tokens").status_code == 401
    bad_role = service.client.post("/api/tokens", headers=service.judge,
                                   json={"name": "x", "role": "admin"})
    assert bad_role.status_code == 422
    assert service.client.delete("/api/tokens/000000000000",
                                 headers=service.judge).status_code == 404


def test_the_last_judge_cannot_lock_everyone_out(service: Service) -> None:
    anna = service.client.get("/api/tokens", headers=service.judge).json()[0]
    refused = service.client.delete(f"/api/tokens/{anna['id']}", headers=service.judge)
    assert refused.status_code == 409
    boris = service.client.post("/api/tokens", headers=service.judge,
                                json={"name": "Boris", "role": "judge"}).json()
    assert service.client.delete(f"/api/tokens/{anna['id']}",
                                 headers=service.judge).status_code == 200
    assert service.client.get("/api/tokens", headers=service.judge).status_code == 401
    assert service.client.get("/api/tokens", headers={
        "Authorization": f"Bearer {boris['token']}"}).status_code == 200


def test_revoking_closes_the_token_s_open_streams(service: Service, game: Game) -> None:
    table = service.register(game)
    viewer_id = service.client.get("/api/tokens", headers=service.judge).json()[1]["id"]
    with service.client.websocket_connect(
            f"/ws/tables/{table['id']}?token={service.viewer_token}") as socket:
        service.client.delete(f"/api/tokens/{viewer_id}", headers=service.judge)
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 4401


def test_tokens_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    db = tmp_path / "cli.db"
    assert main(["serve", "--db", str(db), "--make-token", "judge", "Boris"]) == 0
    boris = capsys.readouterr().out.strip()
    assert main(["serve", "--db", str(db), "--make-token", "viewer", "screen"]) == 0
    screen = capsys.readouterr().out.strip()
    assert main(["serve", "--db", str(db), "--list-tokens"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert len(listing) == 2 and "Boris" in listing[0] and "viewer" in listing[1]
    screen_id = listing[1].split()[0]
    assert main(["serve", "--db", str(db), "--revoke-token", screen_id]) == 0
    assert main(["serve", "--db", str(db), "--revoke-token", "nosuchtoken0"]) == 2
    assert "no token" in capsys.readouterr().err
    store = Store(db)
    assert store.token_holder(screen) is None
    assert store.token_holder(boris) == ("Boris", "judge")
    store.close()


def test_a_database_from_before_revocation_opens(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    old = sqlite3.connect(db)
    old.execute("CREATE TABLE tokens (hash TEXT PRIMARY KEY, name TEXT NOT NULL, "
                "role TEXT NOT NULL, created_at REAL NOT NULL)")
    old.commit()
    old.close()
    store = Store(db)
    token = store.make_token("Anna", "judge")
    assert store.token_holder(token) == ("Anna", "judge")
    assert store.tokens()[0].revoked_at is None
    store.close()
