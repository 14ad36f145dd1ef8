"""A whole scripted scene: the GM calls the scripted checks with the right modifiers, rolls
seeded dice within range, narrates into the log, and a resumed game continues identically."""
from __future__ import annotations

import json

import pytest

from gm.agent import GameMaster

# Modifiers from the ready sheets (gm/data/characters/dnd5e): level 3, proficiency +2.
EXPECTED_MODIFIER = {
    "investigation": 5,  # Brisa: INT 13 (+1) + expertise (+4)
    "insight": 5,  # Oskar: WIS 16 (+3) + proficiency (+2)
    "athletics": 5,  # Ilya: STR 16 (+3) + proficiency (+2)
    "stealth": 7,  # Brisa: DEX 16 (+3) + expertise (+4)
    "religion": 2,  # Oskar: INT 10 (+0) + proficiency (+2)
}


def _play(gm, lines):
    return [gm.step(player, text) for player, text, *_ in lines]


def test_six_turn_scene(tmp_path, scene, make_scene_model):
    gm = GameMaster("dnd5e", "drowned_chapel", make_scene_model(), pipeline="tbs", memory="hashing", seed=11, session_path=tmp_path / "s.json")
    replies = _play(gm, scene)

    for reply, (_p, _t, actor, check, words) in zip(replies, scene):
        assert [(c.character, c.skill) for c in reply.checks] == ([(actor, check)] if check else [])
        # the scripted words, then any clue the dice earned that they left out; words that leave a
        # roll's outcome out give way to the planned outcome said plainly (gm.outcome)
        if any("planned outcome plainly" in n for n in reply.notes):
            assert reply.rolls and "left the outcome out" in " ".join(reply.notes)
            continue
        assert reply.narration.startswith(words)
        found = reply.narration[len(words):].strip()
        assert not found or (reply.rolls and reply.rolls[0].success and any("added what was found" in n for n in reply.notes))
        if check is None:
            assert reply.rolls == []
            continue
        (roll,) = reply.rolls
        assert roll.character == actor and roll.check == check
        assert roll.expression == f"1d20+{EXPECTED_MODIFIER[check]}"
        assert 1 + EXPECTED_MODIFIER[check] <= roll.total <= 20 + EXPECTED_MODIFIER[check]
        assert roll.outcome in ("success", "failure", "success (natural 20)", "failure (natural 1)")
        assert roll.success == (roll.total >= roll.target)
        assert reply.difficulty and "DC" in reply.difficulty[0]

    # Secrets set their own DCs; the player's own words nudge a default one.
    assert replies[0].rolls[0].target == 14 and replies[0].rolls[0].secret == "altar_catch"
    assert replies[1].rolls[0].target == 12
    assert replies[4].rolls[0].target == 20 and "quickly" in replies[4].difficulty[0]

    # Everything is in the log, in order, and saved after every turn.
    log = [t.text for t in gm.session.log]
    for (_p, text, _a, _c, _words), reply in zip(scene, replies):
        assert text in log and reply.narration in log
    saved = json.loads((tmp_path / "s.json").read_text())
    assert len(saved["turns"]) == 6 and saved["log"][-1]["text"] == replies[-1].narration


def test_same_seed_same_dice(tmp_path, scene, make_scene_model):
    a = GameMaster("dnd5e", "drowned_chapel", make_scene_model(), pipeline="tbs", memory=False, seed=5)
    b = GameMaster("dnd5e", "drowned_chapel", make_scene_model(), pipeline="tbs", memory=False, seed=5)
    assert [r.model_dump(exclude={"steps", "timing"}) for r in _play(a, scene)] == [r.model_dump(exclude={"steps", "timing"}) for r in _play(b, scene)]


