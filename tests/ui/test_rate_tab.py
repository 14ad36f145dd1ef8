"""The Rate tab's handlers: what a rater and the owner see, without a browser (A/B mode included)."""
import gradio as gr
import pytest

from eval.ratings import build_study
from ui.web._common import AppContext
from ui.web._rate import RateTab


def _tab(study):
    with gr.Blocks():
        return RateTab(AppContext(study=study), gr.State(None))


@pytest.fixture
def ab_study(tmp_path, demo_runs):
    s, admin_token, _ = build_study(demo_runs, tmp_path / "ab.db", n=2, include_human=True, mode="ab")
    return s, admin_token


def test_ab_item_shows_two_lines_and_stores_the_pick(ab_study):
    study, _ = ab_study
    token = study.owner().add_rater("dana").token
    tab = _tab(study)
    shown = tab.on_load(token)
    assert shown[tab.ab_panel]["visible"] is True and shown[tab.score_panel]["visible"] is False
    assert "A:" in shown[tab.utter_a] and "B:" in shown[tab.utter_b] and "checks proposed" in shown[tab.utter_a]
    assert "tbs_gm" not in str(shown) and "template_gm" not in str(shown)  # blind
    item = shown[tab.item_id]
    after = tab._submit(token, item, 0.0, None, None, None, "b")
    assert study.rater(token).my_rating(item)["choice"] == "b"
    assert after[tab.item_id] != item and "vgm-done\">1<" in after[tab.progress]


def test_ab_submit_without_a_pick_is_refused(ab_study):
    study, _ = ab_study
    token = study.owner().add_rater("eve").token
    tab = _tab(study)
    item = tab.on_load(token)[tab.item_id]
    out = tab._submit(token, item, 0.0, None, None, None, None)
    assert "pick A, B or tie" in out[tab.alert]
    assert study.rater(token).my_ratings() == []


def test_page_handlers_refuse_a_token_they_were_not_given(study, raters):
    tab = _tab(study)
    item = tab.on_load(raters[0].token)[tab.item_id]
    out = tab._submit("forged", item, 0.0, "5", "5", "5", None)
    assert "access denied" in out[tab.status]["value"] and out[tab.rater_panel]["visible"] is False
    assert study.owner().ratings() == []
    assert "access denied" in tab._refresh(raters[0].token)[tab.admin_summary]  # a rater is not the owner
    assert tab._csv(raters[0].token) is None


def test_owner_dashboard_lists_raters_and_means(study, raters):
    tab = _tab(study)
    view = study.rater(raters[1].token)
    item = view.next_item()
    view.submit(item.id, 4, 4, 4)
    shown = tab.on_load(study.admin_token_value)
    assert shown[tab.admin_panel]["visible"] is True
    assert [r[0] for r in shown[tab.raters_df]] == ["alice", "bob"] and shown[tab.raters_df][1][1] == 1
    assert "**1** score ratings" in shown[tab.admin_summary]
    assert tab._csv(study.admin_token_value)["visible"] is True


def test_skip_moves_on_and_the_item_returns_last(study, raters):
    tab = _tab(study)
    token = raters[0].token
    first = tab.on_load(token)[tab.item_id]
    out = tab._skip(token, first)
    assert out[tab.item_id] != first and "1 skipped" in out[tab.progress]


def test_owner_adds_a_rater_from_the_page(study, raters):
    tab = _tab(study)
    out = tab._add_rater(study.admin_token_value, "frank")
    assert out[tab.new_rater] == "" and "frank" in [r[0] for r in out[tab.raters_df]]
    assert "access denied" in tab._add_rater(raters[0].token, "mallory")[tab.admin_summary]
    assert "mallory" not in [r["name"] for r in study.owner().raters()]
