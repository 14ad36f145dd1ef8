"""Two probe logs of the same game states, compared answer by answer (batched vs one call per probe).

Probes never touch the game, so two probe runners can listen to one game: the game is
identical and only the way of asking differs. This measures what batching does to the answers,
not only to the cost.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from eval.beliefs._data import entries, norm_role
from pipelines.probes import ProbeRecord
from rulesets import FileProblem, read_jsonl


def read_probe_log(path: str | Path) -> list[ProbeRecord]:
    """The records of a probe log; a bad line is one error naming the file, line and key."""
    records = list(read_jsonl(Path(path), ProbeRecord, what="probe log"))
    if not records:
        raise FileProblem(path, "holds no probe records", "give a <game>.probes.jsonl written with --probes")
    return records


def _calls(recs: list[ProbeRecord]) -> int:
    return sum(1 for r in recs if not r.batched) + len({(r.round, r.public_msg_seq, r.player_idx) for r in recs if r.batched})


def _by_player(answer: Any, key: str = "") -> dict[str, dict[str, Any]]:
    return {str(e["player"]).strip(): e for e in entries(answer, key)}


def compare_probe_logs(a: list[ProbeRecord], b: list[ProbeRecord]) -> dict[str, Any]:
    """Agreement of log ``b`` with log ``a`` on the same (step, seat, probe); costs of each."""
    index = {(r.round, r.public_msg_seq, r.player, r.probe_id): r for r in b}
    role_same, conf_diff, top_same, l1s, att_same = [], [], [], [], []
    matched = 0
    for ra in a:
        rb = index.get((ra.round, ra.public_msg_seq, ra.player, ra.probe_id))
        if rb is None or not (ra.parse_ok and rb.parse_ok):
            continue
        matched += 1
        if ra.probe_id == "role_assessment":
            ea, eb = _by_player(ra.answer_parsed), _by_player(rb.answer_parsed)
            for p in ea.keys() & eb.keys():
                role_same.append(norm_role(ea[p].get("guessed_role")) == norm_role(eb[p].get("guessed_role")))
                conf_diff.append(abs(float(ea[p].get("confidence") or 0) - float(eb[p].get("confidence") or 0)))
        elif ra.probe_id == "suspicion_ranking":
            ea, eb = _by_player(ra.answer_parsed), _by_player(rb.answer_parsed)
            common = sorted(ea.keys() & eb.keys())
            try:
                p = np.array([max(float(ea[n]["score"]), 0) for n in common])
                q = np.array([max(float(eb[n]["score"]), 0) for n in common])
            except (TypeError, ValueError, KeyError):
                continue
            if len(common) >= 2 and p.sum() > 0 and q.sum() > 0:
                l1s.append(float(np.abs(p / p.sum() - q / q.sum()).sum()))
                top_same.append(common[int(p.argmax())] == common[int(q.argmax())])
        elif ra.probe_id == "social_map":
            ea, eb = _by_player(ra.answer_parsed, "toward_me"), _by_player(rb.answer_parsed, "toward_me")
            for p in ea.keys() & eb.keys():
                att_same.append(str(ea[p].get("attitude")) == str(eb[p].get("attitude")))

    def mean(x: list) -> float | None:
        return float(np.mean(x)) if x else None

    def side(recs: list[ProbeRecord]) -> dict[str, Any]:
        calls = _calls(recs)
        tokens = sum(r.tokens for r in recs)
        return {"answers": len(recs), "parse_rate": mean([r.parse_ok for r in recs]), "calls": calls, "tokens": tokens,
                "latency_s": sum(r.latency_ms for r in recs) / 1000}

    return {
        "a": side(a), "b": side(b), "matched_answers": matched,
        "role_agreement": mean(role_same), "role_pairs": len(role_same),
        "confidence_abs_diff": mean(conf_diff),
        "top_suspect_agreement": mean(top_same), "suspicion_l1": mean(l1s), "suspicion_pairs": len(l1s),
        "social_map_agreement": mean(att_same), "social_pairs": len(att_same),
    }


def compare_paths(a: str | Path, b: str | Path) -> dict[str, Any]:
    report = compare_probe_logs(read_probe_log(a), read_probe_log(b))
    report["a"]["path"], report["b"]["path"] = str(a), str(b)
    return report
