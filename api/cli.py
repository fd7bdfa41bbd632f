"""`nardy-referee serve` (the service) and `nardy-referee demo` (the service with replayed
sample tables, for a first look at the station and the overlay)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from api.settings import Settings

if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[Any]

# The demo's tables: variant and seed of each generated game.
DEMO_GAMES = (("long", 11), ("short", 12), ("long", 13), ("short", 14))


def add_commands(commands: Subcommands) -> None:
    serve = commands.add_parser("serve", help="run the referee service (API, station, overlay)")
    _server_options(serve, "referee.db")
    tokens = serve.add_mutually_exclusive_group()
    tokens.add_argument("--make-token", nargs=2, metavar=("ROLE", "NAME"),
                        help="print a new token for NAME (ROLE judge or viewer) and exit")
    tokens.add_argument("--list-tokens", action="store_true",
                        help="list the tokens (id, role, name, made, revoked) and exit")
    tokens.add_argument("--revoke-token", metavar="ID",
                        help="revoke the token with this id (from --list-tokens) and exit")
    serve.set_defaults(run=run_serve)

    demo = commands.add_parser("demo", help="the service with simulated tables replaying "
                               "generated games")
    _server_options(demo, None)
    demo.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "nardy-demo",
                      help="where the sample games are kept (made when absent)")
    demo.add_argument("--tables", type=int, choices=(2, 3, 4), default=3)
    demo.set_defaults(run=run_demo)


def _server_options(parser: argparse.ArgumentParser, db: str | None) -> None:
    parser.add_argument("--db", type=Path, default=None if db is None else Path(db),
                        help="the SQLite database" + (f" (default {db})" if db else
                                                      " (default: a new one)"))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)


def run_serve(args: argparse.Namespace) -> int:
    if args.make_token or args.list_tokens or args.revoke_token:
        return _tokens(args)
    _serve(Settings(args.db), args.host, args.port)
    return 0


def _tokens(args: argparse.Namespace) -> int:
    """The token commands, on the database whether the service runs or not. A token revoked
    here fails its next request; a stream it holds open stays until it reconnects (the API's
    DELETE /api/tokens/ID closes it at once)."""
    from api.store import Conflict, NotFound, Store

    store = Store(args.db)
    try:
        if args.make_token:
            role, name = args.make_token
            print(store.make_token(name, role))
        elif args.list_tokens:
            for row in store.tokens():
                revoked = time.strftime(" revoked %Y-%m-%d %H:%M", time.localtime(
                    row.revoked_at)) if row.revoked_at else ""
                made = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.created_at))
                print(f"{row.id}  {row.role:6}  {row.name}  (made {made}){revoked}")
        else:
            row = store.revoke_token(args.revoke_token)
            print(f"revoked {row.id} ({row.role} {row.name})")
    except (NotFound, Conflict, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        store.close()
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from api.store import Store

    folder: Path = args.dir
    # A fresh database each run, so the sample games play from their start again.
    db: Path = args.db or Path(tempfile.mkdtemp(prefix="nardy-demo-")) / "demo.db"
    games = [make_sample_game(folder / f"{variant}-{seed}", variant, seed)
             for variant, seed in DEMO_GAMES[:args.tables]]
    store = Store(db)
    known = {row.source for row in store.tables()}
    for number, video in enumerate(games, 1):
        if str(video) not in known:
            calibration = json.loads((video.parent / "calibration.json").read_text())
            row = store.add_table(f"Table {number}", str(video), calibration,
                                  str(calibration.get("variant", "long")), paced=True)
            store.set_state(row.id, "running")  # started with the service
    judge, viewer = store.make_token("demo judge", "judge"), store.make_token("demo", "viewer")
    first = store.tables()[0].id
    store.close()
    base = f"http://{args.host}:{args.port}"
    print(f"station: {base}/station?token={judge}")
    print(f"overlay: {base}/overlay/{first}?token={viewer}")
    print(f"judge token: {judge}\nviewer token: {viewer}", flush=True)
    _serve(Settings(db), args.host, args.port)
    return 0


def make_sample_game(out: Path, variant: str, seed: int) -> Path:
    """A generated game with every irregularity, unless `out` holds one already."""
    video = out / "game.mp4"
    if not video.is_file():
        from referee.cli import main

        with contextlib.redirect_stdout(io.StringIO()):
            main(["synth", "game", "--variant", variant, "--out", str(out), "--seed", str(seed),
                  "--max-turns", "8", "--inject", "illegal", "cocked", "stalled", "premature",
                  "--size", "640x360"])
    return video


def _serve(settings: Settings, host: str, port: int) -> None:
    import uvicorn

    from api.app import create_app

    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")
