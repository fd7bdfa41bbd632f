"""WebSocket streams of events: one table's, or every table's.

Connect with `?token=TOKEN` (any role) and optionally `&since=SEQ` (one table) to first
receive the stored events after SEQ; then each event arrives as it is stored, as JSON
`{"table_id", "seq", "received_at", "event"}`. A token that is not valid (or is revoked
while the stream is open) closes the socket with code 4401; an unknown table with 4404.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from api.auth import websocket_holder
from api.hub import REVOKED, TOO_SLOW, Hub
from api.store import TOKEN_ID_LENGTH, NotFound, Store, hash_token

router = APIRouter(tags=["streams"])


@router.websocket("/ws/tables/{table_id}")
async def table_stream(websocket: WebSocket, table_id: int, token: str | None = None,
                       since: int | None = None) -> None:
    store: Store = websocket.app.state.store
    if websocket_holder(websocket, token) is None:
        await websocket.close(code=4401, reason="a valid token is needed")
        return
    try:
        store.table(table_id)
    except NotFound:
        await websocket.close(code=4404, reason=f"no table {table_id}")
        return
    await _stream(websocket, table_id, since, token)


@router.websocket("/ws/tables")
async def all_tables_stream(websocket: WebSocket, token: str | None = None) -> None:
    if websocket_holder(websocket, token) is None:
        await websocket.close(code=4401, reason="a valid token is needed")
        return
    await _stream(websocket, None, None, token)


CLOSE_REASONS = {TOO_SLOW: "too slow: reconnect with since=", REVOKED: "the token was revoked"}


async def _stream(websocket: WebSocket, table_id: int | None, since: int | None,
                  token: str | None) -> None:
    hub: Hub = websocket.app.state.hub
    store: Store = websocket.app.state.store
    await websocket.accept()
    # Subscribe before reading the backlog, so nothing falls between the two.
    token_id = hash_token(token)[:TOKEN_ID_LENGTH] if token else None
    subscription = hub.subscribe(table_id, token_id)
    sent = -1
    closed = asyncio.ensure_future(_closed(websocket))
    try:
        if table_id is not None and since is not None:
            for stored in await run_in_threadpool(store.events, table_id, since):
                await websocket.send_json({"table_id": table_id, "seq": stored.seq,
                                           "received_at": stored.received_at,
                                           "event": stored.record})
                sent = stored.seq
        while True:
            getting = asyncio.ensure_future(subscription.queue.get())
            done, _ = await asyncio.wait({getting, closed}, return_when=asyncio.FIRST_COMPLETED)
            if closed in done:
                getting.cancel()
                return
            message: dict[str, Any] | int = getting.result()
            if isinstance(message, int):  # a close code: too far behind, or revoked
                await websocket.close(code=message, reason=CLOSE_REASONS[message])
                return
            if table_id is None or message["seq"] > sent:
                await websocket.send_json(message)
    except WebSocketDisconnect:
        pass
    finally:
        closed.cancel()
        hub.unsubscribe(subscription)


async def _closed(websocket: WebSocket) -> None:
    """Returns when the client goes away (anything it sends is ignored)."""
    while (await websocket.receive())["type"] != "websocket.disconnect":
        pass
