"""Build a blind rating study from saved MOE runs (Tachikuma 6.2): one condition per run, plus the real GM.

A run folder (``runs/NAME``) holds ``run.json`` (pipeline, model, data path) and
``predictions.jsonl`` (one line per instance: ``id``, ``prediction``, ``utterance`` for ``+gm``
pipelines, ``error``). The contexts come from the run's data file. The real GM's next line,
when the data has it, becomes the ``human`` reference condition.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from pathlib import Path

from eval.moe import RunFolder, RunFolderError, load_moe
from pipelines.records import MoeInstance
from rulesets import FileProblem, VgmError, read_jsonl

from ._crowd import ATTENTION, CrowdSettings
from ._design import DROP_AFTER_MINUTES, Design, design
from ._criteria import CriteriaSet, default_criteria
from ._items import read_items
from ._store import Study, StudyError

HUMAN = "human"
# Where a data line (or a MoeInstance) may carry the real GM's next line.
REFERENCE_FIELDS = ("gm_reply", "next_gm", "reference", "gm_utterance")


@dataclass
class RunForStudy:
    """One saved run, reduced to what a study needs: its utterances by instance id."""

    name: str
    path: Path
    meta: dict
    utterances: dict[str, str] = field(default_factory=dict)
    checks: dict[str, list[dict]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.meta.get('pipeline', '?')} / {self.meta.get('model', '?')}"


@dataclass
class BuildSummary:
    path: Path
    contexts: int
    items: int
    conditions: list[str]
    mode: str
    skipped_runs: dict[str, str] = field(default_factory=dict)
    attention: int = 0
    design: Design | None = None

    @property
    def quota(self) -> int | None:
        """Participants a design study needs when nobody drops out (items x K / M)."""
        return None if self.design is None else self.design.quota(self.items - self.attention)


# Attention items: a GM line plainly wrong for the scene (someone not at the table, an action nobody
# took), built from the instance's gold checks. Names and actions are the project's own inventions.
OUTSIDERS = ("Brother Osk", "Lady Vantree", "Old Tobbin", "Sergeant Hask", "Widow Pell", "Captain Mirelle")
FAR_ACTIONS = (
    "swim across the flooded moat",
    "calm the horses on the ship's deck",
    "climb the frozen bell tower",
    "haggle with the ferryman at the river gate",
)
ATTENTION_MAX_SCORE = 2
"""An attention score item passes when groundedness and factual correctness are at most this."""


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _check_names(ruleset: str) -> dict[str, str]:
    """Check id -> display name for a pack; empty when the pack cannot be loaded."""
    try:
        import rulesets

        return {cid: c.name for cid, c in rulesets.load(ruleset).checks.items()}
    except VgmError:  # an unknown pack only loses the nicer names
        return {}


def attention_items(chosen: list[str], instances: dict[str, tuple[MoeInstance, dict]], k: int, mode: str,
                    rng: random.Random) -> list[dict]:
    """``k`` attention items over the study's contexts, one per context with gold checks.

    A score item shows a GM line that is plainly wrong for the scene: it calls on someone who is
    not at the table for a check that fits no one's action; its obvious answer is groundedness and
    factual correctness at most 2. An A/B item puts the gold line (the real GM's, or one made from
    the gold checks) against such a line; its obvious answer is the gold side. With ``mode="both"``
    the kinds alternate.
    """
    candidates = [iid for iid in chosen if instances[iid][0].answers]
    if k > len(candidates):
        raise StudyError(
            f"--attention {k}: this study's {len(chosen)} contexts can make at most {len(candidates)} attention items "
            f"(one per context with gold checks); lower --attention or raise --n")
    items = []
    for n, iid in enumerate(sorted(rng.sample(candidates, k))):
        inst, raw = instances[iid]
        seen = " ".join([*(f"{t.speaker} {t.text}" for t in inst.context), *(inst.characters or [])]).lower()
        outsider = next((o for o in OUTSIDERS if o.lower() not in seen and o.split()[-1].lower() not in seen), "Brother Osk")
        action = next((a for a in FAR_ACTIONS if not any(w in seen for w in a.split()[-2:])), FAR_ACTIONS[0])
        names = _check_names(inst.ruleset)
        gold = {a.skill for a in inst.answers}
        others = sorted(c for c in names if c not in gold) or ["swimming"]
        wrong = rng.choice(others)
        word = names.get(wrong, wrong.replace("_", " "))
        bad = f"{outsider}, make {_article(word)} {word} check to {action}."
        bad_checks = [{"character": outsider, "skill": wrong}]
        kind = mode if mode in ("score", "ab") else ("score" if n % 2 == 0 else "ab")
        if kind == "score":
            items.append({"kind": "score", "instance_id": iid, "condition": ATTENTION, "utterance": bad, "checks": bad_checks,
                          "attention": True, "expect": {"max": {"groundedness": ATTENTION_MAX_SCORE, "factual": ATTENTION_MAX_SCORE}}})
            continue
        first = inst.answers[0]
        gold_word = names.get(first.skill, first.skill.replace("_", " "))
        good = reference_of(raw, inst) or f"{first.character}, give me {_article(gold_word)} {gold_word} check."
        good_checks = [a.model_dump() for a in inst.answers]
        good_side = "a" if rng.random() < 0.5 else "b"
        (ta, ca), (tb, cb) = ((good, good_checks), (bad, bad_checks)) if good_side == "a" else ((bad, bad_checks), (good, good_checks))
        items.append({"kind": "ab", "instance_id": iid, "condition": ATTENTION, "utterance": ta, "checks": ca,
                      "condition_b": ATTENTION, "utterance_b": tb, "checks_b": cb, "attention": True,
                      "expect": {"choice": good_side}})
    return items


def load_run(path: str | Path) -> RunForStudy:
    """Read a run folder's ``run.json`` and the utterances in ``predictions.jsonl`` (through ``RunFolder``)."""
    folder = RunFolder(path)
    if not folder.meta_path.is_file() or not folder.predictions_path.is_file():
        raise StudyError(f"{folder.path}: not a MOE run folder (needs run.json and predictions.jsonl); make one with `vgm moe run`")
    try:
        meta = folder.meta()
        latest = folder.answered()
    except RunFolderError as exc:
        raise StudyError(str(exc)) from None
    run = RunForStudy(name=folder.path.name, path=folder.path, meta=meta)
    for iid, row in latest.items():
        utterance = (row.get("utterance") or "").strip()
        if utterance:
            run.utterances[iid] = utterance
            run.checks[iid] = [dict(c) for c in row.get("prediction") or [] if isinstance(c, dict)]
    return run


