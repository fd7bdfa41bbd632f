"""How many live tables the service sustains, and how soon their events reach WebSocket clients.

    python -m bench.service_load [--tables 16] [--clients 4] [--seconds 60] [--games-dir DIR]

Starts `nardy-referee serve` in its own process on a fresh database, registers `--tables`
tables replaying generated game videos at their own pace (as cameras would deliver them),
connects `--clients` WebSocket clients to the stream of every table, and for `--seconds`
measures:

- events/s: events the service stored and broadcast;
- latency: from the service storing an event to a client receiving it (one machine, one
  clock), as percentiles over every event and client;
- lag: how far the referee runs behind the video, per event: the wall time since its table
  started less the video time of the frame that decided the event (`decided`; what the
  rules make the referee wait for, such as a move confirmed at the clock press, is not lag).
  A lag that grows through the run means the machine does not keep up with that many tables.

Prints one JSON line of figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import websockets

from api.store import Store
from referee.cli import main as referee_cli

GAME_SEEDS = (101, 102, 103, 104)  # distinct videos, shared by the tables in turn


def make_games(folder: Path) -> list[Path]:
    videos = []
    for seed in GAME_SEEDS:
        out = folder / f"game-{seed}"
        if not (out / "game.mp4").is_file():
            with contextlib.redirect_stdout(io.StringIO()):
                referee_cli(["synth", "game", "--variant", "long" if seed % 2 else "short",
                             "--out", str(out), "--seed", str(seed), "--max-turns", "12",
                             "--inject", "random", "--size", "640x360"])
        videos.append(out / "game.mp4")
    return videos


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def client(url: str, until: float, received: list[tuple[float, dict[str, Any]]]) -> None:
    async with websockets.connect(url, max_queue=None) as stream:
        while (left := until - time.time()) > 0:
            try:
                message = await asyncio.wait_for(stream.recv(), left)
            except TimeoutError:
                return
            received.append((time.time(), json.loads(message)))


async def run(args: argparse.Namespace, base: str, token: str, videos: list[Path]
              ) -> dict[str, Any]:
    received: list[list[tuple[float, dict[str, Any]]]] = [[] for _ in range(args.clients)]
    until = time.time() + args.seconds
    ws_url = f"ws://{base.removeprefix('http://')}/ws/tables?token={token}"
    clients = [asyncio.create_task(client(ws_url, until, got)) for got in received]
    await asyncio.sleep(0.5)  # the clients connected before the first event
    started: dict[int, float] = {}
    async with httpx.AsyncClient(base_url=base, timeout=30,
                                 headers={"Authorization": f"Bearer {token}"}) as api:
        for number in range(args.tables):
            video = videos[number % len(videos)]
            calibration = json.loads((video.parent / "calibration.json").read_text())
            table = (await api.post("/api/tables", json={
                "name": f"table {number + 1}", "source": str(video),
                "calibration": calibration, "paced": True})).json()
            started[table["id"]] = time.time()
            await api.post(f"/api/tables/{table['id']}/start")
    await asyncio.gather(*clients)
    return figures(received, started, args.seconds)


def figures(received: list[list[tuple[float, dict[str, Any]]]], started: dict[int, float],
            seconds: float) -> dict[str, Any]:
    latency = [(at - m["received_at"]) * 1000 for got in received for at, m in got]
    lags = [m["received_at"] - started[m["table_id"]] - m["event"]["decided"]
            for at, m in received[0] if "decided" in m["event"]]
    events = len(received[0])

    def percentiles(values: list[float]) -> dict[str, float]:
        if not values:
            return {}
        found = np.percentile(values, [50, 90, 99, 100])
        return {name: round(float(v), 1) for name, v in zip(("p50", "p90", "p99", "max"),
                                                              found, strict=True)}

    return {"tables": len(started), "clients": len(received), "seconds": seconds,
            "events": events, "events_per_s": round(events / seconds, 2),
            "messages_per_client": [len(got) for got in received],
            "latency_ms": percentiles(latency), "lag_s": percentiles(lags),
            "lag_last_s": round(lags[-1], 2) if lags else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--games-dir", type=Path,
                        default=Path(tempfile.gettempdir()) / "nardy-bench-games")
    args = parser.parse_args()
    videos = make_games(args.games_dir)
    with tempfile.TemporaryDirectory(prefix="service-load-") as folder:
        db = Path(folder) / "referee.db"
        store = Store(db)
        token = store.make_token("bench", "judge")
        store.close()
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "serve", "--db", str(db), "--port",
             str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{base}/api/tables", params={"token": token}).is_success:
                        break
                time.sleep(0.1)
            print(json.dumps(asyncio.run(run(args, base, token, videos))))
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
