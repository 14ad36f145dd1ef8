"""A small HTTP API over the study, beside the page: scripted raters, load tests, dashboards; and the
plain pages of a crowd study (enrollment with consent, the consent form, completion).

The token comes as ``Authorization: Bearer <token>`` (or ``?token=``). A wrong or missing
token gets 401 and nothing else; rules (1-5, known item) are the storage layer's, answered 422.
A refused enrollment, consent or completion gets its own status and one clear sentence
(``EnrollmentRefused``), and nothing is written.
"""
from __future__ import annotations

from dataclasses import asdict
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from eval.ratings import (
    COMMENT_MAX,
    AccessDenied,
    AdminView,
    EnrollmentRefused,
    InvalidRating,
    RaterView,
    Study,
    export_csv,
    participant_from,
    study_report,
)

from ._common import AppContext, esc
from ._guard import bearer_token

ITEM_ID_MAX = 2**62
ID_MAX = 200  # characters in a token, key or platform id a request may send
SECRET_COOKIE = "vgm_enrolled"  # the browser secret of an open-link participant, scoped to that link's path


class Submission(BaseModel):
    """One answer: three scores, an A/B choice, or a skip; optionally a comment.

    Strict types: ``true`` is not a score and ``"1"`` is not a flag; ids and times are bounded,
    so any body a client can send is either stored or answered 422, never a server error.
    """

    model_config = ConfigDict(strict=True, extra="forbid")

    item_id: int = Field(ge=1, le=ITEM_ID_MAX)
    naturalness: int | str | None = None
    groundedness: int | str | None = None
    factual: int | str | None = None
    scores: dict[str, int | str] | None = Field(None, max_length=20)  # {criterion id: value}, for any criteria file
    choice: str | None = Field(None, max_length=10)
    skip: bool = False
    seconds: float | None = Field(None, ge=0, le=3.2e7, allow_inf_nan=False)  # accepted from old clients, never read:
    comment: str | None = Field(None, max_length=COMMENT_MAX)


class Enrollment(BaseModel):
    """A participant arriving by the open link: the link's key, the platform's ids, the consent tick."""

    model_config = ConfigDict(strict=True, extra="forbid")

    key: str = Field(max_length=ID_MAX)
    participant_id: str | None = Field(None, max_length=ID_MAX)
    study_id: str | None = Field(None, max_length=ID_MAX)
    session_id: str | None = Field(None, max_length=ID_MAX)
    secret: str | None = Field(None, max_length=ID_MAX)  # the browser secret the first enrollment answered with
    consent: bool = False


def _token(request: Request) -> str | None:
    return bearer_token(request.scope)  # the guard's reading, so the check before the body and the route's agree


def _refused(exc: EnrollmentRefused) -> HTTPException:
    return HTTPException(status_code=exc.status, detail=str(exc))


def _platform_params(platform: str, participant_id, study_id, session_id) -> dict:
    """The API's ids under the names the platform puts on a link, so one parser checks both."""
    names = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID") if platform == "prolific" else ("PID", "STUDY_ID", "SESSION_ID")
    return {k: v for k, v in zip(names, (participant_id, study_id, session_id)) if v is not None}


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
        if view.needs_consent():
            raise _refused(EnrollmentRefused("consent", "accept the consent form first (POST /api/rate/consent)"))
        item = view.next_item()
        return {"item": None if item is None else asdict(item), "progress": progress(view)}

    @router.post("/submit")
    def submit(body: Submission, request: Request) -> dict:
        view = rater(request)
        try:
            if body.skip:
                view.skip(body.item_id)
            elif body.choice is not None:
                view.choose(body.item_id, body.choice, comment=body.comment)
            elif body.scores is not None:
                view.rate(body.item_id, body.scores, comment=body.comment)
            else:  # the time spent is the server's (from when /next served the item), not the body's "seconds"
                view.submit(body.item_id, body.naturalness, body.groundedness, body.factual, comment=body.comment)
        except InvalidRating as exc:
            raise HTTPException(status_code=422, detail=str(exc)) from None
        except EnrollmentRefused as exc:
            raise _refused(exc) from None
        return {"ok": True, "progress": progress(view)}

    @router.get("/mine")
    def mine(request: Request) -> dict:
        view = rater(request)
        return {"rater": view.name, "ratings": view.my_ratings(), "progress": progress(view)}

    @router.post("/enroll")
    def enroll(body: Enrollment) -> dict:
        """Open enrollment for scripts: the same rules as the enrollment page, answered as JSON."""
        try:
            if ctx.study is None:
                raise EnrollmentRefused("closed", "this enrollment link is not valid; check the link you were given")
            crowd = ctx.study.check_enroll_key(body.key)
            who = participant_from(crowd.platform, _platform_params(crowd.platform, body.participant_id, body.study_id,
                                                                    body.session_id))
            found, resumed = ctx.study.enroll(body.key, who, consent=body.consent, secret=body.secret)
        except EnrollmentRefused as exc:
            raise _refused(exc) from None
        # the secret comes once, to the newcomer; resuming needs it (or the platform's session id)
        return {"token": found.token, "rater": found.name, "resumed": resumed, **({"secret": found.secret} if found.secret else {})}

    @router.post("/consent")
    def consent(request: Request) -> dict:
        view = rater(request)
        view.consent()
        return {"ok": True}

    @router.post("/complete")
    def complete(request: Request) -> dict:
        """The completion code and where to go, once every item is answered (409 before, nothing written)."""
        view = rater(request)
        try:
            done = view.complete()
        except EnrollmentRefused as exc:
            raise _refused(exc) from None
        return {"completion_code": done.code, "redirect": done.finish_url, "total": done.total}

    @router.get("/report")
    def report(request: Request, exclude_failed_attention: bool = False) -> dict:
        return study_report(admin(request), exclude_failed_attention=exclude_failed_attention).to_dict()

    @router.get("/export.csv", response_class=PlainTextResponse)
    def export(request: Request) -> PlainTextResponse:
        """Every rating as CSV, for the admin token only; made in memory, never a file on disk."""
        text = export_csv(admin(request))
        return PlainTextResponse(text, media_type="text/csv; charset=utf-8", headers={
            "Content-Disposition": 'attachment; filename="ratings.csv"', "Cache-Control": "no-store"})

    return router