def _data_path(run: RunForStudy) -> Path:
    try:
        return RunFolder(run.path).data_file()
    except RunFolderError as exc:
        raise StudyError(str(exc)) from None


def reference_of(raw: dict, instance: MoeInstance | None = None) -> str | None:
    """The real GM's next line for an instance, if the data carries one."""
    for key in REFERENCE_FIELDS:
        value = getattr(instance, key, None) if instance is not None else None
        value = value or raw.get(key)
        if isinstance(value, dict):  # a Turn
            value = value.get("text")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def load_instances(path: Path) -> dict[str, tuple[MoeInstance, dict]]:
    """MOE instances by id (read by ``eval.moe``'s strict loader), each with its raw line,
    which may carry the real GM's next line."""
    try:  # as strict as load_moe below, which reads the same file: any bad line is file:line and the fix
        raw = {row.get("id"): row for row in read_jsonl(path, on_torn="error", what="MOE data file")}
    except FileProblem as problem:
        raise StudyError(str(problem)) from None
    return {inst.id: (inst, raw.get(inst.id, {})) for inst in load_moe(path)}


def build_study(
    runs: list[str | Path],
    out: str | Path,
    *,
    n: int = 60,
    include_human: bool = False,
    mode: str = "score",
    seed: int = 0,
    name: str | None = None,
    overwrite: bool = False,
    attention: int = 0,
    crowd: CrowdSettings | None = None,
    consent: str | None = None,
    base_url: str | None = None,
    per_item: int | None = None,
    per_rater: int | None = None,
    drop_after: float = DROP_AFTER_MINUTES,
    criteria: CriteriaSet | None = None,
    lang: str = "en",
) -> tuple[Study, str, BuildSummary]:
    """Sample ``n`` contexts that every run answered, and make blind items from them.

    ``mode``: ``score`` (each utterance rated 1-5 on the three factors), ``ab`` (every pair
    of conditions on one context: pick the better, for Bradley-Terry) or ``both``.
    ``attention``: how many attention items (``attention_items``) to mix in, blind.
    ``crowd``, ``consent``, ``base_url``: open enrollment, a consent form, the public address (``Study.create``).
    ``per_item``, ``per_rater``, ``drop_after`` (minutes): a design (``_design``): each item K ratings, each
    rater M items plus the attention items; the quota follows from them. ``criteria`` (``_criteria``) and
    ``lang``: what raters judge and in which language.
    Items are stored in a seeded random order, so not even an item's id hints at its condition.
    Returns the study, its admin token and a summary.
    """
    if mode not in ("score", "ab", "both"):
        raise StudyError(f"mode {mode!r}: use score, ab or both")
    if n < 1:
        raise StudyError("--n must be at least 1")
    if attention < 0:
        raise StudyError(f"--attention {attention}: give 0 or more attention items")
    if not runs:
        raise StudyError("give at least one run folder with --from runs/NAME")
    criteria = _checked_criteria(criteria, lang)
    if attention and not {"groundedness", "factual"} <= set(criteria.ids()):
        raise StudyError("--attention: attention score items expect low groundedness and factual scores, "
                         "and these criteria lack one; keep those two criteria or drop --attention")
    loaded = [load_run(p) for p in runs]
    names: set[str] = set()
    for run in loaded:  # two folders named alike (a/x, b/x) still need distinct conditions
        base, k = run.name, 2
        while run.name in names or run.name in (HUMAN, ATTENTION):
            run.name, k = f"{base}-{k}", k + 1
        names.add(run.name)
    skipped = {r.name: "no GM utterances (use a +gm pipeline, e.g. tbs_gm)" for r in loaded if not r.utterances}
    usable = [r for r in loaded if r.utterances]
    if not usable:
        raise StudyError("none of the runs has GM utterances; run a +gm pipeline (e.g. `vgm moe run --pipeline tbs_gm`)")

    instances: dict[str, tuple[MoeInstance, dict]] = {}
    for run in usable:
        for iid, pair in load_instances(_data_path(run)).items():
            instances.setdefault(iid, pair)

    common = set.intersection(*(set(r.utterances) for r in usable)) & set(instances)
    conditions = [r.name for r in usable]
    references: dict[str, str] = {}
    if include_human:
        references = {iid: ref for iid in common if (ref := reference_of(instances[iid][1], instances[iid][0]))}
        if not references:
            raise StudyError(
                "--include-human: the data has no real GM line for these instances; "
                f"add a 'reference' field (one of {', '.join(REFERENCE_FIELDS)}) to the data lines or drop --include-human"
            )
        common = set(references)
        conditions.append(HUMAN)
    if len(conditions) < 2 and mode != "score":
        raise StudyError("A/B mode needs two conditions: give two runs, or one run with --include-human")
    if not common:
        raise StudyError("the runs share no instance with an utterance; run them on the same data")

    rng = random.Random(seed)
    chosen = sorted(common)
    rng.shuffle(chosen)
    chosen = sorted(chosen[:n])

    def utterance_of(cond: str, iid: str) -> tuple[str, list[dict]]:
        if cond == HUMAN:
            inst = instances[iid][0]
            return references[iid], [a.model_dump() for a in inst.answers]
        run = next(r for r in usable if r.name == cond)
        return run.utterances[iid], run.checks.get(iid, [])

    contexts, items = [], []
    for iid in chosen:
        inst = instances[iid][0]
        contexts.append({"instance_id": iid, "ruleset": inst.ruleset, "turns": [t.model_dump() for t in inst.context]})
        if mode in ("score", "both"):
            for cond in conditions:
                text, checks = utterance_of(cond, iid)
                items.append({"kind": "score", "instance_id": iid, "condition": cond, "utterance": text, "checks": checks})
        if mode in ("ab", "both"):
            for a, b in itertools.combinations(conditions, 2):
                if rng.random() < 0.5:  # which side a condition lands on is random, so side carries no signal
                    a, b = b, a
                (ta, ca), (tb, cb) = utterance_of(a, iid), utterance_of(b, iid)
                items.append({
                    "kind": "ab", "instance_id": iid, "condition": a, "utterance": ta, "checks": ca,
                    "condition_b": b, "utterance_b": tb, "checks_b": cb,
                })
    checks = attention_items(chosen, instances, attention, mode, random.Random(f"{seed}:attention")) if attention else []
    sources = {r.name: {"path": str(r.path), **{k: r.meta.get(k) for k in ("pipeline", "model") if k in r.meta}} for r in usable}
    if include_human:
        sources[HUMAN] = {"path": "data reference (the real GM's next line)"}
    if checks:
        sources[ATTENTION] = {"path": "attention items built from the gold checks (not a condition)"}
    return _create(out, contexts, items, checks, conditions, mode, skipped, sources, rng=rng, name=name, seed=seed,
                   overwrite=overwrite, crowd=crowd, consent=consent, base_url=base_url, per_item=per_item,
                   per_rater=per_rater, drop_after=drop_after, criteria=criteria, lang=lang)


