"""The shapes of the API's requests and answers, so that the OpenAPI document tells the truth."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict, model_validator

from vision.dice.zones import DiceZones

# Requests are taken as the document says: no `0` for false, no "6" for 6.
Number = Annotated[float, Strict()]
TableState = Literal["registered", "starting", "running", "stopped", "finished", "error"]
SideName = Literal["white", "black"]
VariantName = Literal["long", "short"]


class ErrorOut(BaseModel):
    detail: str | list[dict[str, Any]] = Field(description="what was wrong")


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The error answers of an operation, for the OpenAPI document."""
    described = {400: "malformed input", 401: "no valid token",
                 403: "the token is not a judge's", 404: "no such table, flag or review",
                 409: "contradicts what is stored", 413: "the upload is too large",
                 422: "input the referee cannot use"}
    return {code: {"model": ErrorOut, "description": described[code]} for code in codes}


Point = tuple[Number, Number]


Polygon = Annotated[list[Point], Field(min_length=3, max_length=32)]


class ViewIn(BaseModel):
    """How the tray camera views the tray's floor, as `calibrate --tray-mm` writes it
    (calibration/tray_view.py)."""

    intrinsics: Annotated[list[Annotated[list[Number], Field(min_length=3, max_length=3)]],
                          Field(min_length=3, max_length=3)] = Field(
        description="the camera's 3x3 matrix, in pixels")
    up: tuple[Number, Number, Number] = Field(
        description="the floor's upward normal in the camera's axes (x right, y down, z ahead)")


class ZonesIn(BaseModel):
    tray: Polygon = Field(description="the exit tray where a throw must end, in frame pixels")
    box: Polygon = Field(description="the visible inside of the baffle box (a die that stops "
                         "there voids the throw, 5.4.32)")
    tray_mm: tuple[Annotated[Number, Field(gt=0)], Annotated[Number, Field(gt=0)]] | None = Field(
        None, description="the tray floor's inner length and width in millimetres, `tray` "
        "being its 4 corners, the first two along its length: how big a die can look where it "
        "lies, and how the camera views the floor (the cocked call is then made straight down)")
    view: ViewIn | None = Field(None, description="how the camera views the tray's floor, as "
                                "`calibrate --tray-mm` writes it (found from `tray_mm` when "
                                "the zones are clicked)")

    @model_validator(mode="after")
    def usable(self) -> ZonesIn:
        DiceZones.from_json(self.model_dump(exclude_none=True))  # ValueError: a 422
        return self


class CalibrationIn(BaseModel):
    """A table camera's calibration, as `nardy-referee calibrate` (or `synth game`) writes it;
    the fields not named here (layout, colours, clock...) are kept as they are."""

    model_config = ConfigDict(extra="allow")
    image_size: tuple[Annotated[int, Strict(), Field(gt=0)], Annotated[int, Strict(), Field(gt=0)]]
    corners: list[Point] = Field(min_length=4, max_length=4, description=(
        "the field's corners: top-left, top-right, bottom-right, bottom-left"))
    variant: VariantName | None = None
    dice_zones: ZonesIn | None = None


class TrayCalibrationIn(BaseModel):
    """The calibration of a camera of the tray's own: its frame size and the dice zones in its
    pixels; other fields are kept as they are."""

    model_config = ConfigDict(extra="allow")
    image_size: tuple[Annotated[int, Strict(), Field(gt=0)], Annotated[int, Strict(), Field(gt=0)]]
    dice_zones: ZonesIn


class TableIn(BaseModel):
    name: str = Field(min_length=1, max_length=100)
    source: str = Field(min_length=1, max_length=1000, description=(
        "a video file on the server, a camera index (\"0\") or a stream address "
        "(rtsp://, http://)"))
    calibration: CalibrationIn | None = Field(None, description=(
        "as `calibrate` writes it; without one, calibrate by clicks on the camera's frame "
        "before starting"))
    variant: VariantName | None = Field(None, description="default: the calibration's, else long")
    paced: Annotated[bool, Strict()] = Field(
        True, description="replay a file at its own pace, as a camera would")
    tray_source: str | None = Field(None, min_length=1, max_length=1000, description=(
        "a camera of the dice tray's own (as `source`); both recordings or both live"))
    tray_calibration: TrayCalibrationIn | None = Field(
        None, description="that camera's calibration: needed with `tray_source`")

    @model_validator(mode="after")
    def _tray_together(self) -> TableIn:
        if (self.tray_source is None) != (self.tray_calibration is None):
            raise ValueError("tray_source and tray_calibration go together")
        return self


