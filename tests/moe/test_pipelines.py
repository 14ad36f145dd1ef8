"""Each shipped pipeline, on a scripted model, returns the scripted checks; TBS steps see earlier answers."""
import pytest

from pipelines import SkillStats, available_pipelines, load_pipeline
from pipelines.llm import ScriptedModel
from pipelines.pipeline import PipelineSpecError
from pipelines.records import Check, MoeInstance, Turn

NOTT = '{"checks": [{"character": "Nott the Brave", "skill": "Sleight of Hand"}]}'
SCRIPT = {
    "pre_char": ['{"characters": ["Jester", "Nott", "hooded stranger"]}'],
    "char": ['{"characters": ["Nott"]}'],
    "skill": [NOTT],
    "template": [NOTT],
    "gm_utterance": ["Nott, give me a Sleight of Hand check as you reach for that purse."],
}


def scripted():
    return ScriptedModel(by_step={k: list(v) for k, v in SCRIPT.items()})


def test_the_papers_eight_ship():
    assert available_pipelines()[:8] == ["last_speaker", "statistic", "template", "template_zcot", "char_skill", "tbs", "tbs_zcot", "tbs_statistic"]


@pytest.mark.parametrize("name", ["template", "template_zcot", "char_skill", "tbs", "tbs_zcot"])
async def test_model_pipelines_return_scripted_checks(name, tavern):
    result = await load_pipeline(name).run(tavern, scripted())
    assert result.checks == [Check(character="Nott", skill="sleight_of_hand")]
    assert result.error is None and result.parse_ok
    assert result.usage.calls == len(load_pipeline(name).step_names)


async def test_tbs_steps_see_previous_answers_in_one_conversation(tavern):
    model = scripted()
    await load_pipeline("tbs").run(tavern, model)
    pre, char, skill = model.requests
    assert [r["step"] for r in model.requests] == ["pre_char", "char", "skill"]
    # one conversation: every step starts with the same system + table log, then adds to it
    assert char["messages"][:1] == pre["messages"][:1] == skill["messages"][:1]
    assert pre["messages"][1]["content"].split("\n\n")[0] == skill["messages"][1]["content"].split("\n\n")[0]
    assert '"hooded stranger"' in char["messages"][2]["content"]
    assert '"Nott"' in skill["messages"][4]["content"] and "Nott" in skill["messages"][-1]["content"]
    assert "Nott: I slip under the table" in pre["messages"][1]["content"]


async def test_shared_prefix_is_identical_across_pipelines(tavern):
    prefixes = []
    for name in ("template", "tbs", "char_skill"):
        model = scripted()
        await load_pipeline(name).run(tavern, model)
        first = model.requests[0]["messages"]
        prefixes.append((first[0]["content"], first[1]["content"].rsplit("\n\n", 2)[0]))
    assert len(set(prefixes)) == 1


async def test_gm_variant_writes_an_utterance(tavern):
    result = await load_pipeline("tbs_gm").run(tavern, scripted())
    assert result.utterance.startswith("Nott, give me")
    assert result.checks == [Check(character="Nott", skill="sleight_of_hand")]


async def test_tbs_statistic_uses_training_counts(tavern):
    stats = SkillStats([MoeInstance(id="x", ruleset="dnd5e", context=[Turn(speaker="GM", text=".")], answers=[Check(character="Nott", skill="stealth")])])
    result = await load_pipeline("tbs_statistic").run(tavern, scripted(), stats=stats)
    assert result.checks == [Check(character="Nott", skill="stealth")]


async def test_baselines_need_no_model(tavern):
    stats = SkillStats([MoeInstance(id="x", ruleset="dnd5e", context=[Turn(speaker="GM", text=".")],
                                    answers=[Check(character="Caleb", skill="arcana"), Check(character="Caleb", skill="arcana"), Check(character="Nott", skill="stealth")])])
    last = await load_pipeline("last_speaker").run(tavern, None, stats=stats)
    assert last.checks == [Check(character="Nott", skill="stealth")]
    stat = await load_pipeline("statistic").run(tavern, None, stats=stats)
    assert stat.checks == [Check(character="Caleb", skill="arcana")]
    empty = await load_pipeline("last_speaker").run(tavern, None)
    assert empty.checks == [Check(character="Nott", skill="perception")]  # no training data: the pack's default


async def test_unknown_names_and_skills_are_dropped_and_counted(tavern):
    model = ScriptedModel(by_step={"template": ['{"checks": [{"character": "Gandalf", "skill": "stealth"}, {"character": "Caleb", "skill": "hacking"}, {"character": "caleb", "skill": "arcana"}]}']})
    result = await load_pipeline("template").run(tavern, model)
    assert result.checks == [Check(character="Caleb", skill="arcana")]
    assert result.dropped == 2


async def test_prose_answer_is_a_recorded_parse_failure_not_a_crash(tavern):
    model = ScriptedModel(["I think Nott should roll something sneaky.", "Still prose, sorry."])
    result = await load_pipeline("template").run(tavern, model)
    assert result.checks == [] and not result.parse_ok and result.error is None
    assert result.steps[0].raw == "Still prose, sorry."


async def test_model_error_is_recorded(tavern):
    result = await load_pipeline("tbs").run(tavern, ScriptedModel([]))
    assert result.error and "no reply left" in result.error


async def test_bare_list_answers_are_read(tavern):
    model = ScriptedModel(by_step={"char": ['["Nott"]'], "skill": ['[{"name": "Nott", "check": "stealth check"}]']})
    result = await load_pipeline("char_skill").run(tavern, model)
    assert result.checks == [Check(character="Nott", skill="stealth")]


def test_bad_spec_names_the_problem(tmp_path):
    spec = tmp_path / "mine.yaml"
    spec.write_text("name: mine\nsteps:\n  - pre_char\n  - telepathy\n")
    with pytest.raises(PipelineSpecError.__mro__[1], match="unknown step 'telepathy'"):
        load_pipeline(str(spec))
    with pytest.raises(PipelineSpecError, match="unknown pipeline"):
        load_pipeline("nonesuch")


async def test_user_spec_with_arguments(tmp_path, tavern):
    spec = tmp_path / "quick.yaml"
    spec.write_text("name: quick\nsteps:\n  - char: {max_tokens: 20}\n  - skill\n")
    result = await load_pipeline(str(spec)).run(tavern, scripted())
    assert result.checks == [Check(character="Nott", skill="sleight_of_hand")]


async def test_check_list_puts_common_training_checks_first(tavern):
    train = [MoeInstance(id=f"x{k}", ruleset="dnd5e", context=[Turn(speaker="GM", text=".")], answers=[Check(character="Nott", skill="stealth")]) for k in range(3)]
    model = scripted()
    await load_pipeline("template").run(tavern, model, stats=SkillStats(train))
    menu = model.requests[0]["messages"][0]["content"]
    assert menu.index("stealth (Dexterity)") < menu.index("strength")
    # leave-one-out: an instance's own gold check does not move the list
    own = SkillStats([tavern])
    model = scripted()
    await load_pipeline("template").run(tavern, model, stats=own, leave_one_out=True)
    menu = model.requests[0]["messages"][0]["content"]
    assert menu.index("strength") < menu.index("sleight_of_hand (Dexterity)")
