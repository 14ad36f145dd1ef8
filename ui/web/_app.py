"""The whole web app: one Gradio page with the Rate, Play, Compare and Beliefs tabs, plus the rating API.

The visitor's token is read once from the page address (``/?token=...``) into server-side
session state; every handler checks it again. With a study loaded, a rater sees only the
Rate tab (the other tabs would reveal which pipeline wrote what); the admin sees everything.
"""
from __future__ import annotations

from pathlib import Path

import gradio as gr
from fastapi import FastAPI

from eval.ratings import Study

from ._api import rate_router
from ._common import CSS, AppContext
from ._rate import RateTab


def build_blocks(ctx: AppContext) -> gr.Blocks:
    """The Gradio page for ``ctx``; the tabs are built by their modules."""
    from ._beliefs import BeliefsTab
    from ._compare import CompareTab
    from ._play import PlayTab

    with gr.Blocks(title="virtual-gm", analytics_enabled=False) as blocks:
        token = gr.State(None)
        gr.Markdown("## virtual-gm", elem_id="vgm-title")
        with gr.Tabs(elem_id="vgm-tabs"):
            rate = RateTab(ctx, token)
            play = PlayTab(ctx, token)
            compare = CompareTab(ctx, token)
            beliefs = BeliefsTab(ctx, token)
        owner_tabs = [play, compare, beliefs]
        if ctx.study is not None:  # hidden until the admin token shows up, so a rater never sees them
            for tab in owner_tabs:
                tab.tab.visible = False

        def on_load(request: gr.Request):
            tok = request.query_params.get("token") if request else None
            role = ctx.role(tok)
            updates = {token: tok, **rate.on_load(tok)}
            for tab in owner_tabs:
                updates[tab.tab] = gr.update(visible=role == "admin")
                if role == "admin":
                    updates.update(tab.on_load(tok))
            if ctx.study is not None and role != "admin":
                updates[rate.tab] = gr.update(visible=True)
            return updates

        outputs = [token, rate.tab, *rate.load_outputs]
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
        study=Study.open(study) if study else None,
        runs_dir=Path(runs_dir),
        logs_dir=Path(logs_dir) if logs_dir else None,
        model=model,
        saves_dir=Path(saves_dir),
    )
    app = FastAPI(title="virtual-gm", docs_url=None, redoc_url=None, openapi_url=None)
    app.include_router(rate_router(ctx))

    @app.get("/healthz")
    def healthz() -> dict:
        return {"ok": True, "study": ctx.study.name if ctx.study else None}

    blocks = build_blocks(ctx)
    blocks.queue(default_concurrency_limit=8)
    app = gr.mount_gradio_app(app, blocks, path="/", css=CSS, footer_links=[], ssr_mode=False)
    app.state.vgm = ctx
    return app


def serve(host: str = "127.0.0.1", port: int = 7860, announce=None, **kwargs) -> None:
    """Run the app until interrupted (``vgm ui``). Only loopback unless ``host`` says otherwise."""
    import socket

    import uvicorn

    from rulesets import VgmError

    with socket.socket() as probe:  # say it in one line, before Gradio and the study load
        try:
            probe.bind((host, port))
        except OSError:
            raise VgmError(f"{host}:{port} is already in use; pass another --port (e.g. --port {port + 1})") from None
    app = create_app(**kwargs)
    if announce:
        announce(f"virtual-gm web app on http://{host}:{port}/  (Ctrl+C stops it)")
    # A longer keep-alive than uvicorn's 5 s: a busy rater's browser or script reuses its
    # connection instead of racing the server closing it.
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_keep_alive=30)