# -- the crowd pages: plain HTML, no script, readable on a phone -----------------------------

PAGE_CSS = """
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2937;background:#f3f4f6;margin:0}
main{max-width:700px;margin:0 auto;padding:20px 14px}
h1{font-size:1.35rem;margin:0 0 12px;color:#111827}
.card{background:#fff;border:1px solid #d1d5db;border-radius:10px;padding:14px 18px;margin-bottom:14px}
.consent{max-height:55vh;overflow:auto}
.consent h1,.consent h2,.consent h3{font-size:1.1rem}
label.agree{display:flex;gap:10px;align-items:flex-start;margin:12px 0;font-weight:600}
label.agree input{width:22px;height:22px;margin-top:2px;flex:none}
button,a.button{display:inline-block;background:#1d4ed8;color:#fff;border:0;border-radius:8px;padding:11px 22px;
  font-size:1rem;font-weight:600;min-height:44px;text-decoration:none;cursor:pointer}
.code{font:700 1.5rem ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.06em;background:#e0e7ff;color:#1e1b4b;
  padding:4px 12px;border-radius:6px;user-select:all}
.why{color:#374151}
"""


def page(title: str, body: str, status: int = 200, reason: str = "ok", lang: str = "en") -> HTMLResponse:
    """A small self-contained page (no script, no outside asset); ``reason`` is kept in ``data-reason`` for tests."""
    html = (
        f'<!doctype html><html lang="{esc(lang)}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{PAGE_CSS}</style></head>"
        f'<body><main id="vgm-page" data-reason="{esc(reason)}"><h1>{esc(title)}</h1>{body}</main></body></html>'
    )
    return HTMLResponse(html, status_code=status, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})


def refused_page(exc: EnrollmentRefused, back: str | None = None) -> HTMLResponse:
    link = f'<p><a class="button" href="{esc(back)}">Back to the items</a></p>' if back else ""
    return page(exc.title, f'<div class="card"><p class="why" id="vgm-why">{esc(exc)}.</p></div>{link}', exc.status, exc.reason)


