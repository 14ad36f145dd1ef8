"""What the Compare, Play and Beliefs tabs show, checked through their own functions (no browser)."""
import gradio as gr
import pytest

from pipelines.llm import ScriptedModel
from rulesets import VgmError
from ui.web._beliefs import agent_steps, belief_rows, calibration_plot, feed, find_games
from ui.web._common import AppContext
from ui.web._compare import instance_detail, instance_diff, leaderboard, load_rows


# -- Compare ---------------------------------------------------------------------------
def test_leaderboard_ranks_runs_by_sf_with_intervals(demo_runs):
    rows = load_rows(demo_runs[0].parent)
    board = leaderboard(rows)
    assert [r[0] for r in board] == ["tbs_gm", "template_gm"]
    assert board[0][4].startswith("100.0 [") and board[0][2] == 12


def test_instance_diff_lists_only_where_runs_differ(demo_runs):
    rows = instance_diff(str(demo_runs[0]), str(demo_runs[1]), only_different=True)
    everything = instance_diff(str(demo_runs[0]), str(demo_runs[1]), only_different=False)
    assert len(everything) == 12 and 0 < len(rows) <= 12
    worse = [r for r in everything if r[6] < 0]
    assert all(r[2] != r[4] for r in worse)  # B lost SF only where it predicted another check


def test_instance_detail_shows_context_and_both_utterances(demo_runs):
    context, a, b = instance_detail(str(demo_runs[0]), str(demo_runs[1]), "demo-0001")
    assert "Caleb" in context and "vgm-speaker" in context
    assert "give me a arcana check" in a or "arcana" in a
    assert "Roll" in b


def test_compare_on_a_folder_without_runs_says_how_to_make_them(tmp_path):
    with pytest.raises(VgmError, match="vgm moe"):
        load_rows(tmp_path)


# -- Play ------------------------------------------------------------------------------
@pytest.fixture
def play(tmp_path):
    from ui.web._play import PlayTab

    model = ScriptedModel(
        by_step={"pre_char": ['["Brisa Tallowmere"]'], "char": ['["Brisa Tallowmere"]'],
                 "skill": ['[{"character": "Brisa Tallowmere", "skill": "investigation"}]']},
        replies=["A seam under the altar gives way under your probing fingers."], repeat_last=True,
    )
    ctx = AppContext(model=model, saves_dir=tmp_path / "saves", memory="hashing")
    with gr.Blocks():
        tab = PlayTab(ctx, gr.State(None))
    return tab


def test_play_new_game_step_shows_checks_and_dice_and_saves(play):
    shown = play._new(None, "drowned_chapel", "", "tbs")
    gm = shown[play.game]
    assert "New game" in shown[play.status]
    assert shown[play.chat][0]["role"] == "assistant"  # the GM's opening
    assert "Brisa Tallowmere" in shown[play.characters]
    updates = list(play._send(None, gm, shown[play.chat], "Brisa Tallowmere", "I search the altar for hidden catches"))
    assert "thinking" in updates[0][play.chat][-1]["content"]  # shown while the GM decides
    out = updates[-1]
    (roll,) = out[play.rolls]
    # the narration tells what the dice gave (gm/outcome.py plans it): the scene's find, or its on_fail; the
    # scripted words bring in a seam the scene lacks, so the plan is said plainly
    told = "hidden catch under the altar" if roll[4].startswith("success") else "solid stone, slick with algae"
    assert any(told in u[play.chat][-1]["content"] for u in updates[1:-1])  # streamed
    last = out[play.chat][-1]["content"]
    assert "Investigation" in last and "1d20" in last and told in last
    assert "investigation" in out[play.checks] and "DC" in out[play.checks]
    assert out[play.rolls][0][1] == "Investigation" and "1d20" in out[play.rolls][0][2]
    reloaded = play._load(None, gm.session.path, "")
    assert "1 turns so far" in reloaded[play.status]
    assert any("I search the altar" in m["content"] for m in reloaded[play.chat])


def test_play_errors_are_one_line_not_tracebacks(play):
    assert "start a new game" in list(play._send(None, None, [], "x", "hello"))[-1][play.status]
    assert "pick a saved session" in play._load(None, None, "")[play.status]


def test_play_is_closed_to_raters_when_a_study_is_served(play, study, raters):
    play.ctx.study = study
    out = play._new(raters[0].token, "drowned_chapel", "", "tbs")
    assert "access denied" in out[play.status] and play.game not in out


# -- Beliefs ---------------------------------------------------------------------------
def test_impersonate_view_shows_only_what_the_agent_saw(mafia_logs):
    entry = find_games(mafia_logs)[0]
    game = entry.game
    end = agent_steps(game, "Bo")[-1]
    bo = " ".join(t["text"] for t in feed(entry, "Bo", end, impersonate=True))
    ann = " ".join(t["text"] for t in feed(entry, "Ann", end, impersonate=True))
    moderator = " ".join(t["text"] for t in feed(entry, "Bo", end, impersonate=False))
    assert "sheriff_check" in bo and "mafia_pick" not in bo and "setup" not in bo
    assert "mafia_pick" in ann and "sheriff_check" not in ann
    assert "mafia_pick" in moderator and "setup" in moderator


def test_timeline_moves_the_beliefs(mafia_logs):
    game = find_games(mafia_logs)[0].game
    steps = agent_steps(game, "Bo")
    assert steps == [(1, 2.0), (1, 4.0)]
    early = {r[0]: r for r in belief_rows(game, "Bo", steps[0], show_truth=True)}
    late = {r[0]: r for r in belief_rows(game, "Bo", steps[1], show_truth=True)}
    assert early["Ann"][1] == "Unknown" and late["Ann"][1:5] == ["Mafia", "95", "Mafia", "yes"]
    assert late["Cy"][5] == "dead"
    hidden = {r[0]: r for r in belief_rows(game, "Bo", steps[1], show_truth=False)}
    assert hidden["Ann"][3] == "(hidden)"


def test_calibration_plot_for_the_game_and_one_agent(mafia_logs, tmp_path):
    game = find_games(mafia_logs)[0].game
    path, note = calibration_plot(game, "Bo", tmp_path / "c.png")
    assert path.read_bytes()[:4] == b"\x89PNG"
    assert "ECE" in note and "Bo" in note


def test_beliefs_on_a_folder_without_games(tmp_path):
    with pytest.raises(VgmError, match="no games"):
        find_games(tmp_path)


def test_table_log_escapes_markup_and_gives_each_speaker_a_colour():
    from ui.web._common import turns_html

    html = turns_html([{"speaker": "GM", "text": "Hi"}, {"speaker": "Vell", "text": "<script>alert(1)</script>"},
                       {"speaker": "Tomas", "text": "ok"}, {"speaker": "Brina", "text": "fine"}])
    assert "<script>" not in html and "&lt;script&gt;" in html
    colours = [part.split('"')[0] for part in html.split("color:")[1:]]
    assert len(set(colours)) == 4
