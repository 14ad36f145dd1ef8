"""Players say "attack" in many ways; in every pack's shipped fight each of them is an attack on the
foe the line names, with the weapon it names when the character carries one, and the rules resolve it."""
import pytest

from gm.combat import CombatError, CombatEvent, start_encounter
from gm.fight import read_action, starts_fight, which_target_question
from gm.table import load_scenario

from .conftest import ENCOUNTER, put_first, sheets

# per pack: who acts, the foe the line names, a foe attacked before it, the kind both share, and
# a melee and a ranged weapon word the actor's sheet carries
FIGHTS = {
    "dnd5e": dict(me="Ilya", foe="Goblin 2", first="Goblin 1", kind="goblin", melee="longsword", ranged="javelin"),
    "pf2e": dict(me="Keth", foe="Toll Club Goblin 2", first="Toll Club Goblin 1", kind="goblin", melee="shortsword", ranged="longbow"),
    "coc7e": dict(me="Eddie", foe="Lodge Cultist", first="Hollow Hound", kind="cultist", melee="fists", ranged="revolver"),
    "swade": dict(me="Dutch", foe="Claim Jumper 2", first="Claim Jumper 1", kind="claim jumper", melee="bowie knife", ranged="peacemaker"),
}

# (the line, whom it names: "foe", "first" or "kind" (any foe of that kind), the weapon word it names)
PHRASINGS = [
    ("I charge {foe}!", "foe", None),
    ("I hack at {foe} with my {melee}", "foe", "{melee}"),
    ("I shoot {foe} with my {ranged}", "foe", "{ranged}"),
    ("I throw a javelin at {first}", "first", "javelin"),
    ("I swing at {foe}", "foe", None),
    ("I go for {foe}'s throat", "foe", None),
    ("I stab {foe} in the gut", "foe", None),
    ("I slash at the {kind}", "kind", None),
    ("I smash {foe} with my mace", "foe", "mace"),
    ("I punch the {kind} in the face", "kind", None),
    ("I fire at {foe}", "foe", None),
    ("I loose an arrow at {foe}", "foe", None),
    ("I cut down {foe} before it can reach the wagon", "foe", None),
    ("I strike {foe} with my {melee}", "foe", "{melee}"),
    ("I bash the {kind} with my shield", "kind", None),
    ("I lunge at {foe}, {melee} first", "foe", "{melee}"),
    ("I run up to the {kind} and hack at it with my {melee}", "kind", "{melee}"),
    ("I charge the other {kind} and smash it with my mace", "foe", "mace"),
    ("{me} steps in and takes a swing at {foe}", "foe", None),
    ("I open fire on {foe} with my {ranged}", "foe", "{ranged}"),
    ("I aim my {ranged} at {foe} and let fly", "foe", "{ranged}"),
    ("Kicking over the table, I tackle {foe}", "foe", None),
]


def fight_for(pack: str):
    """The pack's shipped fight, the actor's turn now, and the actor's last attack at ``first``."""
    spec = FIGHTS[pack]
    fight = start_encounter(ENCOUNTER[pack], sheets(pack), seed=1)
    me = put_first(fight, spec["me"])
    fight.log.append(CombatEvent(round=fight.round, actor=me.name, kind="attack", text="", target=spec["first"]))
    return fight, me


@pytest.mark.parametrize("line,named,weapon", PHRASINGS, ids=[p[0] for p in PHRASINGS])
@pytest.mark.parametrize("pack", list(FIGHTS))
def test_every_attack_phrasing_hits_the_named_foe(pack, line, named, weapon):
    spec = FIGHTS[pack]
    fight, me = fight_for(pack)
    action = read_action(fight, me.name, line.format(**spec))
    assert action is not None and action.kind == "attack"
    if named == "kind":
        assert spec["kind"] in action.target.lower()
    else:
        assert action.target == spec[named]
    word = weapon.format(**spec) if weapon else None
    carried = next((a.name for a in me.attacks if word and word in a.name.lower()), None)
    assert action.attack == carried


@pytest.mark.parametrize("pack", list(FIGHTS))
def test_the_rules_resolve_the_attack_at_the_named_foe(pack):
    spec = FIGHTS[pack]
    fight, me = fight_for(pack)
    action = read_action(fight, me.name, "I hack at {foe} with my {melee}".format(**spec))
    events = fight.act(me.name, action.attack, target=action.target)
    attack = next(e for e in events if e.kind == "attack")
    assert attack.target == spec["foe"] and action.attack in attack.text


def test_the_weapon_named_is_the_one_swung():
    fight = start_encounter("ambush", sheets("dnd5e"), seed=1)
    me = put_first(fight, "Oskar")
    action = read_action(fight, me.name, "I charge the other goblin and smash it with my mace")
    assert action.attack == "Mace" and action.target.startswith("Goblin")


@pytest.mark.parametrize("pack", list(FIGHTS))
def test_an_attack_on_no_one_here_asks_which_one_and_changes_nothing(pack):
    fight, me = fight_for(pack)
    before = fight.to_json()
    with pytest.raises(CombatError) as caught:
        read_action(fight, me.name, "I stab the necromancer")
    said = str(caught.value)
    assert "necromancer" in said and "which one" in said and said.endswith("?") and "\n" not in said
    assert all(c.name in said for c in fight.standing("foes"))
    assert fight.to_json() == before


@pytest.mark.parametrize("pack", list(FIGHTS))
def test_attack_wording_in_a_fight_is_never_a_skill_or_a_pass(pack):
    fight, me = fight_for(pack)
    for line in ["I attack!", "I hit it again", "I lunge at them", "I strike at the nearest enemy"]:
        action = read_action(fight, me.name, line)
        assert action is not None and action.kind == "attack", line
    assert read_action(fight, me.name, "I hit it again").target == FIGHTS[pack]["first"]  # "it": the last one attacked


def test_a_dodge_or_talk_is_still_read_as_before():
    fight, me = fight_for("dnd5e")
    assert read_action(fight, me.name, "I take the Dodge action").kind == "dodge"
    grab = read_action(fight, me.name, "I grapple Goblin 2")
    assert (grab.kind, grab.target) == ("grapple", "Goblin 2")
    assert read_action(fight, me.name, "I ask Brisa whether she can see the archer") is None
    assert read_action(fight, me.name, "I fire a crossbow bolt at Goblin 2").kind == "attack"  # "bolt" is not fleeing


def test_the_which_one_question_lists_who_is_standing():
    fight, me = fight_for("swade")
    from gm.intent import read_intent

    intent = read_intent("I shoot the sheriff", foes=[c.name for c in fight.standing("foes")], in_fight=True)
    assert intent.kind == "attack" and intent.target is None and intent.unknown_target == "sheriff"
    assert which_target_question(fight, intent) == ('"sheriff" is not one of the foes standing '
                                                    "(Black Ned Harlan, Claim Jumper 1, Claim Jumper 2); which one do you attack?")


@pytest.mark.parametrize("line,starts", [("I hack at the cultist with my tyre iron", True), ("I throw a rock at the hound", True),
                                         ("I punch him", True), ("I hit the road before dark", False),
                                         ("I strike a match and look around", False), ("I ask Ruth why the hound howls", False)])
def test_an_attack_wording_starts_the_fight_a_scene_names(line, starts):
    assert starts_fight(load_scenario("lantern_house"), line) is starts
