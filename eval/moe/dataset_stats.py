"""What a MOE data set holds, in the terms of Tachikuma's Table 1, §3.5 and Figures 3–4.

The paper reports: 1,003 contexts, 95 game records, 647,480 Chinese words, 32.12 turns per context,
1 to 11 characters per check (1.696 on average), the distribution of the number of characters per
label (Fig. 3) and of check names within the DND logs (Fig. 4), and the check items that can be
verified per rule set (61 for COC, 25 for DND). ``dataset_stats`` computes the same quantities
for any MOE file, ``draw_plots`` the same kinds of figures.
"""
from __future__ import annotations

import re
import statistics
from collections import Counter
from pathlib import Path

import rulesets
from pipelines.records import MoeInstance

from .dataset import data_path, load_moe

PAPER = {"contexts": 1003, "records": 95, "words": 647480, "mean_turns": 32.12, "mean_characters_per_check": 1.696,
         "characters_per_check_range": [1, 11], "check_items": {"coc7e": 61, "dnd5e": 25}}
_WORD = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[A-Za-z0-9']+")


def count_words(text: str) -> int:
    """Latin words plus Han characters (a Chinese text has no spaces to count words by)."""
    return len(_WORD.findall(text))


def _episode(instance: MoeInstance) -> str:
    return (instance.source or instance.id).split("#")[0]


def dataset_stats(instances: list[MoeInstance], path: str = "") -> dict:
    """Table-1-like numbers for a list of instances (see the module doc)."""
    turns = [len(i.context) for i in instances]
    distinct_turns = {(_episode(i), t.speaker, t.text) for i in instances for t in i.context}
    per_check = [len({a.character for a in i.answers}) for i in instances]
    by_ruleset: dict[str, Counter] = {}
    for instance in instances:
        by_ruleset.setdefault(instance.ruleset, Counter()).update(a.skill for a in instance.answers)
    pack_sizes = {}
    for name in by_ruleset:
        try:
            pack = rulesets.load(name)
            pack_sizes[name] = len(pack.checks) + len(pack.families)  # a family (tool:x) counts once
        except rulesets.VgmError:
            pack_sizes[name] = None
    return {
        "path": path,
        "contexts": len(instances),
        "records": len({_episode(i) for i in instances}),
        "words": sum(count_words(text) for _, _, text in distinct_turns),
        "words_in_contexts": sum(count_words(t.text) for i in instances for t in i.context),
        "rulesets": {name: sum(1 for i in instances if i.ruleset == name) for name in by_ruleset},
        "turns": {"mean": statistics.fmean(turns), "median": statistics.median(turns), "min": min(turns), "max": max(turns),
                  "histogram": dict(sorted(Counter(turns).items()))},
        "characters_per_check": {"mean": statistics.fmean(per_check), "min": min(per_check), "max": max(per_check),
                                 "histogram": dict(sorted(Counter(per_check).items()))},
        "answers": sum(len(i.answers) for i in instances),
        "cast_size": statistics.fmean(len(i.characters or []) for i in instances),
        "check_items": {name: {"used": len(c), "in_pack": pack_sizes[name]} for name, c in by_ruleset.items()},
        "checks": {name: dict(c.most_common()) for name, c in by_ruleset.items()},
        "paper": PAPER,
    }


def stats_for(path: str | Path) -> dict:
    """``dataset_stats`` of a MOE file (strictly loaded; ``sample`` is the shipped sample)."""
    return dataset_stats(load_moe(path), str(data_path(path)))


def draw_plots(stats: dict, folder: str | Path, top: int = 20) -> list[Path]:
    """Fig. 3 (characters per check), Fig. 4 (check names per rule set) and context lengths, as PNGs.

    Returns the files written; an empty list when matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []

    def save(fig, name: str) -> None:
        fig.tight_layout()
        fig.savefig(folder / name, dpi=120)
        plt.close(fig)
        written.append(folder / name)

    hist = stats["characters_per_check"]["histogram"]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.bar([str(k) for k in hist], list(hist.values()), color="#4C72B0")
    ax.set_xlabel("characters in the label")
    ax.set_ylabel("contexts")
    ax.set_title(f"Characters per check (mean {stats['characters_per_check']['mean']:.3f}; paper 1.696)")
    save(fig, "fig3_characters_per_check.png")

    for ruleset, counts in stats["checks"].items():
        items = list(counts.items())[:top]
        fig, ax = plt.subplots(figsize=(max(5, 0.35 * len(items) + 2), 3.6))
        ax.bar([k for k, _ in items], [v for _, v in items], color="#55A868")
        ax.set_ylabel("labels")
        ax.set_title(f"Check names in {ruleset} labels (top {len(items)} of {len(counts)})")
        ax.tick_params(axis="x", labelrotation=60, labelsize=8)
        save(fig, f"fig4_checks_{ruleset}.png")

    turns = stats["turns"]["histogram"]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.bar(list(turns), list(turns.values()), color="#C44E52")
    ax.axvline(PAPER["mean_turns"], color="black", linestyle="--", label="paper mean 32.12")
    ax.set_xlabel("turns in the context")
    ax.set_ylabel("contexts")
    ax.legend()
    ax.set_title(f"Context lengths (mean {stats['turns']['mean']:.2f})")
    save(fig, "context_lengths.png")
    return written
