"""The pages: the judges' station and each table's broadcast overlay (plain HTML and
JavaScript from api/static, no build step). The pages hold no data (the station only the
tracker's threshold of a doubtful roll and the words of a roll with a die at the box's
exit): their scripts fetch it with the token given as `?token=` in the page's address."""

from __future__ import annotations

from html import escape
from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse

from referee.tracker import MIN_ROLL_CONFIDENCE
from vision.dice.stream import AT_EXIT

STATIC = Path(__file__).resolve().parent.parent / "static"
# The station marks a roll read with doubt, or with a die at the box's exit, as the review's
# timeline does: the one threshold and the same words, put in the page rather than written
# again in its script.
STATION = ((STATIC / "station.html").read_text()
           .replace("{{ROLL_DOUBT_BELOW}}", str(MIN_ROLL_CONFIDENCE))
           .replace("{{ROLL_AT_EXIT}}", escape(AT_EXIT, quote=True)))
ASSETS = {"common.js", "station.js", "station.css", "overlay.js"}

router = APIRouter(include_in_schema=False)


@router.get("/")
def home() -> RedirectResponse:
    return RedirectResponse("/station")


@router.get("/station")
def station() -> HTMLResponse:
    return HTMLResponse(STATION)


@router.get("/overlay/{table_id}")
def overlay(table_id: int) -> FileResponse:
    return FileResponse(STATIC / "overlay.html")


@router.get("/static/{name}")
def asset(name: str) -> FileResponse:
    if name not in ASSETS:
        raise HTTPException(404, f"no asset {name}")
    return FileResponse(STATIC / name)
