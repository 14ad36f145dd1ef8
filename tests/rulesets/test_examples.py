"""The example player lines of the TRPG packs: enough of them, none twice, and distinct enough that
the nearest example line (MiniLM) of a held-out line usually carries the right answer.

The GM turn embeds a player's line and lets the nearest example lines decide which check, if any,
to call for; these tests protect the material that decision is made from.
"""
import re
from collections import Counter

import numpy as np
import pytest

from rulesets import load

TRPG = ["dnd5e", "coc7e", "pf2e", "swade"]
SOCIAL = ["avalon", "mafia"]


def labelled_lines(rs) -> list[tuple[str, str]]:
    """Every example line of a pack with its answer: a check id, a family id, "no_roll" or "impossible"."""
    lines = [(x, cid) for cid, c in rs.checks.items() for x in c.examples]
    lines += [(x, fid) for fid, f in rs.families.items() for x in f.examples]
    lines += [(x, "no_roll") for x in rs.no_roll]
    lines += [(x, "impossible") for x in rs.impossible]
    return lines


def _key(line: str) -> str:
    return re.sub(r"\s+", " ", line).strip().casefold()


@pytest.mark.parametrize("pack", TRPG)
def test_every_check_and_family_has_example_lines(pack):
    rs = load(pack)
    thin = {cid: len(c.examples) for cid, c in rs.checks.items() if len(c.examples) < 2}
    thin |= {f"{fid} (family)": len(f.examples) for fid, f in rs.families.items() if len(f.examples) < 2}
    assert not thin, f"{pack}: fewer than 2 example lines: {thin}"


@pytest.mark.parametrize("pack", TRPG)
def test_ability_checks_carry_the_abilitys_examples(pack):
    rs = load(pack)
    for aid, a in rs.ability_defs.items():
        if a.check:
            assert rs.checks[aid].examples == a.examples and a.examples, aid


@pytest.mark.parametrize("pack", TRPG)
def test_no_example_line_appears_twice_in_a_pack(pack):
    counts = Counter(_key(line) for line, _ in labelled_lines(load(pack)))
    assert not [line for line, n in counts.items() if n > 1]


@pytest.mark.parametrize("pack", TRPG)
def test_each_pack_has_no_roll_and_impossible_lines(pack):
    rs = load(pack)
    assert len(rs.no_roll) >= 40
    assert len(rs.impossible) >= 20
    assert all(line.strip() == line and line for line, _ in labelled_lines(rs))


@pytest.mark.parametrize("pack", SOCIAL)
def test_social_packs_have_no_example_lines(pack):
    rs = load(pack)
    assert rs.kind == "social" and rs.roles
    assert not rs.no_roll and not rs.impossible and not rs.checks


def leave_one_out_accuracy(lines: list[tuple[str, str]], embed) -> float:
    """Share of lines whose nearest other line (cosine, MiniLM) has the same answer."""
    vectors = embed([text for text, _ in lines])
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, -np.inf)
    nearest = similarity.argmax(axis=1)
    labels = [label for _, label in lines]
    return float(np.mean([labels[i] == labels[j] for i, j in enumerate(nearest)]))


@pytest.fixture(scope="module")
def minilm():
    from pipelines.embeddings import EmbeddingUnavailable, embed, minilm_files

    try:
        minilm_files()
    except EmbeddingUnavailable as e:
        pytest.skip(str(e))
    return embed


@pytest.mark.parametrize("pack", TRPG)
def test_a_held_out_line_finds_its_answer_among_the_others(pack, minilm):
    accuracy = leave_one_out_accuracy(labelled_lines(load(pack)), minilm)
    assert accuracy >= 0.60, f"{pack}: leave-one-out nearest neighbour {accuracy:.1%}; make the weak lines more distinctive"
