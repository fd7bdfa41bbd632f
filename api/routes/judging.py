"""What judges do at a table: decide a flag, override a reading, calibrate the camera."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from fastapi import APIRouter, HTTPException, Response, status

from api.auth import Judge, Reader
from api.deps import ManagerDep, StoreDep
from api.models import (
    CornersIn,
    DecisionIn,
    EventOut,
    OverrideIn,
    PositionOverrideIn,
    TableOut,
    ZonesIn,
    ZonesOut,
    errors,
)
from api.routes.tables import event_out, table_out
from api.store import NotFound, Store
from api.tables import RUNNING_STATES, TableManager
from calibration.make import calibrate
from calibration.tray_view import TrayView, too_low
from referee.position import Position, PositionError
from referee.session import FLAG_EVENTS
from vision.sources import Frame, SourceError, VideoSource

router = APIRouter(prefix="/api/tables", tags=["judging"])


@router.post("/{table_id}/flags/{seq}/decision", status_code=status.HTTP_201_CREATED,
             responses=errors(400, 401, 403, 404, 409))
def decide(table_id: int, seq: int, decision: DecisionIn, manager: ManagerDep, store: StoreDep,
           judge: Judge) -> EventOut:
    """A judge's decision on the flag at `seq`: the illegal move stands (accept) or is to be
    corrected (correct). Recorded with who and when, and appended to the table's events as a
    `decision` event. A flag is decided once (409 after)."""
    flag = store.event(table_id, seq).record
    if flag.get("event") not in FLAG_EVENTS:
        raise NotFound(f"event {seq} of table {table_id} is not a flag")
    event = {"event": "decision", "flag_seq": seq, "flag": flag["event"],
             "decision": decision.decision, "judge": judge.name, "note": decision.note}
    return event_out(manager.decide(table_id, seq, decision.decision, judge.name,
                                    decision.note, event))


@router.post("/{table_id}/overrides", status_code=status.HTTP_201_CREATED,
             responses=errors(400, 401, 403, 404, 422))
def override(table_id: int, reading: OverrideIn, manager: ManagerDep, store: StoreDep,
             judge: Judge) -> EventOut:
    """A judge overrides a reading: the board (the live referee goes on from the position
    given) or the dice. Recorded with who and when, and appended as an `override` event."""
    store.table(table_id)
    value: object = list(reading.value)
    if isinstance(reading, PositionOverrideIn):
        try:
            value = Position.from_json(reading.value).validate().to_json()
        except (PositionError, ValueError) as error:
            raise HTTPException(422,
                                f"not a position: {error}") from None
    event = {"event": "override", "kind": reading.kind, "value": value, "judge": judge.name,
             "note": reading.note}
    return event_out(manager.override(table_id, reading.kind, value, judge.name, reading.note,
                                      event))


def current_frame(manager: TableManager, table_id: int, source: str) -> np.ndarray:
    """The running table's latest frame, or a first frame read from its source."""
    latest = manager.latest_frame(table_id)
    if latest is not None:
        return latest
    try:
        item = next(iter(VideoSource(source, give_up_after=0.0).frames()), None)
    except SourceError as error:
        raise HTTPException(422, str(error)) from None
    if not isinstance(item, Frame):
        raise HTTPException(422,
                            f"{source} gives no frame")
    return item.image


@router.get("/{table_id}/frame.jpg", response_class=Response, responses={
    200: {"content": {"image/jpeg": {}}, "description": "the camera's current frame"},
    **errors(401, 404, 422)})
def frame(table_id: int, manager: ManagerDep, store: StoreDep, reader: Reader) -> Response:
    """The table camera's current frame, for calibrating it by its corners."""
    image = current_frame(manager, table_id, store.table(table_id).source)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return Response(data.tobytes(), media_type="image/jpeg")


@router.post("/{table_id}/calibration/corners",
             responses=errors(400, 401, 403, 404, 422))
def calibrate_corners(table_id: int, corners: CornersIn, manager: ManagerDep, store: StoreDep,
                      judge: Judge) -> TableOut:
    """Calibrate the board camera from the field's four corners clicked on the current
    frame; the dice zones and clock of the calibration are kept. A running table restarts
    with the new calibration."""
    row = store.table(table_id)
    image = current_frame(manager, table_id, row.source)
    try:
        made = calibrate(image, corners.corners, corners.white_home,
                         dice_zones=row.calibration.get("dice_zones"))
    except ValueError as error:
        raise HTTPException(422, str(error)) from None
    return _recalibrated(manager, store, table_id, {**row.calibration, **made.to_json()})


@router.post("/{table_id}/calibration/zones", responses=errors(400, 401, 403, 404, 422))
def calibrate_zones(table_id: int, zones: ZonesIn, manager: ManagerDep, store: StoreDep,
                    judge: Judge) -> ZonesOut:
    """Set the dice zones from polygons clicked on the current frame: the exit tray and the
    visible inside of the baffle box. A running table restarts with them."""
    row = store.table(table_id)
    if row.tray_source is not None:
        raise HTTPException(422, "this table's dice zones are in its tray camera's calibration, "
                            "given when the table was registered")
    height, width = current_frame(manager, table_id, row.source).shape[:2]
    polygons = {"tray": zones.tray, "box": zones.box}
    for name, polygon in polygons.items():
        points = np.asarray(polygon, np.float32)
        if not (np.all(points >= 0) and np.all(points < (width, height))):
            raise HTTPException(422,
                                f"the {name} zone leaves the {width}x{height} frame")
        # A polygon a die cannot lie in (points on a line, or a sliver) is a mis-click.
        if abs(cv2.contourArea(points)) < 100:
            raise HTTPException(422,
                                f"the {name} zone encloses no area (under 100 square pixels)")
    if zones.view is not None:
        raise HTTPException(422, "clicked zones measure the camera's view from the tray's "
                            "corners and tray_mm; a view is not given with them")
    zones_json: dict[str, Any] = {name: [list(point) for point in polygon]
                                  for name, polygon in polygons.items()}
    warnings: list[str] = []
    if zones.tray_mm is not None:
        # The tray's corners and size measure how the camera views its floor, as `calibrate
        # --tray-mm` does.
        try:
            view = TrayView.from_tray(zones.tray, zones.tray_mm, (width, height))
        except ValueError as error:
            raise HTTPException(422, f"the tray's corners: {error}") from None
        zones_json |= {"tray_mm": list(zones.tray_mm), "view": view.to_json()}
        warning = too_low(view, zones.tray)
        warnings += [warning] if warning else []
    table = _recalibrated(manager, store, table_id, {**row.calibration, "dice_zones": zones_json})
    return ZonesOut(**table.model_dump(), warnings=warnings)


def _recalibrated(manager: TableManager, store: Store, table_id: int,
                  calibration: dict[str, Any]) -> TableOut:
    """Store the table's new calibration; a running table restarts with it."""
    store.set_calibration(table_id, calibration)
    if store.table(table_id).state in RUNNING_STATES:
        manager.stop(table_id)
        return table_out(manager.start(table_id))
    return table_out(store.table(table_id))
