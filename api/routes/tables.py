"""Tables: register, start and stop, the live state, the event stream and the game record."""

from __future__ import annotations

import json
import tempfile
from dataclasses import asdict, replace
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Response, status
from fastapi.responses import FileResponse

from api.auth import Judge, Reader
from api.deps import ManagerDep, StoreDep
from api.live import LiveState
from api.models import EventOut, FlagOut, LiveOut, RecordOut, TableIn, TableOut, errors
from api.store import NotFound, StoredEvent, TableRow
from referee.diagram import board_svg
from referee.evidence import canonical_json
from referee.report import read_game
from vision.sources import SourceError, is_live, parse_spec
from vision.table import TableSetup

router = APIRouter(prefix="/api/tables", tags=["tables"])


def table_out(row: TableRow) -> TableOut:
    return TableOut.model_validate(asdict(row))


def event_out(stored: StoredEvent) -> EventOut:
    return EventOut(table_id=stored.table_id, seq=stored.seq, received_at=stored.received_at,
                    event=stored.record)


def check_calibration(calibration: dict[str, object]) -> None:
    """422 for a calibration the table's observer cannot use."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "calibration.json"
        path.write_text(json.dumps(calibration), encoding="utf-8")
        try:
            TableSetup.load(path)
        except (ValueError, KeyError, TypeError) as error:
            raise HTTPException(422,
                                f"unusable calibration: {error}") from None


@router.post("", status_code=status.HTTP_201_CREATED,
             responses=errors(400, 401, 403, 422))
def register_table(table: TableIn, store: StoreDep, judge: Judge) -> TableOut:
    """A new table: its camera or video, its calibration and the variant played; and, when
    the dice tray has a camera of its own, that camera and its calibration (the dice zones
    in its pixels). Without a calibration, the table is calibrated afterwards by clicks on
    its camera's frame (calibration/corners and calibration/zones) before it can start."""
    try:
        board = parse_spec(table.source)
        tray = None if table.tray_source is None else parse_spec(table.tray_source)
    except SourceError as error:
        raise HTTPException(422, str(error)) from None
    if tray is not None and is_live(board) != is_live(tray):
        raise HTTPException(422, "the board and tray cameras must both be recordings or both "
                            "be live: their frames are matched by time")
    calibration: dict[str, object] = {}
    if table.calibration is not None:
        calibration = table.calibration.model_dump(exclude_unset=True)
        check_calibration(calibration)
    variant = table.variant or (table.calibration and table.calibration.variant) or "long"
    tray_camera = None
    if table.tray_source is not None and table.tray_calibration is not None:
        tray_camera = table.tray_source, table.tray_calibration.model_dump(exclude_unset=True)
    return table_out(store.add_table(table.name, table.source, calibration, variant,
                                     table.paced, tray_camera))


@router.get("", responses=errors(401))
def list_tables(store: StoreDep, reader: Reader) -> list[TableOut]:
    return [table_out(row) for row in store.tables()]


@router.get("/{table_id}", responses=errors(401, 404))
def get_table(table_id: int, store: StoreDep, reader: Reader) -> TableOut:
    return table_out(store.table(table_id))


@router.post("/{table_id}/start", responses=errors(401, 403, 404, 422))
def start_table(table_id: int, manager: ManagerDep, store: StoreDep, judge: Judge) -> TableOut:
    """Start the table's pipeline. 422 when it is not calibrated yet, or its source cannot be
    opened (the table is then in the `error` state, with the reason); `starting` when the
    source is still opening."""
    if "corners" not in store.table(table_id).calibration:
        raise HTTPException(422, f"table {table_id} is not calibrated yet: click the field's "
                            "corners on its camera frame (calibration/corners)")
    row = manager.start(table_id)
    if row.state == "error":
        raise HTTPException(422,
                            f"table {table_id} cannot start: {row.error}")
    return table_out(row)


@router.post("/{table_id}/stop", responses=errors(401, 403, 404))
def stop_table(table_id: int, manager: ManagerDep, judge: Judge) -> TableOut:
    return table_out(manager.stop(table_id))


@router.get("/{table_id}/state", responses=errors(401, 404))
def live_state(table_id: int, store: StoreDep, manager: ManagerDep, reader: Reader) -> LiveOut:
    """What the station and the overlay show: the position, dice, turn, clock and flags."""
    row = store.table(table_id)
    return live_out(row, manager.live(table_id))


