"""The Play tab: a table with the AI Game Master (``gm.agent.GameMaster``) in the browser.

The chat shows what each player says and what the GM answers; beside it, the characters at
the table, the checks the GM called (with the difficulty it chose and why) and every roll with
its dice breakdown. Sessions are saved after every turn and can be loaded again.
"""
from __future__ import annotations

import queue
import threading
from pathlib import Path

import gradio as gr

from rulesets import VgmError

from ._common import AppContext, esc

ROLL_HEADERS = ["who", "check", "dice = total", "vs", "outcome"]


def _gm_class():
    from gm.agent import GameMaster  # imported on use: the GM layer loads embeddings and rule packs

    return GameMaster


def scenario_choices() -> list[tuple[str, str]]:
    try:
        from gm.agent import catalogue

        return [(f"{c['title']} ({c['ruleset']})", c["scenario"]) for c in catalogue()]
    except (ImportError, VgmError):
        return []


def saved_sessions(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return [str(p) for p in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)]


def chat_from_session(gm) -> list[dict]:
    """The table log as chat messages: the GM on the left, each character (named) on the right."""
    out = []
    for turn in gm.session.log:
        if turn.speaker.upper() == "GM":
            out.append({"role": "assistant", "content": turn.text})
        else:
            out.append({"role": "user", "content": f"**{turn.speaker}**: {turn.text}"})
    return out


def reply_markdown(reply, verbose: bool = False) -> str:
    """The reply as the player reads it; the GM's notes only when ``verbose`` (they stay in the session log)."""
    # plain words, no emoji: a browser without an emoji font would show empty boxes
    lines = ["**no roll**: that cannot work"] if reply.decision == "impossible" else []
    lines += [f"**roll** `{r.line()}`" for r in reply.rolls]
    lines += [f"**waiting** for **{p.check.character}** to roll {p.check_name} ({p.expression}): {p.hint}" for p in reply.pending]
    if reply.narration:
        lines.append(reply.narration)
    lines += [f"_note: {n}_" for n in reply.notes] if verbose else []
    return "\n\n".join(lines) or "_(the GM has nothing to add)_"


def characters_markdown(gm) -> str:
    rows = []
    for sheet in gm.sheets:
        player = gm.player_of(sheet)
        who = f" — played by {esc(player)}" if player and player != sheet.name else ""
        rows.append(f"- **{esc(sheet.name)}**{who}  \n  {esc(sheet.summary(gm.ruleset))}")
    return "\n".join(rows)


def rolls_table(gm) -> list[list]:
    rolls = [r for t in gm.session.turns for r in t.rolls] + list(gm.session.free_rolls)
    return [[(r.character or "-").split()[0], r.check_name or "(free roll)", r.breakdown, r.target_label or "-", r.outcome or "-"]
            for r in rolls]


def checks_markdown(gm, reply=None) -> str:
    if reply is not None and (reply.checks or reply.difficulty):
        lines = [f"- **{esc(c.character)}** → {esc(c.skill.replace('_', ' '))}" for c in reply.checks]
        lines += [f"- _why_: {esc(d)}" for d in reply.difficulty]
        return "\n".join(lines)
    last = next((t for t in reversed(gm.session.turns) if t.checks), None)
    if last is None:
        return "_No check called yet._"
    return "\n".join(f"- **{esc(c.character)}** → {esc(c.skill.replace('_', ' '))}" for c in last.checks)


