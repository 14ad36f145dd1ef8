"""What the Beliefs viewer shows, computed without a browser: belief edges, second-order pairs, metrics at a
step, deception markers, Wilson whiskers, the dashboard, and the ``vgm mafia edges`` command."""
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from eval.beliefs import (BeliefGame, Vote, belief_edges, branch_key, calibration_bins, dashboard_rows, deception_markers,
                          game_steps, load_edges, load_vgm_game, pooled_row, public_claims, read_jsonl, role_track, save_edges,
                          seat_series, second_order_pairs, step_label, step_metrics, step_position)
from eval.beliefs import _metrics as m
from pipelines.llm import ScriptedModel
from pipelines.probes import ProbeRecord
from rulesets import VgmError

PLAYERS = ["Ann", "Bo", "Cy", "Di"]
ROLES = {"Ann": "Mafia", "Bo": "Sheriff", "Cy": "Villager", "Di": "Doctor"}


def rec(player, probe_id, answer, rnd=1, seq=1):
    return ProbeRecord(round=rnd, public_msg_seq=seq, player_idx=PLAYERS.index(player), player=player, probe_seq=0,
                       probe_id=probe_id, answer_parsed=answer, parse_ok=True)


def ra(**guesses):
    return [{"player": p, "guessed_role": g, "confidence": c} for p, (g, c) in guesses.items()]


def sm(**att):
    return {"toward_me": [{"player": p, "attitude": a, "confidence": 50} for p, a in att.items()]}


def speech(seq, who, text, rnd=1):
    return {"game_id": "t", "round": rnd, "public_msg_seq": seq, "kind": "speech", "player": who, "text": text}


@pytest.fixture
def game():
    """Ann is Mafia, Bo Sheriff, Cy Villager, Di Doctor; everyone answers at step 1.2, Bo and Cy again at 1.3."""
    probes = [
        rec("Ann", "role_assessment", ra(Bo=("Sheriff", 90), Cy=("Villager", 80), Di=("Villager", 50)), seq=2),
        rec("Bo", "role_assessment", ra(Ann=("Mafia", 95), Cy=("Villager", 60), Di=("Unknown", 10)), seq=2),
        rec("Cy", "role_assessment", ra(Ann=("Villager", 70), Bo=("Mafia", 55), Di=("Doctor", 30)), seq=2),
        rec("Di", "role_assessment", ra(Ann=("Unknown", 20), Bo=("Sheriff", 60), Cy=("Mafia", 40)), seq=2),
        rec("Ann", "social_map", sm(Bo="suspects", Cy="trusts", Di="neutral"), seq=2),
        rec("Bo", "suspicion_ranking", [{"player": "Ann", "score": 90}, {"player": "Cy", "score": 20}, {"player": "Di", "score": 40}], seq=2),
        rec("Bo", "suspicion_ranking", [{"player": "Ann", "score": 95}, {"player": "Cy", "score": 10}, {"player": "Di", "score": 30}], seq=3),
        rec("Cy", "role_assessment", ra(Ann=("Mafia", 60), Bo=("Sheriff", 70)), seq=3),
        rec("Di", "role_beliefs", [{"player": "Ann", "beliefs": {"Mafia": 3, "Villager": 1}}], seq=3),
    ]
    return BeliefGame(game_id="t", players=PLAYERS, roles=ROLES, votes=[Vote(1, 5, "Ann", "Cy"), Vote(1, 5, "Bo", "Ann")],
                      probes=probes, winner="Villagers")


# -- temporal edges --------------------------------------------------------------------------
def test_every_belief_becomes_one_edge_in_time_order(game):
    edges = belief_edges(game)
    assert {"step": "1.2", "from": "Bo", "to": "Ann", "kind": "suspicion", "value": 90.0} in edges
    assert {"step": "1.2", "from": "Cy", "to": "Bo", "kind": "role:Mafia", "value": 55.0} in edges
    assert {"step": "1.2", "from": "Ann", "to": "Bo", "kind": "social", "value": 1.0} in edges  # Ann thinks Bo suspects her
    assert {"step": "1.2", "from": "Ann", "to": "Cy", "kind": "social", "value": -1.0} in edges
    assert {"step": "1.3", "from": "Di", "to": "Ann", "kind": "belief:Mafia", "value": 0.75} in edges  # normalised weights
    assert [step_position(e["step"]) for e in edges] == sorted(step_position(e["step"]) for e in edges)
    assert seat_series(edges, "Bo") == {"Ann": [("1.2", 90.0), ("1.3", 95.0)], "Cy": [("1.2", 20.0), ("1.3", 10.0)],
                                        "Di": [("1.2", 40.0), ("1.3", 30.0)]}
    assert role_track(edges, "Cy")["Ann"] == {"1.2": ("Villager", 70.0), "1.3": ("Mafia", 60.0)}
    assert role_track(edges, "Di")["Ann"] == {"1.2": ("Unknown", 20.0), "1.3": ("Mafia", 75.0)}  # 1.3: role_beliefs only


