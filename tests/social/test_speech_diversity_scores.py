"""Distinct-speech rate and vote/talk consistency (eval/beliefs/_speech.py): properties and one scored game."""
import json

import numpy as np
from hypothesis import given, settings, strategies as st
from typer.testing import CliRunner

from eval.beliefs import BeliefGame, Vote
from eval.beliefs._data import position
from eval.beliefs._speech import Speech, accused_in, consistency_rows, distinct_rows

NAMES = ["Alex", "Blair", "Casey", "Drew", "Ellis", "Finley", "Gray"]
TEXTS = ["I suspect Gray.", "Blair was quiet.", "The doctor may be Casey.", "Vote out Drew.", "I trust Ellis.", "No read yet."]


def identity_embed(texts):
    """A stand-in for MiniLM: equal texts get equal vectors, different texts orthogonal ones."""
    vocab = {t: i for i, t in enumerate(dict.fromkeys(texts))}
    out = np.zeros((len(texts), len(vocab)))
    for row, t in enumerate(texts):
        out[row, vocab[t]] = 1.0
    return out


speeches = st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(TEXTS + [""])), max_size=25).map(
    lambda xs: [Speech(1, i + 1, who, text) for i, (who, text) in enumerate(xs)])


@given(speeches)
def test_distinct_rate_counts_each_wording_once(said):
    rows = distinct_rows(said, embed_fn=identity_embed)
    nonempty = [s for s in said if s.text]
    assert len(rows) == len(nonempty)  # a pass is not a speech
    assert rows[:, 1].sum() == len({s.text for s in nonempty})  # the first of each wording is distinct, copies are not
    if len(rows):
        assert rows[0, 1] == 1  # nobody repeats anyone with the first speech


@given(speeches)
def test_saying_everything_again_halves_the_distinct_rate(said):
    nonempty = [s for s in said if s.text]
    first = distinct_rows(nonempty, embed_fn=identity_embed)
    twice = distinct_rows(nonempty + [Speech(2, i + 1, s.player, s.text) for i, s in enumerate(nonempty)], embed_fn=identity_embed)
    assert twice[:, 1].sum() == first[:, 1].sum()
    assert len(twice) == 2 * len(first)


@given(st.sampled_from(NAMES), st.sampled_from(NAMES), st.sampled_from(["I suspect {}.", "{} is Mafia, I'm sure.",
                                                                        "We should vote out {} today.", "{} is lying"]))
def test_a_suspicion_cue_next_to_a_name_is_an_accusation_and_its_negation_is_not(speaker, target, template):
    accused = accused_in(template.format(target), NAMES, speaker)
    assert accused == ({target} - {speaker})
    assert accused_in(f"{target} is not Mafia.", NAMES, speaker) == set()
    assert accused_in(f"I trust {target}. Gray said the night was quiet.", NAMES, speaker) == set()


@given(st.text(max_size=80), st.sampled_from(NAMES))
def test_only_named_players_other_than_the_speaker_are_accused(text, speaker):
    accused = accused_in(text, NAMES, speaker)
    assert speaker not in accused
    assert all(n.lower() in text.lower() for n in accused)


def test_names_are_found_next_to_chinese_and_not_inside_longer_words():
    assert accused_in("我怀疑Gray是狼。", NAMES) == {"Gray"}
    assert accused_in("Grayson is suspicious.", NAMES) == set()
    assert accused_in("Gray不是狼。", NAMES) == set()


def game_with_votes(votes):
    return BeliefGame("g", NAMES, {n: "villager" for n in NAMES}, votes=[Vote(1, 20.0, v, t) for v, t in votes])


@given(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)).filter(lambda vt: vt[0] != vt[1]), max_size=7, unique_by=lambda vt: vt[0]),
       st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), max_size=10))