def _create(out, contexts: list[dict], items: list[dict], checks: list[dict], conditions: list[str], mode: str,
            skipped: dict[str, str], sources: dict, *, rng: random.Random, name, seed, overwrite, crowd, consent,
            base_url, per_item, per_rater, drop_after, criteria, lang) -> tuple[Study, str, BuildSummary]:
    """Check the design against the items, mix the attention items in blind, write the study file."""
    if not criteria.score and any(i["kind"] == "score" for i in items):
        raise StudyError("these criteria have only an A/B question; use --mode ab, or add a criterion with a scale")
    plan = design(per_item, per_rater, len(items), drop_after)
    if plan is not None and crowd is not None and crowd.quota is not None:
        raise StudyError(f"--quota {crowd.quota}: with --per-item and --per-rater the quota follows from the design "
                         f"({len(items)} items x {plan.per_item} / {plan.per_rater} = {plan.quota(len(items))}); leave --quota out")
    items = items + checks
    rng.shuffle(items)
    study, admin_token = Study.create(
        out, contexts, items, name=name or Path(out).stem, seed=seed, sources=sources, overwrite=overwrite,
        crowd=crowd, consent=consent, base_url=base_url, design=plan, criteria=criteria, lang=lang,
    )
    summary = BuildSummary(Path(out), len(contexts), len(items), conditions, mode, skipped, attention=len(checks), design=plan)
    return study, admin_token, summary