class PlayTab:
    def __init__(self, ctx: AppContext, token: gr.State):
        self.ctx = ctx
        self.token = token
        default_model = ctx.model_string
        with gr.Tab("Play", id="play") as self.tab:
            self.game = gr.State(None)
            with gr.Row():
                self.scenario = gr.Dropdown(label="Scenario", choices=[], allow_custom_value=True, scale=3, elem_id="play-scenario")
                self.model = gr.Textbox(label="Model", value=default_model if not ctx.model or isinstance(ctx.model, str) else "(given)",
                                        scale=2, elem_id="play-model")
                self.pipeline = gr.Textbox(label="Decision pipeline", value="adjudicate", scale=1)
                self.new_btn = gr.Button("New game", variant="primary", scale=1, elem_id="play-new")
            with gr.Row():
                self.saved = gr.Dropdown(label="Saved sessions", choices=[], allow_custom_value=True, scale=4, elem_id="play-saved")
                self.load_btn = gr.Button("Load", scale=1, elem_id="play-load")
                self.save_btn = gr.Button("Save", scale=1, elem_id="play-save")
            self.status = gr.Markdown(elem_id="play-status")
            with gr.Row():
                with gr.Column(scale=3):
                    self.chat = gr.Chatbot(label="The table", height=460, elem_id="play-chat")
                    with gr.Row():
                        self.who = gr.Dropdown(label="Who acts", choices=[], allow_custom_value=True, scale=1, elem_id="play-who")
                        self.text = gr.Textbox(label="What they do or say (or /roll 2d6+1)", scale=4, elem_id="play-text",
                                               placeholder="I search the altar for hidden catches")
                    self.send_btn = gr.Button("Send", variant="primary", elem_id="play-send")
                with gr.Column(scale=2):
                    gr.Markdown("#### Characters")
                    self.characters = gr.Markdown(elem_id="play-characters")
                    gr.Markdown("#### Checks the GM called")
                    self.checks = gr.Markdown(elem_id="play-checks")
                    self.rolls = gr.Dataframe(headers=ROLL_HEADERS, label="Dice (with breakdown)", interactive=False,
                                              wrap=True, column_widths=["16%", "22%", "32%", "12%", "18%"], elem_id="play-rolls")
        self.load_outputs = [self.scenario, self.saved]
        game_outputs = [self.game, self.status, self.chat, self.who, self.characters, self.checks, self.rolls, self.saved]
        self.new_btn.click(self._new, [self.token, self.scenario, self.model, self.pipeline], game_outputs, api_visibility="private")
        self.load_btn.click(self._load, [self.token, self.saved, self.model], game_outputs, api_visibility="private")
        self.save_btn.click(self._save, [self.token, self.game], [self.status, self.saved], api_visibility="private")
        send = dict(fn=self._send, inputs=[self.token, self.game, self.chat, self.who, self.text],
                    outputs=[self.chat, self.text, self.status, self.checks, self.rolls], api_visibility="private")
        self.send_btn.click(**send)
        self.text.submit(**send)

    def on_load(self, token) -> dict:
        choices = scenario_choices()
        return {
            self.scenario: gr.update(choices=choices, value=choices[0][1] if choices else None),
            self.saved: gr.update(choices=saved_sessions(self.ctx.saves_dir)),
        }

    def _model_for(self, typed: str):
        if self.ctx.model is not None and not isinstance(self.ctx.model, str):
            return self.ctx.model  # a model object given in code (tests, notebooks)
        return (typed or "").strip() or None

    def _show(self, gm, note: str) -> dict:
        names = [s.name for s in gm.sheets]
        return {
            self.game: gm,
            self.status: note,
            self.chat: chat_from_session(gm),
            self.who: gr.update(choices=names, value=names[0] if names else None),
            self.characters: characters_markdown(gm),
            self.checks: checks_markdown(gm),
            self.rolls: rolls_table(gm),
            self.saved: gr.update(choices=saved_sessions(self.ctx.saves_dir), value=gm.session.path),
        }

    def _error(self, exc: Exception) -> dict:
        return {self.status: f'<span class="vgm-denied">{esc(exc)}</span>'}

    def _new(self, token, scenario, model, pipeline):
        try:
            self.ctx.require_owner(token)
            gm = _gm_class()(None, scenario or None, self._model_for(model), pipeline=pipeline or "adjudicate",
                             memory=self.ctx.memory, session_path=self.ctx.saves_dir)
        except VgmError as exc:
            return self._error(exc)
        return self._show(gm, f"New game: **{esc(gm.scenario.title)}** ({gm.ruleset.name}); saved as `{esc(gm.session.path)}`.")

    def _load(self, token, path, model):
        try:
            self.ctx.require_owner(token)
            if not path:
                raise VgmError("pick a saved session first (sessions are saved after every turn)")
            gm = _gm_class().resume(path, self._model_for(model), memory=self.ctx.memory)
        except VgmError as exc:
            return self._error(exc)
        return self._show(gm, f"Loaded `{esc(path)}`: {len(gm.session.turns)} turns so far.")

    def _save(self, token, gm):
        try:
            self.ctx.require_owner(token)
        except VgmError as exc:
            return {self.status: esc(exc)}
        if gm is None:
            return {self.status: "Start or load a game first."}
        path = gm.save() or gm.session.save(self.ctx.saves_dir / f"{gm.session.id}.json")
        return {self.status: f"Saved to `{esc(path)}`.", self.saved: gr.update(choices=saved_sessions(self.ctx.saves_dir), value=str(path))}

    def _send(self, token, gm, chat, who, text):
        """Stream the GM's answer: a thinking note while it decides, the narration as it is
        written, then the whole reply (rolls, notes) once the turn is saved."""
        try:
            self.ctx.require_owner(token)
            if gm is None:
                raise VgmError("start a new game or load one first")
        except VgmError as exc:
            yield self._error(exc)
            return
        said = list(chat or []) + [{"role": "user", "content": f"**{esc(who or '')}**: {esc(text)}"}]
        pieces: queue.Queue = queue.Queue()
        outcome: dict = {}

        def turn() -> None:  # the GM's own event loop runs here, off Gradio's worker
            try:
                outcome["reply"] = gm.step(who or "", text, on_token=pieces.put)
            except Exception as exc:  # handed back to the generator below
                outcome["error"] = exc
            finally:
                pieces.put(None)

        threading.Thread(target=turn, daemon=True, name="gm-turn").start()
        yield {self.chat: said + [{"role": "assistant", "content": "_the GM is thinking…_"}], self.text: "", self.status: ""}
        shown = ""
        while (delta := pieces.get()) is not None:
            shown += delta
            yield {self.chat: said + [{"role": "assistant", "content": esc(shown)}]}
        if "error" in outcome:
            if isinstance(outcome["error"], VgmError):
                yield {**self._error(outcome["error"]), self.chat: list(chat or []), self.text: text}
                return
            raise outcome["error"]
        reply = outcome["reply"]
        said[-1] = {"role": "user", "content": f"**{esc(reply.character or who or '')}**: {esc(text)}"}
        yield {self.chat: said + [{"role": "assistant", "content": reply_markdown(reply)}], self.text: "", self.status: "",
               self.checks: checks_markdown(gm, reply), self.rolls: rolls_table(gm)}
