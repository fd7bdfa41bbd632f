"""What one service instance needs to know: where its database and files live."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    """`db`: the SQLite file holding every table, event, decision and token. `data`: the folder
    for the tables' flag evidence and the review jobs' uploads and outputs (default: beside
    the database). `open_wait`: seconds a start request waits to see the source open.
    `replay_speed`: how many times faster than their own pace paced files replay.
    `table_processes`: each running table in a process of its own (else a thread of the
    service's: quicker to start, but the tables then share one interpreter's lock)."""

    db: Path
    data: Path | None = None
    open_wait: float = 3.0
    replay_speed: float = 1.0
    table_processes: bool = True

    @property
    def data_dir(self) -> Path:
        return self.data or self.db.with_name(self.db.stem + "-data")
