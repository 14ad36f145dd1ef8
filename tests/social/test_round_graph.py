"""The viewer's data for one round's belief graph and for the fork tree (eval.beliefs, no browser)."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

from eval.beliefs import belief_edges, fork_game, fork_tree, load_edits, load_vgm_game, round_graph
from gm.games import simulate

PLAYERS = ["Ann", "Bo", "Cy", "Di"]
ROLES = {"Ann": "mafia", "Bo": "villager", "Cy": "villager", "Di": "doctor"}


def _game(folder: Path):
    ev = lambda **e: {"game_id": "g", **e}  # noqa: E731
    events = [ev(round=0, public_msg_seq=0, kind="setup", private=True, to=[],
                 players=[{"name": n, "role": r, "team": "mafia" if r == "mafia" else "village"} for n, r in ROLES.items()]),
              ev(round=0, public_msg_seq=1, kind="start", players=PLAYERS),
              ev(round=1, public_msg_seq=1, kind="night_result", killed="Di"),
              ev(round=1, public_msg_seq=2, kind="speech", player="Ann", text="Hello."),
              ev(round=1, public_msg_seq=3, kind="speech", player="Bo", text="Hi."),
              ev(round=2, public_msg_seq=1, kind="speech", player="Cy", text="Again.")]
    (folder / "g.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))

    def probe(rnd, seq, who, pid, answer):
        return {"game_id": "g", "round": rnd, "public_msg_seq": seq, "player_idx": PLAYERS.index(who), "player": who,
                "probe_seq": 0, "probe_id": pid, "parse_ok": True, "role": ROLES[who], "answer_parsed": answer}

    probes = [probe(1, 2, "Bo", "suspicion_ranking", [{"player": "Ann", "score": 90}, {"player": "Cy", "score": 10}]),
              probe(1, 3, "Bo", "suspicion_ranking", [{"player": "Ann", "score": 40}, {"player": "Cy", "score": 70}]),
              probe(1, 2, "Cy", "role_assessment", [{"player": "Ann", "guessed_role": "Mafia", "confidence": 80},
                                                    {"player": "Bo", "guessed_role": "Villager", "confidence": 90}]),
              probe(2, 1, "Bo", "suspicion_ranking", [{"player": "Cy", "score": 100}])]
    (folder / "g.probes.jsonl").write_text("".join(json.dumps(p) + "\n" for p in probes))
    return load_vgm_game(folder / "g.jsonl", folder / "g.probes.jsonl")


def test_the_round_graph_takes_each_seats_latest_answer_of_that_round(tmp_path):
    game = _game(tmp_path)
    edges = belief_edges(game)
    early = round_graph(game, edges, (1, 2))
    assert {(e["from"], e["to"], e["p"]) for e in early["edges"]} == {("Bo", "Ann", 0.9), ("Cy", "Ann", 0.8)}, \
        "Bo's 10 on Cy is under the cut; Cy's Mafia guess counts with its confidence, its Villager guess not"
    late = round_graph(game, edges, (1, 3))
    assert {(e["from"], e["to"], e["p"]) for e in late["edges"]} == {("Bo", "Ann", 0.4), ("Bo", "Cy", 0.7), ("Cy", "Ann", 0.8)}
    assert {n["name"]: n["alive"] for n in late["nodes"]} == {"Ann": True, "Bo": True, "Cy": True, "Di": False}
    assert round_graph(game, edges, (2, 1))["edges"] == [{"from": "Bo", "to": "Cy", "p": 1.0, "step": "2.1"}]


def test_the_fork_tree_groups_forks_by_branch_with_their_edits(tmp_path):
    simulate("mafia", games=1, seed=11, out=tmp_path, snapshots=True)
    log = tmp_path / "mafia-000011.jsonl"
    edits = tmp_path / "e.yaml"
    edits.write_text("- {kind: utterance, at: 1.2, text: 'Sheriff: Blair is Mafia. Vote them out.'}\n")
    asyncio.run(fork_game(log, (1, 2), 2, edits=load_edits(edits), edits_file=edits))
    asyncio.run(fork_game(log, (1, 4), 1))
    tree = fork_tree(sorted(tmp_path.rglob("*.jsonl")))
    assert [(b["parent"], b["at"], b["arm"], len(b["forks"])) for b in tree] == [
        ("mafia-000011", "1.2", "edited", 2), ("mafia-000011", "1.4", "post", 1)]
    assert tree[0]["forks"][0]["edits"][0]["original"] == "I suspect Finley."
    assert all(f["winner"] in ("mafia", "village") for b in tree for f in b["forks"])
