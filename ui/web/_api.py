"""A small HTTP API over the study, beside the page: scripted raters, load tests, dashboards.

The token comes as ``Authorization: Bearer <token>`` (or ``?token=``). A wrong or missing
token gets 401 and nothing else; rules (1-5, known item) are the storage layer's, answered 422.
"""
from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from eval.ratings import AccessDenied, AdminView, InvalidRating, RaterView, export_csv, study_report

from ._common import AppContext


ITEM_ID_MAX = 2**62


class Submission(BaseModel):
    """One answer: three scores, an A/B choice, or a skip.

    Strict types: ``true`` is not a score and ``"1"`` is not a flag; ids and times are bounded,
    so any body a client can send is either stored or answered 422, never a server error.
    """

    model_config = ConfigDict(strict=True, extra="forbid")

    item_id: int = Field(ge=1, le=ITEM_ID_MAX)
    naturalness: int | str | None = None
    groundedness: int | str | None = None
    factual: int | str | None = None
    choice: str | None = Field(None, max_length=10)
    skip: bool = False
    seconds: float | None = Field(None, ge=0, le=3.2e7, allow_inf_nan=False)


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.query_params.get("token")


def rate_router(ctx: AppContext) -> APIRouter:
    router = APIRouter(prefix="/api/rate")

    def opened(request: Request, as_admin: bool):
        """The caller's view of the study; any token problem is one bare 401."""
        try:
            if ctx.study is None:
                raise AccessDenied()
            return ctx.study.admin(_token(request)) if as_admin else ctx.study.rater(_token(request))
        except AccessDenied:
            raise HTTPException(status_code=401, detail="access denied") from None

    def rater(request: Request) -> RaterView:
        return opened(request, as_admin=False)

    def admin(request: Request) -> AdminView:
        return opened(request, as_admin=True)

    def progress(view: RaterView) -> dict:
        p = view.progress()
        return {"done": p.done, "skipped": p.skipped, "total": p.total}

    # Plain ``def`` handlers: FastAPI runs them in its thread pool, so SQLite waits never block the loop.
    @router.get("/next")
    def next_item(request: Request) -> dict:
        view = rater(request)
        item = view.next_item()
        return {"item": None if item is None else asdict(item), "progress": progress(view)}

    @router.post("/submit")
    def submit(body: Submission, request: Request) -> dict:
        view = rater(request)
        try:
            if body.skip:
                view.skip(body.item_id)
            elif body.choice is not None:
                view.choose(body.item_id, body.choice, seconds=body.seconds)
            else:
                view.submit(body.item_id, body.naturalness, body.groundedness, body.factual, seconds=body.seconds)
        except InvalidRating as exc:
            raise HTTPException(status_code=422, detail=str(exc)) from None
        return {"ok": True, "progress": progress(view)}

    @router.get("/mine")
    def mine(request: Request) -> dict:
        view = rater(request)
        return {"rater": view.name, "ratings": view.my_ratings(), "progress": progress(view)}

    @router.get("/report")
    def report(request: Request) -> dict:
        return study_report(admin(request)).to_dict()

    @router.get("/export.csv", response_class=PlainTextResponse)
    def export(request: Request) -> PlainTextResponse:
        """Every rating as CSV, for the admin token only; made in memory, never a file on disk."""
        text = export_csv(admin(request))
        return PlainTextResponse(text, media_type="text/csv; charset=utf-8", headers={
            "Content-Disposition": 'attachment; filename="ratings.csv"', "Cache-Control": "no-store"})

    return router