def test_resume_continues_identically(tmp_path, scene, make_scene_model):
    straight = GameMaster("dnd5e", "drowned_chapel", make_scene_model(), pipeline="tbs", memory="hashing", seed=23, session_path=tmp_path / "a.json")
    whole = _play(straight, scene)

    model = make_scene_model()
    first = GameMaster("dnd5e", "drowned_chapel", model, pipeline="tbs", memory="hashing", seed=23, session_path=tmp_path / "b.json")
    part1 = _play(first, scene[:3])
    first.close()
    resumed = GameMaster.resume(tmp_path / "b.json", model, memory="hashing")
    part2 = _play(resumed, scene[3:])

    assert [r.rolls for r in part1 + part2] == [r.rolls for r in whole]
    assert [t.text for t in resumed.session.log] == [t.text for t in straight.session.log]
    assert len(resumed.session.turns) == 6


def test_resume_bad_file(tmp_path):
    from gm.table import SessionError

    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    with pytest.raises(SessionError, match="x.json:1"):
        GameMaster.resume(bad, None)
    with pytest.raises(SessionError, match="not found"):
        GameMaster.resume(tmp_path / "missing.json", None)


def test_narration_prompt_holds_the_verdict_and_no_gm_only_text(make_scene_model):
    model = make_scene_model()
    gm = GameMaster("dnd5e", "drowned_chapel", model, pipeline="tbs", memory=False, seed=1)
    gm.step("Brisa", "I search under the altar for a hidden catch")
    (char,) = [r for r in model.requests if r["step"] == "char"]
    assert "must roll a check to resolve it" in char["messages"][-1]["content"]
    narrate = [r for r in model.requests if r["step"] == "narrate"][0]["messages"]
    assert narrate[-1]["content"].startswith("What happens: Brisa searches under the altar")  # the outcome the dice made, planned
    told = " ".join(m["content"] for m in narrate)
    for hidden in gm.scenario.hidden_texts(set()):  # NPC agendas and secrets, unfound secrets, GM notes
        if hidden not in gm.scenario.public_scene(set(gm.session.revealed)):
            assert hidden not in told


def test_memory_brings_an_early_line_back_into_the_prompt():
    from pipelines.llm import ScriptedModel

    replies = {"pre_char": '{"characters": []}', "char": '{"characters": []}', "skill": '{"checks": []}',
               "narrate": "Time passes slowly while the candles gutter in the cold draught."}
    model = ScriptedModel(responder=lambda step, messages: replies[step])
    gm = GameMaster("dnd5e", "drowned_chapel", model, pipeline="tbs", memory="hashing", seed=1, recent_turns=4)
    gm.step("Brisa", "I tuck the brass compass into the hollow of the third pew")
    for i in range(6):
        gm.step("Ilya", f"I count the floating candles, batch number {i}")
    model.requests.clear()
    gm.step("Brisa", "Where did I put the brass compass?")
    log_prompt = model.requests[0]["messages"][1]["content"]
    assert "(Earlier at this table)" in log_prompt and "hollow of the third pew" in log_prompt


@pytest.mark.parametrize("pack,scenario,actor,line,skill,label", [
    ("coc7e", "lantern_house", "Tomás Reyes", "I look at the floor by the cellar hatch for prints", "spot_hidden", "Hard (32)"),
    ("pf2e", "broken_bridge", "Keth Ashvein", "I examine the gate's supports and ropes", "perception", "DC 17"),
    ("swade", "copper_flats", "Dutch Calloway", "I watch Vane's cards while he deals", "notice", "TN 4 (-2)"),
])
def test_every_pack_plays_a_secret(pack, scenario, actor, line, skill, label):
    import json as _json

    from pipelines.llm import ScriptedModel

    model = ScriptedModel(by_step={
        "pre_char": [_json.dumps({"characters": [actor]})], "char": [_json.dumps({"characters": [actor]})],
        "skill": [_json.dumps({"checks": [{"character": actor, "skill": skill}]})], "narrate": ["The moment stretches."],
    })
    gm = GameMaster(pack, scenario, model, pipeline="tbs", memory=False, seed=3)
    (rec,) = gm.step(actor.split()[0], line).rolls
    assert rec.target_label == label and rec.secret is not None
    assert rec.outcome and rec.success in (True, False)
