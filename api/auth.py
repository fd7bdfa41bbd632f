"""Who may do what: every request names a token; judges write, viewers (and the overlay) read.

A write takes its token from the Authorization header only (`Bearer TOKEN`), so a page on
another site cannot make a judge's browser write. A read also takes it from the `token`
cookie the pages set (so that images, clips and the review report load) or the `token`
query parameter (the WebSockets, and an overlay URL pasted into a streaming program).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request, WebSocket, status
from fastapi.security import APIKeyCookie, APIKeyQuery, HTTPAuthorizationCredentials, HTTPBearer

from api.store import Store

bearer = HTTPBearer(auto_error=False, description="a judge's or a viewer's token")
cookie = APIKeyCookie(name="token", auto_error=False, description="reads only")
query = APIKeyQuery(name="token", auto_error=False, description="reads only")


@dataclass(frozen=True)
class Holder:
    name: str
    role: str  # judge | viewer


def store_of(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def _holder(store: Store, token: str | None) -> Holder:
    found = store.token_holder(token) if token else None
    if found is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED,
                            "a valid token is needed (Authorization: Bearer TOKEN)",
                            headers={"WWW-Authenticate": "Bearer"})
    return Holder(*found)


def reader(
    request: Request,
    header: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    from_cookie: Annotated[str | None, Depends(cookie)],
    from_query: Annotated[str | None, Depends(query)],
) -> Holder:
    """Anyone with a token: a judge or a viewer."""
    token = header.credentials if header else from_query or from_cookie
    return _holder(store_of(request), token)


def judge(
    request: Request,
    header: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Holder:
    """A judge, by the Authorization header."""
    holder = _holder(store_of(request), header.credentials if header else None)
    if holder.role != "judge":
        raise HTTPException(status.HTTP_403_FORBIDDEN, "only a judge may do this")
    return holder


def websocket_holder(websocket: WebSocket, token: str | None) -> Holder | None:
    found = websocket.app.state.store.token_holder(token) if token else None
    return Holder(*found) if found else None


Reader = Annotated[Holder, Depends(reader)]
Judge = Annotated[Holder, Depends(judge)]