def live_out(row: TableRow, live: LiveState) -> LiveOut:
    flags = [FlagOut(seq=seq, event=record["event"], player=record.get("player"),
                     time=record.get("time"),
                     detail={k: v for k, v in record.items() if k not in ("prev", "hash")})
             for seq, record in sorted(live.open_flags.items(), reverse=True)]
    return LiveOut.model_validate({
        "table": table_out(row), "position": live.position.to_json(),
        "flagged_board": live.flagged_board.to_json() if live.flagged_board else None,
        "mover": live.mover.value if live.mover else None,
        "dice": list(live.dice) if live.dice else None,
        "clock": live.clock.value if live.clock else None,
        "pips": {side.value: count for side, count in live.pip_counts().items()},
        "open_flags": flags,
        "score": {side.value: points for side, points in live.score.items()}
        if live.score else None,
        "camera_moved": live.camera_moved,
        "camera_flicker": live.camera_flicker,
        "last_seq": live.last_seq})


@router.get("/{table_id}/board.svg", response_class=Response, responses={
    200: {"content": {"image/svg+xml": {}}, "description": "the board as an SVG drawing"},
    **errors(401, 404)})
def board(table_id: int, store: StoreDep, manager: ManagerDep, reader: Reader) -> Response:
    """The board as it stands (a flagged board when an illegal move stands), with the last
    move's steps drawn."""
    store.table(table_id)
    live = manager.live(table_id)
    if live.flagged_board is not None:
        svg = board_svg(live.flagged_board, title="the board as flagged")
    elif live.last_move is not None and live.last_move[1]:
        side, moves = live.last_move
        svg = board_svg(live.position, moves, side)
    else:
        svg = board_svg(live.position)
    return Response(svg, media_type="image/svg+xml")


@router.get("/{table_id}/events", responses=errors(401, 404))
def events(table_id: int, store: StoreDep, reader: Reader,
           since: Annotated[int, Query(ge=-1, description="only events after this seq")] = -1,
           limit: Annotated[int, Query(ge=1, le=10000)] = 1000) -> list[EventOut]:
    store.table(table_id)
    return [event_out(stored) for stored in store.events(table_id, since, limit)]


@router.get("/{table_id}/events.jsonl", response_class=Response, responses={
    200: {"content": {"application/x-ndjson": {}},
          "description": "the hash-chained log; `nardy-referee verify` checks it"},
    **errors(401, 404)})
def evidence_log(table_id: int, store: StoreDep, reader: Reader) -> Response:
    store.table(table_id)
    lines = b"".join(canonical_json(s.record) + b"\n" for s in store.events(table_id))
    return Response(lines, media_type="application/x-ndjson")


@router.get("/{table_id}/record", responses=errors(401, 404))
def record(table_id: int, store: StoreDep, reader: Reader) -> RecordOut:
    """The game record of the table's events, with the judges' decisions on its flags."""
    row = store.table(table_id)
    records = [stored.record for stored in store.events(table_id)]
    read = read_game([{"event": "review_start", "variant": row.variant}, *records])
    decisions = [r for r in records if r.get("event") == "decision"]
    game = read.record
    for decision in decisions:
        # The flag belongs to the first turn decided after it.
        index = next((i for i, seq in enumerate(read.turn_seqs) if seq > decision["flag_seq"]),
                     None)
        if index is not None:
            word = "accepted" if decision["decision"] == "accept" else "corrected"
            turn = game.turns[index]
            game.turns[index] = replace(turn, flags=(*turn.flags,
                                                     f"judge: {word} by {decision['judge']}"))
    return RecordOut(record=game.to_json(), notation=game.notation(), decisions=decisions,
                     unfinished=read.unfinished)


@router.get("/{table_id}/files/{path:path}", response_class=FileResponse,
            responses={200: {"content": {"image/jpeg": {}, "video/mp4": {}},
                             "description": "a flag's still or clip"}, **errors(401, 404)})
def evidence_file(table_id: int, path: str, manager: ManagerDep, store: StoreDep,
                  reader: Reader) -> FileResponse:
    store.table(table_id)
    return FileResponse(inside(manager.folder(table_id), path))


def inside(folder: Path, path: str) -> Path:
    """`path` under `folder`, or 404 (never a file outside it)."""
    found = (folder / path).resolve()
    if not found.is_relative_to(folder.resolve()) or not found.is_file():
        raise NotFound(f"no file {path}")
    return found
