"""Play each case from a fresh GM, write the decisions as they come, resume after a stop.

The run folder holds::

    run.json          model, seed, pipeline, when it started (a rerun must use the same model and seed)
    decisions.jsonl   one line per case, flushed as soon as it is played:
                      {"id", "ruleset", "character", "decision", "checks": [{"character", "skill"}],
                       "outcome": "success"|"failure"|"none"|"refused", "narration", "turn_s",
                       "first_token_s", "seed", "notes", "reply", "speaker", "history_played",
                       "revealed_before", "revealed"}  — or {"id", "ruleset", "error"} when
                      the case raised; a turn the GM finished without a step that broke (its
                      decision, say) keeps its record and carries an "error" too
    summary.json      the metrics of ``_summary`` over every case of the set played so far

``reply`` is the narration the player sees (``speaker`` the NPC the GM says is speaking, when it
says); ``history_played`` the case's earlier turns with what the GM answered to each;
``revealed_before`` the secrets found before the line and ``revealed`` those found after it (a
secret the line itself found may be told; see ``_summary.leaked_secrets``).

A rerun into the same folder skips the ids already answered and plays the rest; a case that
errored is played again (its error line is dropped), like the MOE runner retries failed instances.
"""
from __future__ import annotations

import json
import time
import zlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from gm.agent import GameMaster
from pipelines.llm import get_model
from rulesets import FileProblem, VgmError, read_jsonl, write_atomic

from ._cases import PlayCase
from ._summary import Summary, summarize

__all__ = ["RunError", "run_cases", "read_decisions", "decide", "play_history", "outcome_of", "case_seed", "PIPELINE"]

PIPELINE = "adjudicate"

MakeGM = Callable[[PlayCase, Any, int], Any]
OnProgress = Callable[[int, int, "dict[str, Any] | None"], None]


class RunError(VgmError):
    """A run folder that cannot be resumed as asked."""


def case_seed(seed: int, case_id: str) -> int:
    """The dice seed for one case: fixed by the run seed and the case id.

    Each case gets its own stream, so a set is not judged on one repeated d20 and a case rolls
    the same dice whatever else is in the set, in whatever order, resumed or not.
    """
    return (seed * 1_000_003 + zlib.crc32(case_id.encode("utf-8"))) % (2**31 - 1)


def _default_gm(case: PlayCase, model: Any, seed: int) -> Any:
    return GameMaster(case.ruleset, case.to_scenario(), model, pipeline=PIPELINE,
                      characters=case.speakers, memory=False, seed=seed)


def _revealed(gm: Any) -> list[str]:
    return list(getattr(getattr(gm, "session", None), "revealed", None) or [])


def _tell(gm: Any, text: str) -> None:
    """Put a GM line in the log as said (``GameMaster.say``): a history line not played."""
    say = getattr(gm, "say", None)
    if say is None:
        raise RunError(f"{type(gm).__name__} cannot take a GM line (no `say`); drop the case's GM history lines or give the GM a `say(text)`")
    say(text)


def play_history(case: PlayCase, gm: Any) -> list[dict[str, Any]]:
    """Play the case's earlier turns on ``gm`` in order: a character's line as a turn, a GM line into the log.
    A character's line the case answers with a GM line gets that line as its reply (``GameMaster.reword``):
    the reply the GM made up would be words the table never heard, and a recall could find them."""
    played, skip = [], set()
    for at, said in enumerate(case.history):
        if at in skip:
            continue
        if said.speaker == "GM":
            _tell(gm, said.text)
            played.append({"speaker": "GM", "text": said.text})
            continue
        reply = gm.step(said.speaker, said.text)
        played.append({"speaker": said.speaker, "text": said.text, "reply": getattr(reply, "narration", "") or ""})
        given = case.history[at + 1] if at + 1 < len(case.history) else None
        if given is not None and given.speaker == "GM" and getattr(gm, "reword", None) is not None and gm.reword(given.text):
            played.append({"speaker": "GM", "text": given.text, "reworded": True})
            skip.add(at + 1)
    return played


def _shared_model(model: Any) -> Any:
    """A model string resolved once, so every case shares one client (and one local server)."""
    if model is None or isinstance(model, str):
        return get_model(model)
    return model


def outcome_of(decision: str, rolls: list[Any]) -> str:
    """``refused`` for an impossible act, ``none`` without dice, else ``success`` only if every roll succeeded."""
    if decision == "impossible":
        return "refused"
    if decision != "roll" or not rolls:
        return "none"
    return "success" if all(getattr(r, "success", None) is True for r in rolls) else "failure"


def decide(case: PlayCase, gm: Any, seed: int) -> dict[str, Any]:
    """Play the case's history, then its line, on ``gm`` and return the line's decision record."""
    history = play_history(case, gm)
    before = _revealed(gm)
    started = time.perf_counter()
    reply = gm.step(case.character, case.line)
    wall = time.perf_counter() - started
    checks = [{"character": c.character, "skill": c.skill} for c in reply.checks]
    rolls = list(reply.rolls)
    # until every GM reports its decision, infer it from what was called
    decision = getattr(reply, "decision", None) or ("roll" if checks or rolls else "no_roll")
    timing = getattr(reply, "timing", None) or {}
    turn_s = timing.get("turn_s")
    failed = getattr(reply, "failed", "")  # a broken step is an error even though the turn went on
    return {
        **({"error": f"the GM went on without its {failed}"} if failed else {}),
        "id": case.id, "ruleset": case.ruleset, "character": case.character,
        "decision": decision, "checks": checks, "outcome": outcome_of(decision, rolls),
        "narration": reply.narration,
        "turn_s": round(float(turn_s if turn_s is not None else wall), 3),
        "first_token_s": None if timing.get("first_token_s") is None else round(float(timing["first_token_s"]), 3),
        "seed": seed, "notes": list(getattr(reply, "notes", []) or []),
        "reply": reply.narration, "speaker": getattr(reply, "speaker", None) or None,
        "history_played": history, "revealed_before": before, "revealed": _revealed(gm),
    }


