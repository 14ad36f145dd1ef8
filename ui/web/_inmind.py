"""The InMind tab: record an InMind-Avalon session as a human subject, in the browser.

The person picks the mode (participant: they play the seat; observer: they watch it), the language,
their seat, what plays the other seats and the sessions folder, then plays: the left column shows
what their seat may see, the right column asks for what the game waits for (a team, a speech, a
vote, a mission card, the Assassin's pick), a strategy trace at each proposal and the reflection at
the end. The file written is the one ``vgm avalon play --inmind-record`` writes (``_inmind_game``
drives the same recorder), so ``vgm inmind import|tasks`` read it.
"""
from __future__ import annotations

from pathlib import Path

import gradio as gr

from rulesets import VgmError

from ._common import AppContext, esc
from ._inmind_game import WebRecording

SEATS = 6  # InMind masks seats as the digits 1-6
WAIT_S = 20.0  # how long a click waits for the game to ask again before the page polls instead

LABELS = {
    "propose": "Propose a team", "speak": "Your speech", "vote": "Vote on the team", "mission": "Your mission card",
    "evil_talk": "Talk with your side", "assassinate": "Name Merlin", "trace": "Strategy trace", "reflection": "Reflection",
}
CHOICES = {
    "vote": [("Approve", "y"), ("Reject", "n")],
    "mission": [("Success", "s"), ("Fail", "f")],
}
TEXT_LABELS = {
    "speak": "What you say (leave empty to pass)", "evil_talk": "What you say (leave empty to pass)",
    "trace": "Your strategy trace (private notes: your read, whom you suspect and why, your plan)",
    "reflection": "Your reflection (key moments, reads right and wrong, how the others played)",
}


def _stop(rec: WebRecording | None) -> None:
    """A closed page: the game waiting for it ends, nothing is written for it."""
    if rec is not None:
        rec.stop()


def view_html(lines: list[str], height: int = 520) -> str:
    """The seat's view, newest at the bottom (column-reverse keeps the box scrolled there)."""
    rows = "".join(f'<div class="vgm-turn" style="white-space:pre-wrap">{esc(line)}</div>' for line in lines)
    return (f'<div class="vgm-log" style="max-height:{height}px;overflow-y:auto;display:flex;flex-direction:column-reverse">'
            f"<div>{rows or '<i>(no game yet)</i>'}</div></div>")


def _role(rec: WebRecording) -> str:
    from gm.avalon.inmind_record import DATA_ROLES

    role = rec.play.table.roles[rec.play.you]
    return DATA_ROLES[rec.lang].get(role, role)


