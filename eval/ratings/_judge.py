"""A model judge beside the human raters: the same items, the same criteria, answers held to the scale.

``judge_study`` asks a model (any ``pipelines.llm`` model string) about every non-attention item,
with a JSON schema whose fields are the study's criteria and whose values are only the scale's
points (or a/b/tie/both_bad), so a grammar-backed model cannot answer off the scale. Answers are
written one by one, so a crashed run resumes where it stopped. ``judge_agreement`` sets the judge
beside the humans: per criterion, Krippendorff's alpha and Spearman's rho between the judge and the
humans' median, next to the humans' own alpha; for A/B items, how often the judge picks the humans'
majority answer.
"""
from __future__ import annotations

import asyncio
import json
import math
import statistics
from dataclasses import asdict, dataclass, field
from typing import Callable, Literal

import numpy as np
from pydantic import create_model

from ._criteria import AB_CHOICES
from ._store import AdminView, Study

_TABLE = ("CREATE TABLE IF NOT EXISTS judge_ratings (model TEXT NOT NULL, item_id INTEGER NOT NULL REFERENCES items(id),"
          " scores_json TEXT, choice TEXT, raw TEXT NOT NULL, ok INTEGER NOT NULL, created_at REAL NOT NULL,"
          " PRIMARY KEY (model, item_id))")
CONTEXT_TURNS = 12  # the last turns the judge reads, as a rater reads the last few first


@dataclass
class JudgeRun:
    model: str
    items: int
    judged: int  # answered in this run
    resumed: int  # already judged before
    unreadable: int
    seconds: float


def _schema(study: Study, kind: str):
    if kind == "ab":
        return create_model("ABAnswer", choice=(Literal[AB_CHOICES], ...))  # type: ignore[valid-type]
    fields = {c.id: (Literal[tuple(c.points)], ...) for c in study.score_criteria()}  # type: ignore[valid-type]
    return create_model("Scores", **fields)


def _prompt(study: Study, item) -> list[dict]:
    crit = study.score_criteria()
    turns = "\n".join(f"{t.get('speaker') or '-'}: {t['text']}" for t in item.context[-CONTEXT_TURNS:])
    if item.kind == "ab":
        task = (f"Line A: {item.utterance}\nLine B: {item.utterance_b}\n\n{study.criteria().ab_question(study.lang())}\n"
                'Answer {"choice": "a"} if A is better, "b" if B is better, "tie" if they are about the same, '
                '"both_bad" if neither would do.')
    else:
        lines = []
        for c in crit:
            anchors = "; ".join(f"{n} = {name}" for n, name in c.anchors)
            lines.append(f'- "{c.id}" ({c.label}): {c.hint} Score {c.low} to {c.high}' + (f" ({anchors})." if anchors else "."))
        task = (f"The Game Master's next line: {item.utterance}\n\nScore that line on each criterion:\n" + "\n".join(lines)
                + "\nAnswer with JSON: {" + ", ".join(f'"{c.id}": <score>' for c in crit) + "}.")
    return [
        {"role": "system", "content": "You rate what a tabletop role-playing Game Master says next, as a careful human "
                                      "rater would. Judge only the line(s) given, against the scene."},
        {"role": "user", "content": f"The table so far (newest last):\n{turns}\n\n{task}"},
    ]


