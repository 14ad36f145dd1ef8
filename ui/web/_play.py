"""The Play tab (placeholder until its data source lands)."""
from __future__ import annotations

import gradio as gr

from ._common import AppContext


class PlayTab:
    def __init__(self, ctx: AppContext, token: gr.State):
        self.ctx = ctx
        with gr.Tab("Play", id="play") as self.tab:
            self.note = gr.Markdown("coming")
        self.load_outputs = [self.note]

    def on_load(self, token):
        return {}