@settings(max_examples=60)
def test_a_vote_is_consistent_exactly_when_its_target_was_accused_by_the_voter_that_day(votes, accusations):
    said = [Speech(1, i + 1, who, f"I suspect {whom}.") for i, (who, whom) in enumerate(accusations)]
    rows = consistency_rows(game_with_votes(votes), said)
    speakers = {who for who, _ in accusations}
    scored = [(v, t) for v, t in votes if v in speakers]
    assert len(rows) == len(scored)  # a voter who said nothing that day is not scored
    for (voter, target), row in zip(scored, rows):
        accused = {whom for who, whom in accusations if who == voter and whom != voter}
        assert row[1] == float(target in accused)
        assert row[2] == len(accused) / (len(NAMES) - 1)  # chance: the accused share of the options
        assert 0 <= row[2] <= 1


def test_speech_after_the_vote_or_on_another_day_does_not_count():
    game = game_with_votes([("Alex", "Gray")])
    assert consistency_rows(game, [Speech(1, 21, "Alex", "I suspect Gray.")]).shape == (0, 4)
    assert consistency_rows(game, [Speech(0, 3, "Alex", "I suspect Gray.")]).shape == (0, 4)
    assert consistency_rows(game, [Speech(1, 5, "Alex", "I suspect Gray.")])[0, 1] == 1.0


def test_the_player_a_vote_puts_out_still_counts_among_that_votes_options():
    """Our logs record a vote and the elimination it causes at one position; the chance of a
    consistent vote is over the players alive just before it, so it is never 0 for a consistent one."""
    game = game_with_votes([("Alex", "Gray")])
    game.deaths["Gray"] = position(1, 20.0)
    row = consistency_rows(game, [Speech(1, 5, "Alex", "I suspect Gray.")])[0]
    assert row[1] == 1.0 and row[2] == 1 / (len(NAMES) - 1)


def test_score_reports_speech_figures_per_game_for_a_folder_without_probes(tmp_path):
    """A game played without probes is still scored for its talk (text report and --json)."""
    from ui.cli import app

    events = [
        {"game_id": "g1", "round": 0, "public_msg_seq": 0, "kind": "setup", "private": True, "to": [],
         "players": [{"name": n, "seat": i + 1, "role": "mafia" if n in ("Alex", "Gray") else "villager"} for i, n in enumerate(NAMES)]},
        {"game_id": "g1", "round": 1, "public_msg_seq": 1, "kind": "speech", "player": "Blair", "text": "I suspect Gray, he dodged."},
        {"game_id": "g1", "round": 1, "public_msg_seq": 2, "kind": "speech", "player": "Casey", "text": "I suspect Gray, he dodged."},
        {"game_id": "g1", "round": 1, "public_msg_seq": 2, "kind": "speech_reask", "private": True, "to": [], "player": "Casey"},
        {"game_id": "g1", "round": 1, "public_msg_seq": 3, "kind": "speech", "player": "Drew", "text": "Ellis has been very quiet today."},
        {"game_id": "g1", "round": 1, "public_msg_seq": 4, "kind": "vote_result",
         "votes": {"Blair": "Gray", "Casey": "Alex", "Drew": "Gray", "Ellis": "Gray"}},
        {"game_id": "g1", "round": 1, "public_msg_seq": 5, "kind": "game_over", "winner": "village"},
    ]
    (tmp_path / "g1.jsonl").write_text("\n".join(json.dumps(e) for e in events) + "\n")
    out = CliRunner().invoke(app, ["mafia", "score", str(tmp_path), "--json", "-B", "20", "--plots", str(tmp_path / "plots")])
    assert out.exit_code == 0, out.output
    r = json.loads(out.output)
    game = r["speech_by_game"][0]
    assert (game["speeches"], game["distinct"], game["reasks"]) == (3, 2, 1)
    # Blair accused Gray and voted Gray; Casey accused Gray and voted Alex; Drew accused nobody; Ellis never spoke
    assert (game["votes_scored"], game["consistent"]) == (3, 1)
    assert r["distinct_speech_rate"]["value"] == 2 / 3 and r["vote_talk_consistency"]["value"] == 1 / 3
    text = CliRunner().invoke(app, ["mafia", "score", str(tmp_path), "-B", "20", "--plots", str(tmp_path / "plots")])
    assert text.exit_code == 0 and "Public speech" in text.output and "g1" in text.output
