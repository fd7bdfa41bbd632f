"""Fan-out of stored events to WebSocket clients.

Table workers are threads; the clients live on the server's event loop. `publish` may be
called from any thread: it hands the message to the loop (`call_soon_threadsafe`), which
puts it in each interested client's queue. A client that falls `QUEUE_LIMIT` messages
behind is dropped rather than let the service's memory grow; it reconnects and catches up
with GET /events?since=. A client whose token is revoked is closed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

QUEUE_LIMIT = 1000
# What a client's queue holds instead of a message when its socket is to close.
TOO_SLOW, REVOKED = 4408, 4401


@dataclass(eq=False)
class Subscription:
    table_id: int | None  # None: every table
    token_id: str | None = None  # the holder's token, closed when it is revoked
    # A message, or the WebSocket close code that ends the stream.
    queue: asyncio.Queue[dict[str, Any] | int] = field(
        default_factory=lambda: asyncio.Queue(QUEUE_LIMIT + 1))


class Hub:
    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._subscriptions: set[Subscription] = set()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def subscribe(self, table_id: int | None, token_id: str | None = None) -> Subscription:
        """On the loop: a new client's subscription."""
        subscription = Subscription(table_id, token_id)
        self._subscriptions.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        self._subscriptions.discard(subscription)

    def publish(self, message: dict[str, Any]) -> None:
        """From any thread: deliver `message` (which names its `table_id`)."""
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: the service is stopping
            loop.call_soon_threadsafe(self._deliver, message)

    def _deliver(self, message: dict[str, Any]) -> None:
        for subscription in list(self._subscriptions):
            if subscription.table_id not in (None, message["table_id"]):
                continue
            if subscription.queue.qsize() >= QUEUE_LIMIT:
                self._close(subscription, TOO_SLOW)
            else:
                subscription.queue.put_nowait(message)

    def revoke(self, token_id: str) -> None:
        """From any thread: close the streams of the token `token_id`."""
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._revoke, token_id)

    def _revoke(self, token_id: str) -> None:
        for subscription in list(self._subscriptions):
            if subscription.token_id == token_id:
                self._close(subscription, REVOKED)

    def _close(self, subscription: Subscription, code: int) -> None:
        self._subscriptions.discard(subscription)
        subscription.queue.put_nowait(code)  # the queue keeps room for this one
