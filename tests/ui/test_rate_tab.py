"""The Rate tab's handlers: what a rater and the owner see, without a browser (A/B mode included)."""
import gradio as gr
import pytest

from eval.ratings import build_study
from ui.web._common import AppContext
from ui.web._rate import RateTab

from .conftest import Clock


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
    after = tab._submit(token, item, None, None, None, "b")
    assert study.rater(token).my_rating(item)["choice"] == "b"
    assert after[tab.item_id] != item and "vgm-done\">1<" in after[tab.progress]


def test_ab_submit_without_a_pick_is_refused(ab_study):
    study, _ = ab_study
    token = study.owner().add_rater("eve").token
    tab = _tab(study)
    item = tab.on_load(token)[tab.item_id]
    out = tab._submit(token, item, None, None, None, None)
    assert "pick A, B, tie or both bad" in out[tab.alert]
    assert study.rater(token).my_ratings() == []


def test_page_handlers_refuse_a_token_they_were_not_given(study, raters):
    tab = _tab(study)
    item = tab.on_load(raters[0].token)[tab.item_id]
    out = tab._submit("forged", item, "5", "5", "5", None)
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


@pytest.fixture
def crowd_study(tmp_path, demo_runs):
    from eval.ratings import crowd_settings

    s, admin_token, _ = build_study(demo_runs, tmp_path / "crowd.db", n=2, attention=1, consent="# Consent\n\nOK?",
                                    crowd=crowd_settings("prolific", quota=5, completion_code="C0DE1234"))
    return s, admin_token


def _enroll(study, k):
    from eval.ratings import Participant

    return study.enroll(study.enroll_key(), Participant(f"{k:024x}", "5" * 24, f"{k + 99:024x}"), consent=True)[0].token


def test_the_last_item_cannot_be_skipped_and_the_end_page_has_the_code_and_no_buttons(crowd_study):
    study, _ = crowd_study
    token = _enroll(study, 1)
    tab = _tab(study)
    shown = tab.on_load(token)
    for _ in range(4):
        assert shown[tab.skip_btn]["visible"] is True
        shown = tab._submit(token, shown[tab.item_id], "3", "3", "3", None, "")
    assert shown[tab.skip_btn]["visible"] is False  # the fifth and last item: skipping leads nowhere
    refused = tab._skip(token, shown[tab.item_id])
    assert "last item" in refused[tab.alert] and study.rater(token).progress().skipped == 0
    end = tab._submit(token, shown[tab.item_id], "3", "3", "3", None, "a comment")
    assert end[tab.rater_panel]["visible"] is False and end[tab.end_panel]["visible"] is True  # Submit/Skip go with the panel
    assert 'id="vgm-code">C0DE1234<' in end[tab.end] and f"/complete?token={token}" in end[tab.end]
    assert next(r for r in study.owner().raters() if r["source"] == "enrolled")["completed_at"] is not None
    again = tab.on_load(token)  # coming back later: the same end page
    assert again[tab.end_panel]["visible"] is True and "C0DE1234" in again[tab.end]


def test_no_code_is_shown_before_the_end(crowd_study):
    study, _ = crowd_study
    token = _enroll(study, 2)
    tab = _tab(study)
    shown = tab.on_load(token)
    assert "C0DE1234" not in str(shown) and shown[tab.end_panel]["visible"] is False


def test_an_invited_rater_is_sent_to_the_consent_form_first(crowd_study):
    study, _ = crowd_study
    token = study.owner().add_rater("lab").token
    tab = _tab(study)
    shown = tab._denied("") | tab.on_load(token)
    assert f"/consent?token={token}" in shown[tab.status]["value"] and shown[tab.rater_panel]["visible"] is False
    assert shown[tab.item_id] is None and shown[tab.context] == ""


def test_owner_dashboard_shows_enrollment_attention_and_can_leave_failures_out(crowd_study):
    study, admin_token = crowd_study
    tab = _tab(study)
    study.clock = clock = Clock()
    for k, attentive in ((1, True), (2, False)):
        token = _enroll(study, k)
        view = study.rater(token)
        while (item := view.next_item()) is not None:
            wrong_line = "Brother Osk" in item.utterance or "Lady Vantree" in item.utterance
            clock.advance(8.0)  # the server times each item from when it served it
            view.submit(item.id, *((3, 1, 1) if wrong_line and attentive else (4, 4, 4)))
    shown = tab.on_load(admin_token)
    summary = shown[tab.admin_summary]
    assert "Open enrollment (prolific): **2** of 5 places taken, **2** finished all items, 0 took the completion code" in summary
    assert "1 rater(s) failed one: P0002" in summary
    rows = {r[0]: r for r in shown[tab.raters_df]}
    assert rows["P0001"][4] == "1/1" and rows["P0002"][4] == "0/1" and "failed attention" in rows["P0002"][6]
    assert rows["P0001"][5] == "8.0" and rows["P0001"][7] == f"{1:024x}"
    left_out = tab._refresh(admin_token, True)
    assert "left out of the statistics: P0002" in left_out[tab.admin_summary]
    assert "left out" in {r[0]: r for r in left_out[tab.raters_df]}["P0002"][6]
