"""The Beliefs tab's node-link view and fork tree: drawing only (the data is ``eval.beliefs.round_graph`` / ``fork_tree``).

One round's belief graph: players on a circle, an arrow from each seat to each player it
suspects, its width the probability (suspicion / 100). The selected seat's arrows are drawn in
orange, the others grey. With *Show true roles* the Mafia are red, the rest blue; the dead are
hollow. The PNG is the export: the viewer offers it as a download.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from eval.beliefs import MIN_EDGE

from ._beliefs_panels import ROLE_COLOURS, _pyplot, _save
from ._common import esc

AGENT_EDGE = "#E69F00"
OTHER_EDGE = "#555555"


def edge_width(p: float) -> float:
    """Line width of an arrow of probability ``p``: from 0.5 (p = 0) to 6.5 (p = 1)."""
    return 0.5 + 6.0 * p


def round_graph_plot(graph: dict[str, Any], agent: str | None, show_truth: bool, path: str | Path) -> Path:
    """Draw ``round_graph``'s nodes and edges to ``path`` (PNG)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 6.0))
    nodes = graph["nodes"]
    k = max(len(nodes), 1)
    where = {n["name"]: (math.cos(math.pi / 2 - 2 * math.pi * i / k), math.sin(math.pi / 2 - 2 * math.pi * i / k))
             for i, n in enumerate(nodes)}
    for e in sorted(graph["edges"], key=lambda e: (e["from"] == agent, e["p"])):  # the agent's arrows on top
        mine = e["from"] == agent
        ax.annotate("", xy=where[e["to"]], xytext=where[e["from"]],
                    arrowprops=dict(arrowstyle="-|>", lw=edge_width(e["p"]), mutation_scale=10 + 8 * e["p"],
                                    color=AGENT_EDGE if mine else OTHER_EDGE, alpha=0.95 if mine else 0.25 + 0.5 * e["p"],
                                    shrinkA=17, shrinkB=17, connectionstyle="arc3,rad=0.12"))
    for n in nodes:
        x, y = where[n["name"]]
        colour = (ROLE_COLOURS["Mafia"] if n["role"] == "Mafia" else ROLE_COLOURS["Villager"]) if show_truth else "#999999"
        ax.scatter([x], [y], s=900, facecolors=colour if n["alive"] else "white", edgecolors=colour,
                   linewidths=3 if n["name"] == agent else 1.5, zorder=3)
        label = n["name"] + ("" if n["alive"] else " †")
        if show_truth:
            label += f"\n{n['role']}"
        ax.text(x * 1.28, y * 1.28, label, ha="center", va="center", fontsize=10,
                fontweight="bold" if n["name"] == agent else "normal")
    ax.set_xlim(-1.6, 1.6)
    ax.set_ylim(-1.6, 1.6)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"Round {graph['round']} at step {graph['step']}: who suspects whom\n"
                 f"arrow = suspicion, width = probability (≥ {MIN_EDGE:.0%} shown); orange: {agent or '-'}", fontsize=10)
    return _save(fig, path)


def fork_tree_html(tree: list[dict[str, Any]], selected: str | None = None) -> str:
    """The branches of every game as a nested list: parent → branch point and arm → each fork, its winner and its edits."""
    if not tree:
        return "<p>No forks in this folder yet (<code>vgm mafia fork</code> or the Branch button make them).</p>"
    parents: dict[str, list[dict[str, Any]]] = {}
    for branch in tree:
        parents.setdefault(branch["parent"], []).append(branch)
    out = ['<div class="vgm-fork-tree"><ul>']
    for parent, branches in parents.items():
        name = f"<b>{esc(parent)}</b> (this game)" if parent == selected else esc(parent)
        out.append(f"<li>{name}<ul>")
        for b in branches:
            edited = [f for f in b["forks"] if f["edits"]]
            out.append(f"<li>branch at {esc(b['at'])} ({esc(b['arm'])} arm, {len(b['forks'])} forks)")
            if edited:
                out.append("<ul class='vgm-edits'>" + "".join(f"<li>edit {esc(_edit_text(e))}</li>" for e in edited[0]["edits"]) + "</ul>")
            out.append("<ul>" + "".join(f"<li>{esc(f['game_id'])}: {esc(f['winner'] or 'unfinished')}</li>" for f in b["forks"]) + "</ul></li>")
        out.append("</ul></li>")
    out.append("</ul></div>")
    return "".join(out)


def _edit_text(e: dict[str, Any]) -> str:
    kind = e.get("kind", "")
    if kind == "utterance":
        return f"{kind} {e.get('at')} ({e.get('seat')}): {e.get('text')!r} (was {e.get('original')!r})"
    if kind == "belief":
        return f"belief of {e.get('seat')}: {e.get('text')!r}"
    if kind == "speech":
        return f"speech of {e.get('seat')} in round {e.get('round')}: {e.get('text')!r}"
    return f"{kind} of {e.get('seat')} in round {e.get('round')}: {e.get('target')}"