def build_from_items(
    items_file: str | Path,
    out: str | Path,
    *,
    mode: str = "score",
    seed: int = 0,
    name: str | None = None,
    overwrite: bool = False,
    crowd: CrowdSettings | None = None,
    consent: str | None = None,
    base_url: str | None = None,
    per_item: int | None = None,
    per_rater: int | None = None,
    drop_after: float = DROP_AFTER_MINUTES,
    criteria: CriteriaSet | None = None,
    lang: str = "en",
) -> tuple[Study, str, BuildSummary]:
    """A blind study from an items file (``_items``): any context, one or two candidates a line."""
    if mode not in ("score", "ab", "both"):
        raise StudyError(f"mode {mode!r}: use score, ab or both")
    criteria = _checked_criteria(criteria, lang)
    contexts, items, conditions = read_items(items_file, mode=mode, seed=seed)
    sources = {c: {"path": str(items_file)} for c in conditions}
    return _create(out, contexts, items, [], conditions, mode, {}, sources, rng=random.Random(seed), name=name, seed=seed,
                   overwrite=overwrite, crowd=crowd, consent=consent, base_url=base_url, per_item=per_item,
                   per_rater=per_rater, drop_after=drop_after, criteria=criteria, lang=lang)


def _checked_criteria(criteria: CriteriaSet | None, lang: str) -> CriteriaSet:
    """The criteria (the default three unless given), checked to have ``lang`` and something to score."""
    criteria = criteria or default_criteria()
    if lang not in criteria.languages:
        raise StudyError(f"--lang {lang}: the criteria have texts in {', '.join(criteria.languages)} only; "
                         f"add '{lang}' texts to the criteria file or pick one of those")
    return criteria