class InMindTab:
    def __init__(self, ctx: AppContext, token: gr.State):
        self.ctx = ctx
        self.token = token
        default_others = ctx.model_string
        with gr.Tab("InMind", id="inmind") as self.tab:
            gr.Markdown("Record an **InMind-Avalon session** as a human subject. *Participant*: you play the seat and write "
                        "a strategy trace at every proposal, then a reflection. *Observer*: you watch the seat (you see what "
                        "it sees) and write the same notes. The session file goes to the output folder when the game ends.")
            with gr.Row():
                self.mode = gr.Radio(["participant", "observer"], value="participant", label="Mode", elem_id="inmind-mode")
                self.lang = gr.Radio(["en", "zh"], value="en", label="Language", elem_id="inmind-lang")
                self.seat = gr.Dropdown(list(range(1, SEATS + 1)), value=1, label="Your seat (InMind's player number)",
                                        elem_id="inmind-seat")
                self.seed = gr.Number(value=None, precision=0, label="Seed (empty = random)", elem_id="inmind-seed")
            with gr.Row():
                self.others = gr.Textbox(label="Other seats: a model string (local, openai:<model>, scripted:<file.yaml>) "
                                               "or scripted for rule-based players", value=default_others, scale=3,
                                         elem_id="inmind-others")
                self.out = gr.Textbox(label="Output folder (the sessions folder)", value="runs/inmind", scale=2, elem_id="inmind-out")
            with gr.Row():
                self.start_btn = gr.Button("Start game", variant="primary", elem_id="inmind-start")
                self.stop_btn = gr.Button("Stop game", elem_id="inmind-stop")
            self.status = gr.Markdown(elem_id="inmind-status")
            with gr.Row():
                with gr.Column(scale=3):
                    self.view = gr.HTML(view_html([]), elem_id="inmind-view")
                with gr.Column(scale=2):
                    self.question = gr.Markdown(elem_id="inmind-question")
                    self.alert = gr.Markdown(elem_id="inmind-alert")
                    self.team = gr.CheckboxGroup([], label="Team", visible=False, elem_id="inmind-team")
                    self.choice = gr.Radio([], label="Your choice", visible=False, elem_id="inmind-choice")
                    self.text = gr.Textbox(label="Your answer", lines=4, visible=False, elem_id="inmind-text")
                    self.knife = gr.Checkbox(False, label="Call the early assassination (evil only)", visible=False,
                                             elem_id="inmind-knife")
                    self.send_btn = gr.Button("Send", variant="primary", visible=False, elem_id="inmind-send")
            self.rec = gr.State(None, delete_callback=_stop)
            self.timer = gr.Timer(1.0, active=False)
        self.load_outputs: list = []
        shown = [self.rec, self.status, self.view, self.question, self.alert, self.team, self.choice, self.text, self.knife,
                 self.send_btn, self.timer]
        private = {"api_visibility": "private"}
        self.start_btn.click(self._start, [self.token, self.rec, self.mode, self.lang, self.seat, self.others, self.out, self.seed],
                             shown, **private)
        self.send_btn.click(self._send, [self.token, self.rec, self.team, self.choice, self.text, self.knife], shown, **private)
        self.stop_btn.click(self._stop, [self.token, self.rec], shown, **private)
        self.timer.tick(self._poll, [self.token, self.rec], shown, **private)

    def on_load(self, token) -> dict:
        return {}

    # ---- what the page shows -----------------------------------------------------------------------
    def _show(self, rec: WebRecording | None, alert: str = "") -> dict:
        """The whole tab for the game's state: status, the seat's view, and the widgets the pending request needs."""
        hidden = {"visible": False}
        out = {self.rec: rec, self.alert: alert, self.team: gr.update(**hidden), self.choice: gr.update(**hidden),
               self.text: gr.update(**hidden), self.knife: gr.update(**hidden), self.send_btn: gr.update(**hidden),
               self.question: "", self.timer: gr.Timer(active=False)}
        if rec is None:
            return {**out, self.status: "", self.view: view_html([])}
        out[self.view] = view_html(rec.view())
        you, folder = rec.play.you, rec.play.path.parent
        who = f"{'playing' if rec.mode == 'participant' else 'watching'} **{esc(you)}** ({esc(_role(rec))})"
        if rec.done:
            if rec.result is not None:
                r = rec.result
                out[self.status] = (f"Game over: **{esc(r['winner'])}** wins ({esc(r['reason'])}); you were {who}. "
                                    f"Session saved to `{esc(r['log'])}`; read it with `vgm inmind import --data {esc(folder)}`.")
            elif rec.stopped:
                out[self.status] = (f"Stopped: nothing was written for this game; sessions finished before in `{esc(folder)}` "
                                    "are as they were.")
            else:
                out[self.status] = f'<span class="vgm-denied">{esc(rec.failure)}</span>'
            return out
        request = rec.request
        if request is None:  # the other seats are playing: poll until the game asks again
            return {**out, self.status: f"Recording as {rec.mode}, {who}. The other seats are playing…", self.timer: gr.Timer(active=True)}
        out[self.status] = f"Recording as {rec.mode}, {who}. Your turn."
        out[self.question] = f"**{request.n}. {LABELS.get(request.kind, request.kind)}**\n\n{esc(request.question)}"
        if request.error:
            out[self.alert] = f'<span class="vgm-denied">{esc(request.error)}</span>'
        kind = request.kind
        if kind == "propose":
            out[self.team] = gr.update(choices=request.options, value=[], visible=True, label=f"Team of {request.size}")
        elif kind in CHOICES or kind == "assassinate":
            choices = CHOICES.get(kind) or request.options
            out[self.choice] = gr.update(choices=choices, value=None, visible=True, label=LABELS[kind])
        if kind in TEXT_LABELS:
            keep = {} if request.error else {"value": ""}  # a refused speech stays in the box, to be shortened
            out[self.text] = gr.update(visible=True, label=TEXT_LABELS[kind], **keep)
        if kind == "speak" and request.may_call:
            out[self.knife] = gr.update(value=False, visible=True)
        out[self.send_btn] = gr.update(visible=True)
        return out

    def _error(self, rec: WebRecording | None, message, *, where: str = "status") -> dict:
        """One line in red, the rest of the tab as the game stands."""
        out = self._show(rec)
        line = f'<span class="vgm-denied">{esc(message)}</span>'
        if where == "alert":
            out[self.alert] = line
            for widget in (self.team, self.choice, self.text, self.knife):  # keep what the person typed or picked
                if out[widget].get("visible"):
                    out[widget] = gr.update(visible=True)
        else:
            out[self.status] = line
        return out

    # ---- events -----------------------------------------------------------------------------------
    def _start(self, token, old: WebRecording | None, mode, lang, seat, others, out, seed):
        try:
            self.ctx.require_owner(token)
            if not (out or "").strip():
                raise VgmError("give an output folder: the session file goes there when the game ends")
            if seed is not None and seed != "":
                try:
                    seed = int(seed)
                except (TypeError, ValueError):
                    raise VgmError(f"seed {seed!r}: give a whole number, or leave it empty for a random game") from None
            else:
                seed = None
            rec = WebRecording(mode=mode, out=str(Path(out.strip()).expanduser()), seat=int(seat or 1), others=others, lang=lang,
                               seed=seed)
        except VgmError as exc:
            return self._error(old, exc)
        _stop(old)  # a new game replaces one left unfinished (nothing is written for that one)
        return self._show(rec.start(WAIT_S))

    def _send(self, token, rec: WebRecording | None, team, choice, text, knife):
        try:
            self.ctx.require_owner(token)
            if rec is None:
                raise VgmError("start a game first")
            request = rec.request
            if request is None:
                return self._show(rec)  # answered already (a double click) or the game moved on
            kind = request.kind
            if kind == "propose":
                answer = ", ".join(team or [])
            elif kind in CHOICES or kind == "assassinate":
                if not choice:
                    raise VgmError("pick one of the choices first")
                answer = str(choice)
            elif kind == "speak" and knife:
                answer = "!knife " + (text or "")
            else:
                answer = text or ""
            rec.answer(answer, WAIT_S)
        except VgmError as exc:
            return self._error(rec, exc, where="alert")
        return self._show(rec)

    def _stop(self, token, rec: WebRecording | None):
        try:
            self.ctx.require_owner(token)
            if rec is None:
                raise VgmError("no game is running")
        except VgmError as exc:
            return self._error(rec, exc)
        rec.stop(timeout=5.0)
        return self._show(rec)

    def _poll(self, token, rec: WebRecording | None):
        """While the other seats play: the view grows; once the game asks (or ends), the whole tab is redrawn."""
        if rec is None or rec.done or rec.request is not None:
            return self._show(rec)
        return {self.view: view_html(rec.view())}


__all__ = ["InMindTab", "view_html"]
