"""Dependencies the routers share: the service's parts, as FastAPI dependencies."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from api.auth import store_of
from api.reviews import ReviewQueue
from api.store import Store
from api.tables import TableManager


def _manager(request: Request) -> TableManager:
    manager: TableManager = request.app.state.manager
    return manager


def _reviews(request: Request) -> ReviewQueue:
    reviews: ReviewQueue = request.app.state.reviews
    return reviews


StoreDep = Annotated[Store, Depends(store_of)]
ManagerDep = Annotated[TableManager, Depends(_manager)]
ReviewsDep = Annotated[ReviewQueue, Depends(_reviews)]
