"""What raters judge: criteria from a YAML file (id, label, question, a 1-N scale with anchors or A/B, per language).

The default file, ``tachikuma_criteria.yaml``, holds Tachikuma 6.2's three factors (naturalness,
groundedness, factual correctness, 1-5) and the A/B question, in English and Chinese. A study keeps
the criteria it was made with (every language), so the page, the API and the report all read them
from the study; ``CRITERIA`` are the default ones in English, for studies made before criteria files.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path


from rulesets import FileProblem, parse_yaml, read_text, yaml_line

from ._errors import StudyError

DEFAULT_FILE = Path(__file__).with_name("tachikuma_criteria.yaml")
LEGACY_IDS: tuple[str, ...] = ("naturalness", "groundedness", "factual")
"""The criteria with their own columns in a study file (every study before criteria files had these)."""
SCORE_MIN, SCORE_MAX = 1, 5
AB_CHOICES: tuple[str, ...] = ("a", "b", "tie", "both_bad")
"""A/B answers as Chatbot Arena takes them: A better, B better, a tie, or a tie where both lines are bad."""
_ID = re.compile(r"[a-z][a-z0-9_]{0,39}")
_LANG = re.compile(r"[a-z]{2,3}(-[A-Za-z]{2,4})?")
SCALE_MAX_POINTS = 11


@dataclass(frozen=True)
class Criterion:
    """One score criterion, in one language: rated from ``low`` to ``high`` (anchors name some points)."""

    id: str
    label: str
    hint: str  # the question the rater answers
    low: int = SCORE_MIN
    high: int = SCORE_MAX
    anchors: tuple[tuple[int, str], ...] = ()

    @property
    def points(self) -> list[int]:
        return list(range(self.low, self.high + 1))


@dataclass
class CriteriaSet:
    """A study's criteria in every language it has: score criteria in order, and at most one A/B question."""

    languages: list[str]
    score: list[dict] = field(default_factory=list)  # {id, label: {lang: text}, question: {...}, min, max, anchors: {n: {...}}}
    ab: dict | None = None  # {id, label: {...}, question: {...}}

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | None) -> "CriteriaSet":
        return cls(**json.loads(text)) if text else default_criteria()

    def ids(self) -> tuple[str, ...]:
        return tuple(c["id"] for c in self.score)

    def legacy(self) -> bool:
        """The three factors on 1-5: their answers also go to the study file's own columns."""
        return self.ids() == LEGACY_IDS and all((c["min"], c["max"]) == (SCORE_MIN, SCORE_MAX) for c in self.score)

    def in_lang(self, lang: str) -> tuple[Criterion, ...]:
        """The score criteria with their texts in ``lang`` (English, or the first language, when it lacks one)."""
        pick = lang if lang in self.languages else ("en" if "en" in self.languages else self.languages[0])
        return tuple(Criterion(c["id"], c["label"][pick], c["question"][pick], c["min"], c["max"],
                               tuple((int(n), t[pick]) for n, t in sorted(c["anchors"].items(), key=lambda kv: int(kv[0]))))
                     for c in self.score)

    def ab_question(self, lang: str) -> str:
        if self.ab is None:
            return "Which line is better for this moment?"
        pick = lang if lang in self.languages else ("en" if "en" in self.languages else self.languages[0])
        return self.ab["question"][pick]