def test_round_end_steps_have_a_readable_label():
    assert step_label(2, -1) == step_label(2, math.inf) == "2.end"
    assert step_position("2.end") == (2, math.inf) and step_position("1.7") == (1, 7.0)
    assert branch_key("1.end") == (1, -1) and branch_key(" 3.4 ") == (3, 4)
    with pytest.raises(VgmError, match="ROUND.SEQ"):
        branch_key("one.two")


names = st.text(alphabet=st.characters(categories=["L", "N"], include_characters=" ,\"'-é"), min_size=1, max_size=12)
edge_rows = st.lists(st.fixed_dictionaries({
    "step": st.builds(lambda r, s: step_label(r, s), st.integers(0, 20), st.integers(-1, 60)),
    "from": names, "to": names, "kind": st.sampled_from(["suspicion", "role:Mafia", "belief:Doctor", "social"]),
    "value": st.floats(-1e6, 1e6, allow_nan=False)}), max_size=20)


@settings(max_examples=40, deadline=None)
@given(rows=edge_rows, fmt=st.sampled_from([".csv", ".json"]))
def test_edges_round_trip_through_csv_and_json(tmp_path_factory, rows, fmt):
    path = tmp_path_factory.mktemp("edges") / f"g{fmt}"
    assert load_edges(save_edges(rows, path)) == rows


def test_edge_files_need_a_known_extension(tmp_path, game):
    with pytest.raises(VgmError, match="name it .csv or .json"):
        save_edges(belief_edges(game), tmp_path / "g.txt")
    with pytest.raises(VgmError, match="no such edge file"):
        load_edges(tmp_path / "missing.csv")


# -- second order ----------------------------------------------------------------------------
def test_second_order_pairs_set_what_ann_believes_against_what_each_reported(game):
    result = second_order_pairs(game, "Ann", (1, 2.0))
    pairs = {p["player"]: p for p in result["pairs"]}
    assert pairs["Bo"]["believed"] == "suspects" and pairs["Bo"]["actual"] == "suspects" and pairs["Bo"]["match"] is True
    assert pairs["Cy"]["believed"] == "trusts" and pairs["Cy"]["actual"] == "trusts" and pairs["Cy"]["guess"] == "Villager (70)"
    assert pairs["Di"]["actual"] == "neutral" and pairs["Di"]["match"] is True  # Unknown at 20 → neutral
    assert (result["step"], result["matched"], result["scored"]) == ("1.2", 3, 3)
    # the same pairs as the second-order figure, which is defined in _metrics
    assert len(m.second_order_rows(game)) == 3 and m.agreement(50)(m.second_order_rows(game)) == 1.0


def test_second_order_without_a_social_map_is_empty(game):
    assert second_order_pairs(game, "Bo", (1, 3.0)) == {"step": None, "pairs": [], "matched": 0, "scored": 0}


# -- metrics strip ---------------------------------------------------------------------------
def test_metrics_at_a_step_are_the_metric_functions_on_that_steps_answers(game):
    x = step_metrics(game, (1, 2.0), seat="Cy")
    # villager side at 1.2: Bo (Ann Mafia ✓, Cy Villager ✓, Di Unknown), Cy (Ann ✗, Bo ✗, Di Doctor ✓), Di (Ann Unknown, Bo Sheriff ✓, Cy ✗)
    assert x["committed"] == 7 and x["accuracy"] == pytest.approx(4 / 7)
    assert x["recall"] == pytest.approx(1 / 3)  # only Bo named Ann Mafia
    assert x["hidden"] == {"Ann": pytest.approx(2 / 3)}
    assert x["seat_accuracy"] == pytest.approx(1 / 3) and x["seat_committed"] == 3
    rows = m.calibration_rows(game)
    assert x["calibrated_so_far"] == 7 and x["ece_so_far"] == pytest.approx(m.ece(rows[:7]))
    later = step_metrics(game, (1, 3.0))
    assert later["committed"] == 2 and later["accuracy"] == 1.0 and later["calibrated_so_far"] == 9
    assert game_steps(game) == [(1, 2.0), (1, 3.0)]


