"""Big-Five personas for LLM seats (MafiaScope, section 3): a vector per seat, rendered into its system prompt.

A game's ``options["personas"]`` is either ``"seeded"`` (each seat's vector drawn from the game's
seed, so the same seed gives the same personas) or a mapping ``name -> {O, C, E, A, N}`` /
a list of vectors in seat order, as read by ``load_personas(FILE)``. Only LLM seats get a
persona: a seat's prompt holds its own persona and nobody else's, and the ``setup`` event
records the vectors so the ``personality`` probe can be scored against them.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from rulesets import FileProblem, VgmError, read_yaml

TRAITS = ("O", "C", "E", "A", "N")
TRAIT_NAMES = {"O": "openness", "C": "conscientiousness", "E": "extraversion", "A": "agreeableness", "N": "neuroticism"}
_LOW_HIGH = {  # (low, high) descriptors, PersonaLLM-style
    "O": ("conventional, prefers the familiar and concrete", "curious, imaginative, open to unusual ideas"),
    "C": ("spontaneous, careless about details", "organised, careful, deliberate"),
    "E": ("reserved, quiet, speaks briefly", "outgoing, talkative, assertive"),
    "A": ("blunt, critical, quick to challenge others", "warm, trusting, cooperative"),
    "N": ("calm, steady, hard to rattle", "anxious, touchy, easily worried"),
}


class PersonaError(VgmError):
    """A persona file or option the user must fix; one line naming the file, the seat and the trait."""


def _vector(raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise PersonaError(f"{where}: expected a mapping of the Big Five traits O, C, E, A, N (0-100), got {type(raw).__name__}")
    unknown = [k for k in raw if k not in TRAITS and k != "text"]
    if unknown:
        raise PersonaError(f"{where}: unknown key {unknown[0]!r}; use O, C, E, A, N (0-100) and optionally text")
    out: dict[str, Any] = {}
    for t in TRAITS:
        if t not in raw:
            raise PersonaError(f"{where}: trait {t!r} ({TRAIT_NAMES[t]}) is missing; give all of O, C, E, A, N (0-100)")
        v = raw[t]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 100:
            raise PersonaError(f"{where}: trait {t!r} is {v!r}; give a number from 0 to 100")
        out[t] = float(v)
    if raw.get("text"):
        out["text"] = str(raw["text"])
    return out


def check_personas(spec: Any, where: str = "personas") -> Any:
    """``"seeded"``, a ``{name: vector}`` mapping or a list of vectors, validated (ranges 0-100)."""
    if spec is None or spec == "seeded":
        return spec
    if isinstance(spec, dict) and isinstance(spec.get("personas"), (dict, list)):
        spec = spec["personas"]
    if isinstance(spec, dict):
        return {str(name): _vector(v, f"{where}: seat {name!r}") for name, v in spec.items()}
    if isinstance(spec, list):
        return [_vector(v, f"{where}: seat #{i + 1}") for i, v in enumerate(spec)]
    raise PersonaError(f"{where}: expected 'seeded', a mapping of seat name to {{O, C, E, A, N}} or a list of them in seat order")


def load_personas(path: str | Path) -> Any:
    """A persona file (YAML or JSON): ``{name: {O, C, E, A, N}}`` or a list in seat order; ``seeded`` passes through."""
    if str(path) == "seeded":
        return "seeded"
    path = Path(path)
    if not path.is_file():
        raise PersonaError(f"--personas {str(path)[:80]}: no such file; give a YAML/JSON file or 'seeded'")
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.suffix == ".json" else read_yaml(path, what="persona file")
    except (FileProblem, ValueError) as exc:
        raise PersonaError(f"{path}: {exc}") from None
    return check_personas(data, str(path))


def seeded_persona(seed: int, name: str) -> dict[str, float]:
    """The vector a seeded game gives seat ``name``: uniform integers 0-100 from ``(seed, name)``."""
    rng = random.Random(f"persona:{seed}:{name}")
    return {t: float(rng.randint(0, 100)) for t in TRAITS}


def resolve_personas(spec: Any, names: list[str], seed: int) -> dict[str, dict[str, Any]]:
    """Every seat's persona under ``spec`` (empty when there is none)."""
    spec = check_personas(spec)
    if spec is None:
        return {}
    if spec == "seeded":
        return {n: seeded_persona(seed, n) for n in names}
    if isinstance(spec, list):
        if len(spec) != len(names):
            raise PersonaError(f"personas: {len(spec)} vectors for {len(names)} seats; give one per seat, in seat order")
        return dict(zip(names, spec))
    unknown = [n for n in spec if n not in names]
    if unknown:
        raise PersonaError(f"personas: seat {unknown[0]!r} is not a player ({', '.join(names)})")
    return {n: spec[n] for n in names if n in spec}


def persona_text(persona: dict[str, Any]) -> str:
    """The persona as the seat reads it: each trait's score and what it means for how the seat plays."""
    parts = []
    for t in TRAITS:
        v = persona[t]
        low, high = _LOW_HIGH[t]
        how = high if v >= 60 else low if v <= 40 else "in between: " + low.split(",")[0] + " at times, " + high.split(",")[0] + " at others"
        parts.append(f"- {TRAIT_NAMES[t].capitalize()} {v:.0f}/100: {how}.")
    text = ("Your personality (Big Five, 0-100). Let it shape how you talk, whom you trust and how you vote, "
            "in your own words; never state these numbers:\n" + "\n".join(parts))
    if persona.get("text"):
        text += "\n" + str(persona["text"])
    return text


def trait_vector(persona: dict[str, Any]) -> dict[str, float]:
    """Only the five numbers (what the log records for scoring)."""
    return {t: float(persona[t]) for t in TRAITS}