def judge_study(study: Study, model: str, *, limit: int | None = None, concurrency: int = 2,
                progress: Callable[[int, int], None] | None = None, chat=None) -> JudgeRun:
    """Have ``model`` rate the study's items (the first ``limit`` by id), storing each answer as it comes."""
    import time

    from pipelines.llm import complete_json, get_model

    with study._write() as conn:
        conn.execute(_TABLE)
    with study._read() as conn:
        ids = [r[0] for r in conn.execute("SELECT id FROM items WHERE attention = 0 ORDER BY id")]
        done = {r[0] for r in conn.execute("SELECT item_id FROM judge_ratings WHERE model = ?", (model,))}
    ids = ids[:limit] if limit else ids
    todo = [i for i in ids if i not in done]
    chat = chat or get_model(model)
    start = time.perf_counter()
    counts = {"judged": 0, "unreadable": 0}

    async def one(item_id: int, gate: asyncio.Semaphore) -> None:
        with study._read() as conn:
            item = study._item_view(conn, item_id)
        async with gate:
            parsed = await complete_json(chat, _prompt(study, item), _schema(study, item.kind), step="rate-judge", max_tokens=120)
        value = parsed.value.model_dump() if parsed.parse_ok else None
        with study._write() as conn:
            conn.execute("INSERT OR REPLACE INTO judge_ratings VALUES (?, ?, ?, ?, ?, ?, ?)", (
                model, item_id, json.dumps(value) if value and item.kind != "ab" else None,
                value["choice"] if value and item.kind == "ab" else None, parsed.raw[:4000], int(parsed.parse_ok), time.time()))
        counts["judged"] += 1
        counts["unreadable"] += int(not parsed.parse_ok)
        if progress:
            progress(len(done & set(ids)) + counts["judged"], len(ids))

    async def run() -> None:
        gate = asyncio.Semaphore(max(1, concurrency))
        await asyncio.gather(*(one(i, gate) for i in todo))

    asyncio.run(run())
    return JudgeRun(model, len(ids), counts["judged"], len(ids) - len(todo), counts["unreadable"], time.perf_counter() - start)


@dataclass
class Agreement:
    """How one judge agrees with the humans, next to how the humans agree with each other."""

    model: str
    items: int  # judged items that humans rated too
    criteria: dict[str, dict] = field(default_factory=dict)  # id -> {n, judge_alpha, spearman, spearman_p, human_alpha}
    ab_items: int = 0
    ab_agree: float | None = None  # share of A/B items where the judge picked the humans' majority answer
    unreadable: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def judge_models(study: Study) -> list[str]:
    with study._read() as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'judge_ratings'").fetchone():
            return []
        return [r[0] for r in conn.execute("SELECT DISTINCT model FROM judge_ratings ORDER BY model")]


def judge_agreement(admin: AdminView, model: str, human_alpha: dict[str, float | None] | None = None) -> Agreement:
    """The judge against the humans' median per item (alpha, ordinal; Spearman), and on A/B items the majority."""
    import krippendorff
    from scipy import stats

    study = admin.study
    with study._read() as conn:
        rows = conn.execute("SELECT item_id, scores_json, choice, ok FROM judge_ratings WHERE model = ?", (model,)).fetchall()
    judged = {r["item_id"]: r for r in rows}
    humans = [r for r in admin.ratings() if not r.attention]
    out = Agreement(model, 0, unreadable=sum(1 for r in rows if not r["ok"]))
    by_item: dict[int, list] = {}
    for r in humans:
        if r.item_id in judged:
            by_item.setdefault(r.item_id, []).append(r)
    out.items = len(by_item)
    for c in study.score_criteria():
        pairs = []
        for item_id, got in by_item.items():
            scores = json.loads(judged[item_id]["scores_json"] or "null")
            values = [g.scores.get(c.id) for g in got if g.kind == "score" and g.scores.get(c.id) is not None]
            if scores and scores.get(c.id) is not None and values:
                pairs.append((scores[c.id], statistics.median(values)))
        entry = {"n": len(pairs), "judge_alpha": None, "spearman": None, "spearman_p": None,
                 "human_alpha": (human_alpha or {}).get(c.id), "note": ""}
        if len(pairs) >= 3:
            judge, human = np.array(pairs, dtype=float).T
            if len(set(judge)) == 1:
                entry["note"] = f"the judge gave {int(judge[0])} to every item"
            if len(set(judge)) > 1 and len(set(human)) > 1:
                rho, p = stats.spearmanr(judge, human)
                entry["spearman"], entry["spearman_p"] = float(rho), float(p)
            if len(set(judge) | set(human)) > 1:
                alpha = krippendorff.alpha(reliability_data=np.vstack([judge, np.floor(human + 0.5)]),
                                           level_of_measurement="ordinal", value_domain=c.points)
                entry["judge_alpha"] = None if math.isnan(alpha) else float(alpha)
        out.criteria[c.id] = entry
    agree = []
    for item_id, got in by_item.items():
        picks = [g.choice for g in got if g.kind == "ab" and g.choice]
        if picks and judged[item_id]["choice"]:
            top = max(set(picks), key=picks.count)
            agree.append(judged[item_id]["choice"] == top)
    out.ab_items = len(agree)
    out.ab_agree = sum(agree) / len(agree) if agree else None
    return out