# -- deception markers -----------------------------------------------------------------------
def test_claims_are_read_from_speeches_and_votes(game):
    events = [speech(1, "Cy", "I don't trust Bo. Di seems like a good guy!"), speech(2, "Ann", "I am the Doctor, and Bo is odd.")]
    claims = {(c["seat"], c["kind"], c["target"]) for c in public_claims(game, events)}
    assert claims == {("Cy", "accuses", "Bo"), ("Cy", "vouches", "Di"), ("Ann", "claims_role", "Doctor"), ("Ann", "accuses", "Bo"),
                      ("Ann", "votes", "Cy"), ("Bo", "votes", "Ann")}


def test_a_sentence_naming_two_players_accuses_the_one_next_to_the_cue(game):
    claims = public_claims(game, [speech(1, "Bo", "Talking with Di earlier, I found Cy suspicious.")])
    assert [(c["kind"], c["target"]) for c in claims if c["seat"] == "Bo" and c["kind"] != "votes"] == [("accuses", "Cy")]


def test_a_claim_against_the_seats_own_private_belief_is_marked(game):
    events = [
        speech(3, "Ann", "Bo is the Mafia, I am sure."),       # Ann privately: Bo Sheriff (90) → trusts: marked
        speech(3, "Ann", "I am the Doctor."),                  # Ann is Mafia: a false role claim
        speech(3, "Bo", "Ann is lying, vote her out."),        # Bo privately: Ann Mafia (95): honest
        speech(3, "Cy", "I trust Ann completely."),            # Cy at 1.3: Ann Mafia (60) → suspects: marked
        speech(3, "Di", "Cy is suspicious."),                  # Di: Cy Mafia (40) is below 50 → neutral: no marker
    ]
    marks = {(mk["seat"], mk["kind"], mk["target"]): mk for mk in deception_markers(game, events)}
    assert set(marks) == {("Ann", "accuses", "Bo"), ("Ann", "claims_role", "Doctor"), ("Cy", "vouches", "Ann"),
                          ("Ann", "votes", "Cy")}  # Ann also votes for Cy, whom she guessed Villager (80)
    assert "Sheriff (90)" in marks[("Ann", "accuses", "Bo")]["private"]
    assert marks[("Ann", "claims_role", "Doctor")]["private"] == "its role is Mafia"
    assert marks[("Ann", "votes", "Cy")]["step"] == "1.5"


def test_a_chinese_speech_is_marked_like_an_english_one(game):
    """--lang zh games: Chinese cues and punctuation (no space after 。) are read, negation included."""
    events = [
        speech(3, "Ann", "我怀疑Bo是狼。我是医生。"),  # Ann privately: Bo Sheriff (90) → trusts: marked
        speech(3, "Cy", "Di不是狼。我信任Ann。"),     # Cy at 1.3: Ann Mafia (60) → suspects: marked
        speech(3, "Bo", "我不怀疑Cy，Ann在撒谎。"),    # Bo: Ann its top suspect, Cy the least: honest
    ]
    claims = {(c["seat"], c["kind"], c["target"]) for c in public_claims(game, events) if c["kind"] != "votes"}
    assert claims == {("Ann", "accuses", "Bo"), ("Cy", "vouches", "Di"), ("Cy", "vouches", "Ann"), ("Bo", "vouches", "Cy"),
                      ("Bo", "accuses", "Ann")}
    marks = {(mk["seat"], mk["kind"], mk["target"]): mk for mk in deception_markers(game, events)}
    assert set(marks) == {("Ann", "accuses", "Bo"), ("Cy", "vouches", "Ann"), ("Ann", "votes", "Cy")}
    assert marks[("Ann", "accuses", "Bo")]["text"] == "我怀疑Bo是狼。"


def test_suspicion_ranking_alone_also_gives_a_private_stance():
    """The cheap probe set asks suspicion only: accusing one's least-suspected player is marked."""
    probes = [rec("Bo", "suspicion_ranking", [{"player": "Ann", "score": 90}, {"player": "Cy", "score": 5}, {"player": "Di", "score": 40}])]
    g = BeliefGame(game_id="t", players=PLAYERS, roles=ROLES, probes=probes)
    marks = deception_markers(g, [speech(2, "Bo", "Cy is the Mafia."), speech(2, "Bo", "Di is odd."), speech(2, "Bo", "Ann is clear.")])
    assert [(mk["kind"], mk["target"]) for mk in marks] == [("accuses", "Cy"), ("vouches", "Ann")]


