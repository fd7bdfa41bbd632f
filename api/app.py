"""The referee service: `create_app(settings)` builds it.

On start-up the service opens its database, resumes the tables that were running and the
review jobs that were queued; on shutdown it stops the table workers without marking the
tables stopped, so the next start resumes them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, status
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from api.hub import Hub
from api.reviews import ReviewQueue
from api.routes import judging, pages, reviews, tables, tokens, ws
from api.settings import Settings
from api.store import Conflict, NotFound, Store
from api.tables import TableManager


def create_app(settings: Settings) -> FastAPI:
    store = Store(settings.db)
    hub = Hub()
    manager = TableManager(store, hub, settings)
    review_queue = ReviewQueue(store, settings.data_dir / "reviews")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.attach(asyncio.get_running_loop())
        review_queue.start()
        await run_in_threadpool(manager.resume_all)
        yield
        await run_in_threadpool(manager.shutdown)
        review_queue.stop()
        store.close()

    app = FastAPI(title="nardy referee", version="0.1.0", lifespan=lifespan, description=(
        "Live tables, judges' decisions and review jobs of the nardy referee. Send a token "
        "as `Authorization: Bearer TOKEN`: a judge's for every write, any token for reads."))
    app.state.settings, app.state.store, app.state.hub = settings, store, hub
    app.state.manager, app.state.reviews = manager, review_queue

    @app.exception_handler(NotFound)
    async def not_found(request: Request, error: NotFound) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status.HTTP_404_NOT_FOUND)

    @app.exception_handler(Conflict)
    async def conflict(request: Request, error: Conflict) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status.HTTP_409_CONFLICT)

    for module in (tables, judging, reviews, tokens, ws, pages):
        app.include_router(module.router)
    return app