def markdown_html(text: str) -> str:
    """The consent form as HTML: Markdown with raw HTML escaped and unsafe links dropped (markdown-it)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).render(text)


def _hidden(fields: dict[str, str]) -> str:
    return "".join(f'<input type="hidden" name="{esc(k)}" value="{esc(v)}">' for k, v in fields.items())


def start_page(study: Study, action: str, fields: dict[str, str]) -> HTMLResponse:
    """The page before the first item, in the study's language: the consent form with 'I agree' (or,
    without one, what the task is). The consent form itself is shown as its author wrote it."""
    from ._rate_text import text_for

    t = text_for(study.lang())
    summary, plan = study.owner().summary(), study.design()
    total = plan.per_rater + summary["attention_items"] if plan is not None else summary["items"]  # a design: one share
    about = f'<p>{esc(t["start_about"].format(total=total))}</p>'
    text = study.consent_text()
    if text:
        body = (f'<div class="card consent" id="consent-text">{markdown_html(text)}</div>'
                f'<form method="post" action="{esc(action)}">{_hidden(fields)}'
                '<label class="agree"><input type="checkbox" name="consent" value="yes" id="consent-agree" required>'
                f'<span>{esc(t["agree"])}</span></label>'
                f'<button type="submit" id="consent-start">{esc(t["start"])}</button></form><div class="why">{about}</div>')
        return page(t["start_title"], body, reason="consent", lang=study.lang())
    body = (f'<div class="card">{about}</div><form method="post" action="{esc(action)}">{_hidden(fields)}'
            f'<button type="submit" id="consent-start">{esc(t["start"])}</button></form>')
    return page(t["start_title"], body, reason="start", lang=study.lang())


def end_page(code: str | None, finish_url: str | None, total: int) -> HTMLResponse:
    parts = [f"<p>You rated all {total} items. Thank you!</p>"]
    if code:
        parts.append(f'<p>Your completion code: <span class="code" id="vgm-code">{esc(code)}</span></p>')
    if finish_url:
        parts.append(f'<p><a class="button" id="vgm-finish" rel="noreferrer" href="{esc(finish_url)}">Return to your study platform</a></p>')
    else:
        parts.append("<p>You can close this page.</p>")
    return page("All done", f'<div class="card">{"".join(parts)}</div>', reason="done")


def page_router(ctx: AppContext) -> APIRouter:
    """``/enroll/<key>`` (open enrollment with consent), ``/consent`` (for invited raters), ``/complete``."""
    router = APIRouter()

    def closed() -> EnrollmentRefused:
        return EnrollmentRefused("closed", "this enrollment link is not valid; check the link you were given")

    def to_items(token: str) -> RedirectResponse:
        return RedirectResponse(f"/?token={quote(token, safe='')}", status_code=303, headers={"Cache-Control": "no-store"})

    def arrive(key: str, params: dict, form: dict | None, secret: str | None):
        """GET shows the start page (or resumes a returning participant); POST enrolls. One rule set, in the store.

        A new participant's browser keeps its secret in a cookie for this link; coming back, that
        cookie (or the platform's session id) is the proof that it is the same person."""
        study = ctx.study
        try:
            if study is None:
                raise closed()
            crowd = study.check_enroll_key(key)
            who = participant_from(crowd.platform, params)
            if form is None:
                back = study.returning(key, who, secret)
                if back is not None:
                    return to_items(back.token)
                if study.full():
                    raise EnrollmentRefused("full", "all places in this study are taken; thank you for your interest")
                return start_page(study, f"/enroll/{key}", who.query)
            found, _ = study.enroll(key, who, consent=form.get("consent") == "yes", secret=secret)
            reply = to_items(found.token)
            if found.secret:
                reply.set_cookie(SECRET_COOKIE, found.secret, max_age=30 * 86400, path=f"/enroll/{key}",
                                 httponly=True, samesite="lax")
            return reply
        except EnrollmentRefused as exc:
            return refused_page(exc)

    @router.get("/enroll/{key}", response_class=HTMLResponse)
    def enroll_page(key: str, request: Request):
        return arrive(key[:ID_MAX], dict(request.query_params), None, request.cookies.get(SECRET_COOKIE))

    @router.post("/enroll/{key}", response_class=HTMLResponse)
    async def enroll_form(key: str, request: Request):
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        return await run_in_threadpool(arrive, key[:ID_MAX], form, form, request.cookies.get(SECRET_COOKIE))

    def rater_or_page(token) -> RaterView | HTMLResponse:
        try:
            if ctx.study is None:
                raise AccessDenied()
            return ctx.study.rater(token if isinstance(token, str) else None)
        except AccessDenied as exc:
            return page("Access denied", f'<div class="card"><p class="why">{esc(exc)}</p></div>', 401, "denied")

    @router.get("/consent", response_class=HTMLResponse)
    def consent_page(request: Request):
        view = rater_or_page(request.query_params.get("token"))
        if isinstance(view, HTMLResponse):
            return view
        if not view.needs_consent():
            return to_items(view.rater.token)
        return start_page(ctx.study, "/consent", {"token": view.rater.token})

    @router.post("/consent", response_class=HTMLResponse)
    async def consent_form(request: Request):
        form = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        view = await run_in_threadpool(rater_or_page, form.get("token"))
        if isinstance(view, HTMLResponse):
            return view
        if form.get("consent") != "yes" and await run_in_threadpool(view.needs_consent):
            return refused_page(EnrollmentRefused("consent", "to take part, read the consent form and tick 'I agree'"))
        await run_in_threadpool(view.consent)
        return to_items(view.rater.token)

    @router.get("/complete", response_class=HTMLResponse)
    def complete_page(request: Request):
        """Record completion and send the participant on; before the last item, a clear page and no write."""
        view = rater_or_page(request.query_params.get("token"))
        if isinstance(view, HTMLResponse):
            return view
        try:
            done = view.complete()
        except EnrollmentRefused as exc:
            return refused_page(exc, back=f"/?token={quote(view.rater.token, safe='')}")
        if done.finish_url:
            return RedirectResponse(done.finish_url, status_code=303, headers={"Cache-Control": "no-store"})
        return end_page(done.code, None, done.total)

    return router
