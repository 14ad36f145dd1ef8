"""The whole web app: one Gradio page with the Rate, Play, Compare, Beliefs and InMind tabs, plus the rating API.

The visitor's token is read once from the page address (``/?token=...``) into server-side
session state; every handler checks it again. With a study loaded, a rater sees only the
Rate tab (the other tabs would reveal which pipeline wrote what); the admin sees everything.
"""
from __future__ import annotations

from pathlib import Path

import gradio as gr
from fastapi import FastAPI

from eval.ratings import Study

from ._api import page_router, rate_router
from ._common import CSS, AppContext
from ._guard import RequestGuard, bearer_token, is_form, json_errors
from ._rate import RATE_CSS, RATE_HEAD, RATE_JS, RateTab


def build_blocks(ctx: AppContext) -> gr.Blocks:
    """The Gradio page for ``ctx``; the tabs are built by their modules."""
    from ._beliefs import BeliefsTab
    from ._compare import CompareTab
    from ._inmind import InMindTab
    from ._play import PlayTab

    with gr.Blocks(title="virtual-gm", analytics_enabled=False) as blocks:
        token = gr.State(None)
        title = gr.Markdown("## virtual-gm", elem_id="vgm-title")
        with gr.Tabs(elem_id="vgm-tabs"):
            rate = RateTab(ctx, token)
            play = PlayTab(ctx, token)
            compare = CompareTab(ctx, token)
            beliefs = BeliefsTab(ctx, token)
            inmind = InMindTab(ctx, token)
        owner_tabs = [play, compare, beliefs, inmind]
        if ctx.study is not None:  # hidden until the admin token shows up, so a rater never sees them
            for tab in owner_tabs:
                tab.tab.visible = False

        def on_load(request: gr.Request):
            tok = request.query_params.get("token") if request else None
            role = ctx.role(tok)
            updates = {token: tok, **rate.on_load(tok), title: gr.update(visible=role != "rater")}
            for tab in owner_tabs:
                updates[tab.tab] = gr.update(visible=role == "admin")
                if role == "admin":
                    updates.update(tab.on_load(tok, dict(request.query_params) if request else {}) if tab is beliefs else tab.on_load(tok))  # beliefs: ?game=&round=&seat=
            if ctx.study is not None and role != "admin":
                updates[rate.tab] = gr.update(visible=True)
            return updates

        outputs = [token, title, rate.tab, *rate.load_outputs]
        for tab in owner_tabs:
            outputs += [tab.tab, *tab.load_outputs]
        blocks.load(on_load, None, outputs, api_visibility="private")
    return blocks


def create_app(
    study: str | Path | None = None,
    runs_dir: str | Path = "runs",
    logs_dir: str | Path | None = None,
    model: str | None = None,
    saves_dir: str | Path = "saves",
) -> FastAPI:
    """The served application: the rating API under ``/api/rate`` and the page at ``/``."""
    ctx = AppContext(
        study=Study.open(study, keep_open=True) if study else None,
        runs_dir=Path(runs_dir),
        logs_dir=Path(logs_dir) if logs_dir else None,
        model=model,
        saves_dir=Path(saves_dir),
    )
    app = FastAPI(title="virtual-gm", docs_url=None, redoc_url=None, openapi_url=None)
    json_errors(app)
    app.include_router(rate_router(ctx))
    app.include_router(page_router(ctx))  # /enroll/<key>, /consent, /complete: before the page takes "/"

    @app.get("/healthz")
    def healthz() -> dict:
        return {"ok": True, "study": ctx.study.name if ctx.study else None}

    blocks = build_blocks(ctx)
    blocks.queue(default_concurrency_limit=8)
    app = gr.mount_gradio_app(app, blocks, path="/", css=CSS + RATE_CSS, js=RATE_JS, head=RATE_HEAD, footer_links=[], ssr_mode=False)
    app.add_middleware(RequestGuard, max_body=_max_body, authorize=lambda scope: _authorize(ctx, scope), json_body=_json_body)
    app.state.vgm = ctx
    return app


# The request guard's rules for this app (``ui.web._guard``): the rating API and the crowd pages'
# forms are small; the Gradio page's own calls carry a tab's state (a long Play chat), so more.
API_MAX_BODY = 64 * 1024
PAGE_MAX_BODY = 4 * 1024 * 1024


def _max_body(scope: dict) -> int:
    path = scope["path"]
    return API_MAX_BODY if path.startswith(("/api/rate/", "/enroll/", "/consent", "/complete")) else PAGE_MAX_BODY


def _json_body(scope: dict) -> bool:
    """The rating API and Gradio's calls are JSON; the crowd pages post forms, and Gradio uploads
    multipart (the guard checks only their size)."""
    if scope["path"].startswith("/api/rate/"):
        return True
    return not scope["path"].startswith(("/enroll/", "/consent", "/complete")) and not is_form(scope)


def _authorize(ctx: AppContext, scope: dict) -> tuple[int, str] | None:
    """A rating-API call with a body must carry a token this study knows, checked before the body is
    read (the route then checks what that token may do). Enrollment has no token yet: its key is
    checked by the route. Gradio's calls carry the token in the page's server-side state, checked by
    every handler."""
    path = scope["path"]
    if not path.startswith("/api/rate/") or path == "/api/rate/enroll":
        return None
    if ctx.study is None or ctx.study.role_of(bearer_token(scope)) is None:
        return 401, "access denied"
    return None


def served_url(host: str, port: int) -> str:
    """The address people reach the app at: a wildcard host (0.0.0.0, ::) becomes this machine's name."""
    import socket

    if host in ("0.0.0.0", "::", ""):
        host = socket.getfqdn() or socket.gethostname()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


def study_announcement(study: Study, base_url: str) -> list[str]:
    """What ``vgm ui --study`` prints: the admin link, the open enrollment link, the invited raters' links."""
    links = study.links(base_url)
    lines = [f"admin link (keep it private): {links['admin']}"]
    if links["enroll"]:
        lines.append(f"enrollment link ({links['platform']}): {links['enroll']}")
        if links["platform"] == "prolific":
            lines.append(f"  with Prolific's URL parameters: {links['enroll_with_ids']}")
        else:
            lines.append("  add the platform's participant id as ?PID=... (workerId= and participant_id= work too)")
    invited = [r for r in links["raters"] if r["source"] == "invited"]
    for r in invited[:20]:
        lines.append(f"{r['name']}: {r['link']}")
    if len(invited) > 20:
        lines.append(f"... and {len(invited) - 20} more raters: vgm rate links {study.path}")
    return lines


def serve(host: str = "127.0.0.1", port: int = 7860, announce=None, base_url: str | None = None, **kwargs) -> None:
    """Run the app until interrupted (``vgm ui``). Only loopback unless ``host`` says otherwise.

    With a study, ``announce`` gets the study's links on the address actually served (``base_url``
    when the app sits behind another address), and the study remembers it for ``vgm rate links``.
    """
    import uvicorn

    from ._address import check_address

    check_address(host, port)  # said in one line, before Gradio and the study load (the table's check, shared)
    app = create_app(**kwargs)
    url = served_url(host, port)
    study = app.state.vgm.study
    if study is not None:
        study.record_served_url(url)
    if announce:
        announce(f"virtual-gm web app on {url}/  (Ctrl+C stops it)")
        if study is not None:
            for line in study_announcement(study, study.base_url(base_url, served=url)):
                announce(line)
    # A longer keep-alive than uvicorn's 5 s: a busy rater's browser or script reuses its
    # connection instead of racing the server closing it.
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_keep_alive=30)