def read_decisions(path: str | Path) -> list[dict[str, Any]]:
    """The records of a ``decisions.jsonl`` (last line per id wins); a torn last line is ignored.

    Raises:
        RunError: a line other than the last is not JSON (the file was edited by hand).
    """
    path = Path(path)
    if not path.is_file():
        return []
    by_id: dict[str, dict[str, Any]] = {}
    try:  # a last line killed mid-write is skipped: that case is played again
        for number, record in read_jsonl(path, what="decisions file", on_torn="ignore").numbered():
            if not isinstance(record.get("id"), str):
                raise RunError(f"{path}:{number}: a decision line is an object with an `id`; fix or remove that line to resume")
            by_id[record["id"]] = record
    except FileProblem as problem:
        raise RunError(f"{problem} (or move the file away to start the run afresh)") from None
    return list(by_id.values())


def _model_label(model: Any) -> str | None:
    if model is None or isinstance(model, str):
        return model
    return getattr(model, "name", None) or type(model).__name__


def _check_run(folder: Path, model: Any, seed: int) -> None:
    """Refuse to mix two runs in one folder; write ``run.json`` for a new one."""
    info = folder / "run.json"
    label = _model_label(model)
    if info.is_file():
        try:
            old = json.loads(info.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            old = {}
        if isinstance(old, dict) and old.get("seed") not in (None, seed):
            raise RunError(f"{folder} holds a run with seed {old['seed']}, not {seed}; use the same --seed or another -o folder")
        if isinstance(old, dict) and old.get("model") and label and old["model"] != label:
            raise RunError(f"{folder} holds a run with model {old['model']!r}, not {label!r}; use the same --model or another -o folder")
        if isinstance(old, dict) and old:
            return
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    write_atomic(info, json.dumps({"model": label, "seed": seed, "pipeline": PIPELINE, "started": started}, indent=1) + "\n")


def run_cases(
    cases: list[PlayCase],
    model: Any,
    out_dir: str | Path,
    *,
    make_gm: MakeGM | None = None,
    seed: int = 7,
    on_progress: OnProgress | None = None,
) -> Summary:
    """Play every case from a fresh GM and score the decisions.

    Args:
        cases: the cases (``load_cases``), played in order.
        model: a model string (``local``, ``openai:...``, ``scripted:f.yaml``; None = the default)
            or a ``ChatModel``; a string is resolved once and shared by every case.
        out_dir: the run folder; created if needed, resumed if it holds decisions.
        make_gm: ``(case, model, seed) -> GM`` building a fresh GM-like object with ``step`` and
            ``close`` (tests inject fakes); the default is ``gm.agent.GameMaster`` with the
            ``adjudicate`` pipeline, the case's character, no memory and the case's seed.
        seed: the run seed; each case plays with ``case_seed(seed, case.id)``.
        on_progress: called as ``(done, total, record)`` once at the start with ``record=None``
            (``done`` counts resumed cases) and after each case with its record.

    Returns:
        The ``Summary`` over every case that has a decision, also written to ``summary.json``.
        A case that raised is recorded as ``{"id", "error"}`` and counted in ``errors``.
    """
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"{folder}: cannot create the run folder ({exc.strerror}); pick another -o") from None
    if not folder.is_dir():
        raise RunError(f"{folder}: not a folder; give -o a folder for the run")
    _check_run(folder, model, seed)
    decisions = folder / "decisions.jsonl"
    kept = [r for r in read_decisions(decisions) if not r.get("error")]
    write_atomic(decisions, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept))
    done_ids = {r["id"] for r in kept}
    todo = [c for c in cases if c.id not in done_ids]
    total = len(cases)
    done = total - len(todo)
    if on_progress:
        on_progress(done, total, None)

    if make_gm is None:
        make_gm = _default_gm
        if todo:
            model = _shared_model(model)

    with decisions.open("a", encoding="utf-8") as handle:
        for case in todo:
            s = case_seed(seed, case.id)
            gm = None
            try:
                gm = make_gm(case, model, s)
                record = decide(case, gm, s)
            except Exception as exc:  # one broken case must not stop the set; it shows as an error
                detail = " ".join(str(exc).split()) or "no message"
                record = {"id": case.id, "ruleset": case.ruleset, "seed": s, "error": f"{type(exc).__name__}: {detail}"}
            finally:
                if gm is not None:
                    try:
                        gm.close()
                    except Exception:  # closing must not turn a played case into an error
                        pass
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            done += 1
            if on_progress:
                on_progress(done, total, record)

    summary = summarize(cases, read_decisions(decisions))
    write_atomic(folder / "summary.json", json.dumps(summary.as_json(), indent=1) + "\n")
    return summary
