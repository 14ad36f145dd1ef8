"""Answer shapes a probe may ask for, as pydantic models the parser validates against.

The shapes follow MafiaScope's published answer formats (a list of per-player role guesses, a
list of suspicion scores, ``{"toward_me": [...]}`` for the social map), so the same metric code
reads our probe logs and MafiaScope's own. Validation is lenient about what small models do:
a list wrapped in an object, numbers as strings, attitudes in other casings.
"""
from __future__ import annotations

import functools
from typing import Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, RootModel, create_model, field_validator, model_validator


def _unwrap_list(value: Any) -> Any:
    """``{"anything": [...]}`` → ``[...]``; a single object → ``[object]``."""
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        if len(lists) == 1:
            return lists[0]
        if "player" in value:
            return [value]
    return value


def _number(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip().rstrip("%")
        try:
            return float(text)
        except ValueError:
            return value
    return value


class _Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


class RoleGuess(_Loose):
    player: str
    guessed_role: str = "Unknown"
    confidence: float = Field(0, ge=0, le=100)
    reason: str = ""

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if isinstance(data, dict) and "guessed_role" not in data:
            for alt in ("role", "guess"):
                if alt in data:
                    data = {**data, "guessed_role": data[alt]}
                    break
        return data

    @field_validator("confidence", mode="before")
    @classmethod
    def _conf(cls, v: Any) -> Any:
        v = _number(v)
        if isinstance(v, (int, float)):
            v = v * 100 if 0 < v < 1 else v
            return min(100.0, max(0.0, float(v)))
        return v

    @field_validator("guessed_role", mode="before")
    @classmethod
    def _role(cls, v: Any) -> Any:
        return "Unknown" if v in (None, "", "?") else str(v).strip()


class RoleAssessment(RootModel[list[RoleGuess]]):
    """First-order beliefs: for each player, a guessed role (or Unknown) with confidence 0-100."""

    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, v: Any) -> Any:
        return _unwrap_list(v)


class SuspicionScore(_Loose):
    player: str
    score: float

    @field_validator("score", mode="before")
    @classmethod
    def _score(cls, v: Any) -> Any:
        return _number(v)


class SuspicionRanking(RootModel[list[SuspicionScore]]):
    """How suspicious each player looks, as a score (higher = more suspicious)."""

    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, v: Any) -> Any:
        v = _unwrap_list(v)
        if isinstance(v, dict) and all(isinstance(x, (int, float, str)) for x in v.values()):
            return [{"player": k, "score": s} for k, s in v.items()]  # {"Alex": 80, ...}
        return v


Attitude = Literal["trusts", "neutral", "suspects"]
_ATTITUDE_WORDS = {"trust": "trusts", "trusts": "trusts", "trusted": "trusts", "neutral": "neutral",
                   "suspect": "suspects", "suspects": "suspects", "suspicious": "suspects", "distrusts": "suspects"}


class AttitudeGuess(_Loose):
    player: str
    attitude: Attitude
    confidence: float = Field(0, ge=0, le=100)
    reason: str = ""

    @field_validator("attitude", mode="before")
    @classmethod
    def _att(cls, v: Any) -> Any:
        return _ATTITUDE_WORDS.get(str(v).strip().lower(), v)

    _conf = field_validator("confidence", mode="before")(RoleGuess._conf.__func__)


class SocialMap(_Loose):
    """Second-order beliefs: how each player feels about ME (trusts / neutral / suspects)."""

    toward_me: list[AttitudeGuess]

    @model_validator(mode="before")
    @classmethod
    def _wrap(cls, v: Any) -> Any:
        if isinstance(v, list):
            return {"toward_me": v}
        if isinstance(v, dict) and "toward_me" not in v:
            return {"toward_me": _unwrap_list(v)}
        return v


class PlannedAction(_Loose):
    """What the seat means to do next (vote, kill, save, accuse) and why."""

    action: str
    target: str | None = None
    reasoning: str = ""

    @field_validator("target", mode="before")
    @classmethod
    def _target(cls, v: Any) -> Any:
        return None if v is None else str(v)


class BigFive(_Loose):
    player: str
    O: float = Field(ge=0, le=100)
    C: float = Field(ge=0, le=100)
    E: float = Field(ge=0, le=100)
    A: float = Field(ge=0, le=100)
    N: float = Field(ge=0, le=100)
    summary: str = ""

    @field_validator("O", "C", "E", "A", "N", mode="before")
    @classmethod
    def _trait(cls, v: Any) -> Any:
        v = _number(v)
        return min(100.0, max(0.0, float(v))) if isinstance(v, (int, float)) else v


class PersonalityProfile(RootModel[list[BigFive]]):
    """Big Five (O, C, E, A, N on 0-100) the seat attributes to each other player."""

    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, v: Any) -> Any:
        return _unwrap_list(v)