class TableOut(BaseModel):
    id: int
    name: str
    source: str
    tray_source: str | None
    variant: VariantName
    paced: bool
    state: TableState
    error: str | None
    created_at: float = Field(description="Unix time, seconds")


class ZonesOut(TableOut):
    warnings: list[str] = Field(description=(
        "what the installer should know of the zones' camera (one too low over the tray)"))


class EventOut(BaseModel):
    table_id: int
    seq: int
    received_at: float = Field(description="Unix time the service stored it, seconds")
    event: dict[str, Any] = Field(description="the referee's event with its seq, prev, hash")


class FlagOut(BaseModel):
    seq: int
    event: str
    player: SideName | None
    time: float | None = Field(description="seconds into the table's video")
    detail: dict[str, Any]


class LiveOut(BaseModel):
    table: TableOut
    position: dict[str, Any] = Field(description="the position play goes on from")
    flagged_board: dict[str, Any] | None = Field(description="an illegal move standing")
    mover: SideName | None
    dice: list[int] | None
    clock: SideName | None = Field(description="whose clock runs, when the clock is read")
    pips: dict[SideName, int]
    open_flags: list[FlagOut] = Field(description="flags waiting for a judge, newest first")
    score: dict[SideName, int] | None = Field(description="points of the games finished here")
    camera_moved: str | None = Field(
        None, description="why the table's camera is taken to have moved since its "
        "calibration, while it is: nothing in its view is read until it is back or the table "
        "is calibrated and started again")
    camera_flicker: str | None = Field(
        None, description="set once the table's camera has shown the hall's light flickering "
        "in bands (a rolling shutter): its frames are levelled, but its power-line "
        "(anti-flicker) frequency should be set to the mains; cleared when the table starts "
        "again")
    last_seq: int


class DecisionIn(BaseModel):
    decision: Literal["accept", "correct"]
    note: str = Field("", max_length=1000)


class PositionOverrideIn(BaseModel):
    """The board as the judge rules it: the live referee goes on from it."""

    kind: Literal["position"]
    value: dict[str, Any] = Field(description="a position JSON")
    note: str = Field("", max_length=1000)


Die = Annotated[int, Strict(), Field(ge=1, le=6)]


class DiceOverrideIn(BaseModel):
    """The roll as the judge read it."""

    kind: Literal["dice"]
    value: tuple[Die, Die]
    note: str = Field("", max_length=1000)


OverrideIn = Annotated[PositionOverrideIn | DiceOverrideIn, Field(discriminator="kind")]


class CornersIn(BaseModel):
    corners: list[Point] = Field(
        min_length=4, max_length=4,
        description="the field's corners in frame pixels: top-left, top-right, "
        "bottom-right, bottom-left")
    white_home: Literal["bottom-right", "bottom-left", "top-left", "top-right"] = "bottom-right"


class ReviewOut(BaseModel):
    id: int
    filename: str
    variant: VariantName
    state: Literal["queued", "running", "done", "failed"]
    frames_done: int
    frames_total: int
    summary: dict[str, Any] | None
    error: str | None
    created_at: float
    finished_at: float | None


class RecordOut(BaseModel):
    record: dict[str, Any] = Field(description="the game record (referee/record.py JSON)")
    notation: str
    decisions: list[dict[str, Any]] = Field(description="the judges' decisions on flags")
    unfinished: str | None


class TokenIn(BaseModel):
    name: str = Field(min_length=1, max_length=100, description="who holds it (a judge's "
                      "name, \"overlay\", a screen)")
    role: Literal["judge", "viewer"]


class TokenOut(BaseModel):
    id: str = Field(description="the token's name in lists: the start of its hash")
    name: str
    role: Literal["judge", "viewer"]
    created_at: float
    revoked_at: float | None


class NewTokenOut(TokenOut):
    token: str = Field(description="the token itself: shown this once, kept only hashed")
