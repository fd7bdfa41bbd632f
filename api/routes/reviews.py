"""Review jobs: upload a recorded match, follow the review, fetch its report and evidence."""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import cv2
from fastapi import APIRouter, File, Form, HTTPException, UploadFile, status
from fastapi.responses import FileResponse
from pydantic import ValidationError

from api.auth import Judge, Reader
from api.deps import ReviewsDep, StoreDep
from api.models import CalibrationIn, ReviewOut, VariantName, errors
from api.routes.tables import check_calibration, inside
from api.store import ReviewRow

router = APIRouter(prefix="/api/reviews", tags=["reviews"])

MAX_UPLOAD = 4 * 1024**3  # bytes: a match filmed for hours stays under it
CHUNK = 1024 * 1024


def review_out(row: ReviewRow) -> ReviewOut:
    return ReviewOut.model_validate(asdict(row))


@router.post("", status_code=status.HTTP_201_CREATED,
             responses=errors(400, 401, 403, 413, 422))
def upload_review(
    video: Annotated[UploadFile, File(description="the recorded match")],
    calibration: Annotated[UploadFile, File(description="the camera's calibration JSON")],
    reviews: ReviewsDep, store: StoreDep, judge: Judge,
    variant: Annotated[VariantName | None, Form(description="default: the calibration's")] = None,
) -> ReviewOut:
    """Queue the review of a recorded match. 422 for an upload that is not a video or a
    calibration that cannot be used; nothing is kept of a refused upload."""
    reviews.folder.mkdir(parents=True, exist_ok=True)
    incoming = Path(tempfile.mkdtemp(prefix="incoming-", dir=reviews.folder))
    try:
        suffix = Path(video.filename or "video.mp4").suffix.lower()[:8] or ".mp4"
        saved = incoming / f"video{suffix}"
        _save(video, saved)
        _check_video(saved)
        try:
            calibration_in = CalibrationIn.model_validate_json(calibration.file.read(CHUNK))
        except ValidationError as error:
            raise HTTPException(422,
                                f"unusable calibration: {error}") from None
        calibration_json = calibration_in.model_dump(exclude_unset=True)
        check_calibration(calibration_json)
        (incoming / "calibration.json").write_text(json.dumps(calibration_json))
        chosen = variant or calibration_in.variant or "long"
        row = store.add_review(video.filename or saved.name, chosen)
        incoming.rename(reviews.job_folder(row.id))
    except BaseException:
        shutil.rmtree(incoming, ignore_errors=True)
        raise
    reviews.submit(row.id)
    return review_out(row)


def _save(upload: UploadFile, path: Path) -> None:
    size = 0
    with path.open("wb") as out:
        while chunk := upload.file.read(CHUNK):
            size += len(chunk)
            if size > MAX_UPLOAD:
                raise HTTPException(413,
                                    f"the video is over {MAX_UPLOAD // 1024**3} GiB")
            out.write(chunk)


def _check_video(path: Path) -> None:
    """422 unless OpenCV decodes a frame of it."""
    capture = cv2.VideoCapture(str(path))
    try:
        ok, image = capture.read() if capture.isOpened() else (False, None)
    finally:
        capture.release()
    if not ok or image is None:
        raise HTTPException(422,
                            "the upload is not a video OpenCV can decode")


@router.get("", responses=errors(401))
def list_reviews(store: StoreDep, reader: Reader) -> list[ReviewOut]:
    return [review_out(row) for row in store.reviews()]


@router.get("/{review_id}", responses=errors(401, 404))
def get_review(review_id: int, store: StoreDep, reader: Reader) -> ReviewOut:
    """The job's state and progress (frames done of the video's total), and its summary."""
    return review_out(store.review(review_id))


@router.get("/{review_id}/files/{path:path}", response_class=FileResponse, responses={
    200: {"content": {"text/html": {}, "application/json": {}, "image/jpeg": {},
                      "video/mp4": {}},
          "description": "report.html, events.jsonl, record.json, flags/..."},
    **errors(401, 404)})
def review_file(review_id: int, path: str, reviews: ReviewsDep, store: StoreDep,
                reader: Reader) -> FileResponse:
    """A file of the review's output: `report.html` (its links to the flags' stills and
    clips resolve here), `events.jsonl`, `record.json`, `record.txt`, `summary.json`."""
    store.review(review_id)
    return FileResponse(inside(reviews.job_folder(review_id) / "out", path))