def read_criteria(path: str | Path) -> CriteriaSet:
    """Load and check a criteria file; every mistake is one line naming the file, the line and the key."""
    path = Path(path)
    if not path.is_file():
        raise StudyError(f"--criteria {path}: no such file; copy {DEFAULT_FILE.name} from eval/ratings/ and edit it")
    try:  # the project's one YAML reader: syntax, encoding, duplicate keys and depth, each one line with its line
        text = read_text(path, what="criteria file")
        data = parse_yaml(text, path)
    except FileProblem as problem:
        raise StudyError(f"--criteria {problem}") from None
    if not isinstance(data, dict):
        raise StudyError(f"{path}: give a mapping with 'languages' and 'criteria' (see {DEFAULT_FILE.name})")
    for key in ("languages", "criteria"):
        if key not in data:
            raise StudyError(f"{path}: missing key '{key}'")
    langs = data["languages"]
    if not isinstance(langs, list) or not langs or not all(isinstance(x, str) and _LANG.fullmatch(x) for x in langs):
        raise StudyError(f"{path}: 'languages' must list language codes, e.g. [en, zh]")
    if not isinstance(data["criteria"], list) or not data["criteria"]:
        raise StudyError(f"{path}: 'criteria' must list at least one criterion")
    out = CriteriaSet(languages=list(langs))
    seen: set[str] = set()
    for k, raw in enumerate(data["criteria"]):
        line = yaml_line(text, ("criteria", k))
        where = f"{path}:{line}" if line else f"{path}: criteria[{k}]"
        if not isinstance(raw, dict):
            raise StudyError(f"{where}: a criterion is a mapping with id, label, question and scale")
        for key in ("id", "label", "question", "scale"):
            if key not in raw:
                raise StudyError(f"{where}: missing key '{key}'")
        cid = raw["id"]
        if not isinstance(cid, str) or not _ID.fullmatch(cid):
            raise StudyError(f"{where}: id {cid!r} must be lower-case letters, digits and _ (e.g. naturalness)")
        if cid in seen:
            raise StudyError(f"{where}: id '{cid}' is used twice; give each criterion its own id")
        seen.add(cid)
        texts = {key: _texts(raw[key], langs, where, f"{cid}.{key}") for key in ("label", "question")}
        scale = raw["scale"]
        if scale == "ab":
            if out.ab is not None:
                raise StudyError(f"{where}: '{cid}' is a second A/B criterion; an A/B item asks one question")
            out.ab = {"id": cid, **texts}
            continue
        if not isinstance(scale, dict) or not {"min", "max"} <= set(scale):
            raise StudyError(f"{where}: scale {scale!r} of '{cid}' is not known; use ab or {{min, max, anchors}}")
        low, high = scale["min"], scale["max"]
        if not (isinstance(low, int) and isinstance(high, int) and not isinstance(low, bool) and not isinstance(high, bool)
                and 0 <= low < high and high - low < SCALE_MAX_POINTS):
            raise StudyError(f"{where}: scale of '{cid}' must be whole numbers with 0 <= min < max and at most "
                             f"{SCALE_MAX_POINTS} points (e.g. min: 1, max: 5)")
        anchors = scale.get("anchors") or {}
        if not isinstance(anchors, dict):
            raise StudyError(f"{where}: 'scale.anchors' of '{cid}' must map scale points to texts")
        checked = {}
        for point, names in anchors.items():
            if not isinstance(point, int) or not low <= point <= high:
                raise StudyError(f"{where}: anchor {point!r} of '{cid}' is not on its scale {low}-{high}")
            checked[str(point)] = _texts(names, langs, where, f"{cid}.scale.anchors.{point}")
        out.score.append({"id": cid, **texts, "min": low, "max": high, "anchors": checked})
    if not out.score and out.ab is None:
        raise StudyError(f"{path}: no criterion to rate")
    return out


def _texts(value, langs: list[str], where: str, key: str) -> dict[str, str]:
    """A text in every language of the file (a plain string only when the file has one language)."""
    if isinstance(value, str) and len(langs) == 1:
        value = {langs[0]: value}
    if not isinstance(value, dict):
        raise StudyError(f"{where}: '{key}' must give a text per language ({', '.join(langs)})")
    for lang in langs:
        text = value.get(lang)
        if not isinstance(text, str) or not text.strip():
            raise StudyError(f"{where}: '{key}' has no '{lang}' text (the file's languages: {', '.join(langs)})")
    return {lang: value[lang].strip() for lang in langs}


_DEFAULT: list[CriteriaSet] = []


def default_criteria() -> CriteriaSet:
    """Tachikuma's three factors and the A/B question, in English and Chinese (the shipped file)."""
    if not _DEFAULT:
        _DEFAULT.append(read_criteria(DEFAULT_FILE))
    return CriteriaSet(**json.loads(_DEFAULT[0].to_json()))  # a copy: callers may not change the shared one


CRITERIA: tuple[Criterion, ...] = default_criteria().in_lang("en")
CRITERION_IDS: tuple[str, ...] = tuple(c.id for c in CRITERIA)