# -- calibration whiskers ----------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=80))
def test_wilson_whiskers_contain_each_bins_rate(pairs):
    import numpy as np

    rows = np.array([[c, float(ok)] for c, ok in pairs])
    bins = calibration_bins(rows)
    assert sum(b["n"] for b in bins) == len(rows)
    for b in bins:
        if b["n"]:
            assert 0 <= b["low"] <= b["accuracy"] <= b["high"] <= 1
            assert b["k"] == round(b["accuracy"] * b["n"])
        else:
            assert b["low"] is None and b["high"] is None


# -- a played game: dashboard and the CLI ----------------------------------------------------
@pytest.fixture
def played(tmp_path, respond):
    from gm.mafia import MafiaGame
    from gm.social import LlmSeat
    from pipelines.probes import attach_probes

    model = ScriptedModel(responder=respond)
    game = MafiaGame([LlmSeat(model) for _ in range(5)], seed=3, game_id="vw", log_path=tmp_path / "vw.jsonl",
                     options={"max_rounds": 2})
    runner = attach_probes(game, "default", None, tmp_path / "vw.probes.jsonl")
    game.play()
    runner.close()
    return tmp_path / "vw.jsonl"


def test_dashboard_row_summarises_a_played_game(played):
    g = load_vgm_game(played)
    [row] = dashboard_rows([(g, read_jsonl(played))])
    assert row["game"] == "vw" and row["winner"] == g.winner and row["probes"] == len(g.probes) > 50
    assert row["steps"] == len(game_steps(g)) and row["rounds"] == 2 and 0 <= row["accuracy"] <= 1
    assert row["ece"] == pytest.approx(m.ece(m.calibration_rows(g)))
    assert row["deceptions"] == len(deception_markers(g, read_jsonl(played)))


def test_the_pooled_row_gives_the_same_figures_as_vgm_mafia_score(played, game):
    from eval.beliefs import score_games

    played_game = load_vgm_game(played)
    games = [played_game, game]
    rows = dashboard_rows([(played_game, read_jsonl(played)), (game, [])])
    pooled = pooled_row(rows, games)
    report = score_games(games, b=20)
    for ours, theirs in (("accuracy", "first_order_accuracy"), ("recall", "mafia_recall"), ("ece", "ece"), ("brier", "brier"),
                         ("overprediction", "overprediction_ratio")):
        assert pooled[ours] == pytest.approx(report[theirs]["value"]), ours
    assert pooled["game"] == "all 2 games" and pooled["probes"] == len(played_game.probes) + len(game.probes)


def test_vgm_mafia_edges_writes_csv_and_json(played, tmp_path):
    from ui.cli import app

    runner = CliRunner()
    out = runner.invoke(app, ["mafia", "edges", str(played), "-o", str(tmp_path / "e.csv")])
    assert out.exit_code == 0, out.output
    rows = load_edges(tmp_path / "e.csv")
    assert rows == belief_edges(load_vgm_game(played)) and {r["kind"] for r in rows} >= {"suspicion", "social", "role:Villager"}
    assert (tmp_path / "e.csv").read_text().splitlines()[0] == "step,from,to,kind,value"
    out = runner.invoke(app, ["mafia", "edges", str(played), "-o", str(tmp_path / "e.json")])
    assert out.exit_code == 0 and json.loads((tmp_path / "e.json").read_text()) == rows


@pytest.mark.parametrize("args, message", [
    (["nowhere.jsonl", "-o", "e.csv"], "no such file or folder"),
    (["GAME", "-o", "e.parquet"], "unknown edge file type '.parquet'; name it .csv or .json"),
])
def test_vgm_mafia_edges_bad_input_is_one_line(played, tmp_path, args, message):
    from ui.cli import app

    args = [str(played) if a == "GAME" else a if a.startswith("-") else str(tmp_path / a) for a in args]
    out = CliRunner().invoke(app, ["mafia", "edges", *args])
    assert out.exit_code != 0 and isinstance(out.exception, VgmError) and message in str(out.exception)
    assert "\n" not in str(out.exception)