class RoleBelief(_Loose):
    player: str
    beliefs: dict[str, float]  # role → weight (0-100 or 0-1); normalised when scored
    reason: str = ""

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "beliefs" in data:
            return data
        for alt in ("probs", "probabilities", "distribution", "roles"):
            if isinstance(data.get(alt), dict):
                return {**data, "beliefs": data[alt]}
        role = data.get("guessed_role", data.get("role"))
        if role not in (None, ""):  # a role_assessment-style entry: all its confidence on the named role
            return {**data, "beliefs": {str(role): data.get("confidence", 100)}}
        return data

    @field_validator("beliefs", mode="before")
    @classmethod
    def _weights(cls, v: Any) -> Any:
        if not isinstance(v, dict):
            return v
        out = {}
        for role, w in v.items():
            w = _number(w)
            if isinstance(w, (int, float)) and not isinstance(w, bool):
                out[str(role).strip()] = max(0.0, float(w))
        return out


class RoleBeliefs(RootModel[list[RoleBelief]]):
    """First-order beliefs as a distribution: for each player, a weight on every role (MafiaScope's ``role_beliefs``)."""

    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, v: Any) -> Any:
        if isinstance(v, dict) and v and all(isinstance(x, dict) and "player" not in x for x in v.values()) \
                and not any(isinstance(x, list) for x in v.values()):
            return [{"player": k, "beliefs": b} for k, b in v.items()]  # {"Alex": {"Mafia": 60, ...}, ...}
        return _unwrap_list(v)


# name in the YAML ``answer:`` field → the shape; ``json`` takes any JSON, ``text`` no parsing.
ANSWER_SHAPES: dict[str, Any] = {
    "role_assessment": RoleAssessment,
    "role_beliefs": RoleBeliefs,
    "suspicion_ranking": SuspicionRanking,
    "social_map": SocialMap,
    "planned_action": PlannedAction,
    "personality": PersonalityProfile,
    "json": Any,
    "text": None,
}


def player_entry(shape: Any) -> type[BaseModel] | None:
    """The per-player entry of a list shape (``SuspicionScore`` for ``SuspicionRanking``), if it has one."""
    root = getattr(shape, "model_fields", {}).get("root")
    args = get_args(root.annotation) if root is not None else ()
    item = args[0] if args else None
    return item if isinstance(item, type) and issubclass(item, BaseModel) and "player" in item.model_fields else None


class _Keyed(BaseModel):
    """An answer keyed by player name; the list form (``[{"player": ..., ...}]``) is read too.

    Its schema asks a server that can (our llama.cpp, through llguidance) for compact JSON,
    ``{"Alex":70,"Blair":20}``: the optional spaces were a fifth of the tokens a probe writes.
    """

    model_config = ConfigDict(json_schema_extra={"additionalProperties": False, "x-guidance": {"whitespace_flexible": False}})
    _field: ClassVar[str | None] = None

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, v: Any) -> Any:
        v = _unwrap_list(v)
        if isinstance(v, list) and all(isinstance(x, dict) and "player" in x for x in v):
            return {str(x["player"]): (x.get(cls._field) if cls._field else x) for x in v}
        return v


@functools.lru_cache(maxsize=64)
def keyed_shape(shape: Any, players: tuple[str, ...]) -> type[_Keyed] | None:
    """``shape`` answered as one object keyed by each player's name, every name required.

    ``[{"player": "Alex", "score": 70}, ...]`` becomes ``{"Alex": 70, ...}``: less than half the
    tokens to write, and a schema-constrained server can neither skip a player nor invent one.
    The model keeps the entry's one other field (``"score"``) as ``_field``, or None when an
    entry keeps several (then each value is an object of them). None for a shape that is not a
    list of per-player entries. Built once per shape and roster (a game asks it every step).
    """
    item = player_entry(shape)
    if item is None or not players:
        return None
    rest = {k: f for k, f in item.model_fields.items() if k != "player"}
    if len(rest) == 1:
        (field_name, field), = rest.items()
        value: Any = field.annotation
    else:
        field_name = None
        value = create_model(f"{item.__name__}Value", **{k: (f.annotation, ... if f.is_required() else f.default)
                                                          for k, f in rest.items()})
    fields = {f"p{i}": (value, Field(alias=name)) for i, name in enumerate(players)}
    model = create_model("KeyedAnswer", __base__=_Keyed, **fields)
    model._field = field_name
    return model


def unkey(value: _Keyed) -> list[dict[str, Any]]:
    """A keyed answer back in its list shape: ``{"Alex": 70}`` → ``[{"player": "Alex", "score": 70}]``."""
    field_name = value._field
    out = []
    for name, v in value.model_dump(mode="json", by_alias=True).items():
        out.append({"player": name, field_name: v} if field_name else {"player": name, **v})
    return out


def dump_answer(value: Any) -> Any:
    """A validated answer as plain JSON data (what the probe log stores)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value
