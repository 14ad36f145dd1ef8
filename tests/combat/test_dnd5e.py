"""D&D 5e combat: initiative, attacks against AC, crits, damage types, saves, conditions, death saves, rests."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.combat import Action, Attack, CombatError, Combatant, long_rest, short_rest, start_combat
from gm.combat import d20 as rules
from gm.combat._common import double_dice

from .conftest import Faces, duel, put_first, sheets

ILYA = ["Ilya"]  # Longsword +5 (1d8+3), AC 16, 31 HP, STR save +5


def test_initiative_is_d20_plus_dex_and_sets_the_order():
    fight = duel("dnd5e", "goblin", seed=4, party=ILYA)
    rolls = [e for e in fight.log if e.kind == "initiative"]
    assert len(rolls) == 2 and all(e.rolls and "1d20" in e.breakdown for e in rolls)
    inits = [fight.combatants[n].initiative for n in fight.order]
    assert inits == sorted(inits, reverse=True)
    assert fight.log[-1].kind == "turn" and fight.current.name == fight.order[0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 25), st.integers(-1, 4)), min_size=2, max_size=8), st.randoms(use_true_random=False))
def test_initiative_order_is_stable_and_ties_break_the_same_way(entries, shuffler):
    people = [Combatant(name=f"C{i}", side="party" if i % 2 else "foes", system="d20", initiative=init, init_mod=mod)
              for i, (init, mod) in enumerate(entries)]
    once = [c.name for c in sorted(people, key=rules.sort_key)]
    shuffled = list(people)
    shuffler.shuffle(shuffled)
    assert [c.name for c in sorted(shuffled, key=rules.sort_key)] == once
    for a, b in zip(once, once[1:]):
        ca, cb = next(c for c in people if c.name == a), next(c for c in people if c.name == b)
        assert (ca.initiative, ca.init_mod) >= (cb.initiative, cb.init_mod)


def test_same_seed_same_fight_start():
    a = start_combat("dnd5e", sheets("dnd5e"), ["goblin", "goblin"], random.Random(9))
    b = start_combat("dnd5e", sheets("dnd5e"), ["goblin", "goblin"], random.Random(9))
    assert a.order == b.order and [e.line() for e in a.log] == [e.line() for e in b.log]


def test_attack_hits_at_ac_and_natural_one_misses():
    fight = duel("dnd5e", "ogre", party=ILYA)
    fight.get("Ogre").ac = 15
    ilya = put_first(fight, "Ilya")  # Longsword +5
    hit = fight.act(ilya.name, "longsword", "Ogre", Faces(10, 4))  # 10 + 5 = 15 meets AC 15
    assert hit[0].hit is True and "15 vs AC 15, hit" in hit[0].text and "1d20 (10) + 5 = 15" in hit[0].breakdown
    assert hit[1].amount == 7 and fight.get("Ogre").hp == 59 - 7
    put_first(fight, "Ilya")
    miss = fight.act(ilya.name, "longsword", "Ogre", Faces(1))
    assert miss[0].hit is False and "natural 1" in miss[0].text


def test_a_natural_twenty_doubles_every_damage_die():
    fight = duel("dnd5e", "ogre", party=ILYA)
    put_first(fight, "Ilya")
    events = fight.act("Ilya", "longsword", "Ogre", Faces(20, 3, 5))
    assert "critical hit" in events[0].text
    assert events[1].breakdown.startswith("2d8 (3, 5) + 3") and events[1].amount == 11


@given(st.integers(1, 6), st.sampled_from([4, 6, 8, 10, 12]), st.integers(-3, 6))
def test_double_dice_doubles_the_dice_not_the_modifier(n, size, mod):
    expr = f"{n}d{size}{mod:+d}"
    assert double_dice(expr) == f"{2 * n}d{size}{mod:+d}"


def test_advantage_and_disadvantage_from_conditions():
    fight = duel("dnd5e", "goblin", party=ILYA)
    put_first(fight, "Ilya")
    fight.get("Goblin").add("prone")
    adv = fight.act("Ilya", "longsword", "Goblin", Faces(3, 18, 2))
    assert adv[0].breakdown.startswith("2d20kh1") and "advantage: Goblin is prone" in adv[0].text
    fight2 = duel("dnd5e", "goblin", distance=30, party=ILYA)
    put_first(fight2, "Goblin")
    fight2.get("Ilya").add("dodging", rounds=1, tick="start")
    dis = fight2.act("Goblin", "shortbow", "Ilya", Faces(18, 3))
    assert dis[0].breakdown.startswith("2d20kl1") and "Ilya Thorncastle is dodging" in dis[0].text
    assert dis[0].hit is False


@pytest.mark.parametrize("kind,amount,expected", [("slashing", 9, 9), ("bludgeoning", 5, 10), ("poison", 12, 0), ("piercing", 7, 7)])
def test_damage_types_against_the_skeleton(kind, amount, expected):
    fight = duel("dnd5e", "skeleton", party=ILYA)
    skel = fight.get("Skeleton")
    skel.max_hp = skel.hp = 40
    events = fight.damage("Skeleton", amount, damage_type=kind)
    assert events[0].amount == expected and skel.hp == 40 - expected


def test_resistance_halves_rounding_down_and_temp_hp_goes_first():
    fight = duel("dnd5e", "goblin", party=ILYA)
    ilya = fight.get("Ilya")
    ilya.resistances = ["fire"]
    ilya.temp_hp = 3
    fight.damage("Ilya", 9, damage_type="fire")  # halved to 4, 3 absorbed by temporary HP
    assert ilya.temp_hp == 0 and ilya.hp == ilya.max_hp - 1


def test_saving_throw_against_a_dc():
    fight = duel("dnd5e", "goblin", party=ILYA)
    ok = fight.save("Ilya", "Strength save", 13, Faces(8))  # +5 (STR +3, proficient +2)
    assert ok[0].hit is True and "13 vs DC 13, success" in ok[0].text
    no = fight.save("Ilya", "dexterity_save", 13, Faces(8))
    assert no[0].hit is False
    fight.get("Ilya").add("paralyzed")
    auto = fight.save("Ilya", "dex save", 5)
    assert auto[0].hit is False and "automatically" in auto[0].text


def test_wolf_bite_knocks_prone_on_a_failed_save():
    fight = duel("dnd5e", "wolf", party=ILYA)
    put_first(fight, "Wolf")
    events = fight.act("Wolf", "bite", "Ilya", Faces(19, 2, 2, 1))  # hit, 2d4+2, STR save 1+5 = 6 < 11
    assert any(e.kind == "save" and e.hit is False for e in events)
    assert fight.get("Ilya").has("prone")


def test_conditions_wear_off_after_their_rounds():
    fight = duel("dnd5e", "goblin", party=ILYA)
    first = fight.current.name
    other = next(n for n in fight.order if n != first)
    fight.add_condition(other, "poisoned", rounds=1)
    fight.next_turn()  # the other one's turn starts ...
    assert fight.get(other).has("poisoned")
    fight.next_turn()  # ... and ends
    assert not fight.get(other).has("poisoned")
    assert any("no longer poisoned" in e.text for e in fight.log)


def _dying(seed=1):
    fight = duel("dnd5e", "ogre", seed=seed, party=ILYA)
    ilya = fight.get("Ilya")
    fight.damage("Ilya", ilya.hp + 3)
    assert ilya.status == "down" and ilya.hp == 0 and ilya.has("unconscious")
    return fight, ilya


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 20), min_size=1, max_size=8))
def test_death_saves_follow_the_rules(rolls):
    fight, ilya = _dying()
    successes = failures = 0
    expected = "down"
    for face in rolls:
        if expected != "down" or ilya.stable:
            break
        rules.death_save(fight, ilya, Faces(face))
        if face == 20:
            expected = "up"
            break
        if face == 1:
            failures += 2
        elif face >= 10:
            successes += 1
        else:
            failures += 1
        if failures >= 3:
            expected = "dead"
        elif successes >= 3:
            assert ilya.stable
    assert ilya.status == expected
    if expected == "up":
        assert ilya.hp == 1 and ilya.death_failures == 0
    assert ilya.death_failures <= 3 and ilya.hp >= 0


def test_damage_while_dying_is_a_failed_death_save_and_a_crit_two():
    fight, ilya = _dying()
    fight.damage("Ilya", 2)
    assert ilya.death_failures == 1
    rules.hurt(fight, ilya, 2, crit=True)
    assert ilya.status == "dead"


def test_massive_damage_kills_outright():
    fight = duel("dnd5e", "ogre", party=ILYA)
    ilya = fight.get("Ilya")
    fight.damage("Ilya", ilya.hp + ilya.max_hp)
    assert ilya.status == "dead"


def test_monsters_die_at_zero():
    fight = duel("dnd5e", "goblin", party=ILYA)
    fight.damage("Goblin", 30)
    assert fight.get("Goblin").status == "dead" and fight.get("Goblin").hp == 0
    assert fight.over and fight.outcome == "party" and fight.log[-1].kind == "end"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.booleans()), min_size=1, max_size=12), st.booleans())
def test_hp_never_goes_below_zero(hits, player):
    fight = duel("dnd5e", "ogre", party=ILYA)
    target = fight.get("Ilya" if player else "Ogre")
    for amount, crit in hits:
        if target.status == "dead":
            break
        rules.hurt(fight, target, amount, crit=crit)
        assert 0 <= target.hp <= target.max_hp
        assert target.death_failures <= 3
        if target.hp == 0 and amount:
            assert target.status in (("down", "dead") if player else ("dead",))


def test_heal_brings_the_dying_back():
    fight, ilya = _dying()
    fight.heal("Ilya", 5)
    assert ilya.status == "up" and ilya.hp == 5 and not ilya.has("unconscious")


def test_rests():
    fight = duel("dnd5e", "goblin", party=ILYA)
    ilya = fight.get("Ilya")
    ilya.hp = 10
    events = short_rest(ilya, 2, Faces(6, 7))  # d10 + CON +2
    assert ilya.hp == 10 + 8 + 9 and ilya.hit_dice == 1 and "1d10 (6) + 2" in events[0].breakdown
    ilya.hp = 1
    long_rest(ilya)
    assert ilya.hp == ilya.max_hp and ilya.hit_dice == 2  # half the level (3 // 2 = 1) back
    ilya.hp = 0
    with pytest.raises(CombatError, match="at least 1 HP"):
        long_rest(ilya)


def test_melee_moves_within_speed_and_refuses_beyond():
    fight = duel("dnd5e", "goblin", distance=30, party=ILYA)
    put_first(fight, "Ilya")
    events = fight.act("Ilya", "longsword", "Goblin", Faces(15, 3))
    assert events[0].kind == "move" and "moves 25 ft" in events[0].text and events[1].kind == "attack"
    fight2 = duel("dnd5e", "goblin", distance=60, party=ILYA)
    put_first(fight2, "Ilya")
    with pytest.raises(CombatError, match="60 ft") as err:
        fight2.act("Ilya", "longsword", "Goblin")
    assert "\n" not in str(err.value)
    assert fight2.get("Ilya").position == 0 and fight2.get("Ilya").actions_left == 1  # unchanged


def test_illegal_actions_are_one_line_errors():
    fight = duel("dnd5e", "goblin", party=["Ilya", "Brisa"])
    waiting = next(n for n in fight.order if n != fight.current.name)
    for call, words in [
        (lambda: fight.act(waiting, "attack", "Goblin"), "turn"),
        (lambda: fight.act(fight.current.name, "attack", "Bugbear"), "no one called"),
        (lambda: fight.act(fight.current.name, Action(kind="teleport")), "not an action"),
        (lambda: fight.act(fight.current.name, "teleport"), "has no attack 'teleport'"),
    ]:
        with pytest.raises(CombatError, match=words) as err:
            call()
        assert "\n" not in str(err.value)
    put_first(fight, "Ilya")
    fight.act("Ilya", "longsword", "Goblin", Faces(19, 8))  # 1d8+3 = 11 kills the goblin
    assert fight.over
    with pytest.raises(CombatError, match="over"):
        fight.act("Ilya", "longsword", "Goblin")


def test_attacking_a_downed_target_is_refused():
    fight = start_combat("dnd5e", [s for s in sheets("dnd5e") if s.name.startswith("Ilya")], [{"monster": "goblin", "count": 2, "distance": 5}], random.Random(2))
    fight.damage("Goblin 1", 20)
    fight.get("Goblin 2").hp = fight.get("Goblin 2").max_hp = 50
    put_first(fight, "Ilya")
    with pytest.raises(CombatError, match="Goblin 1 is dead"):
        fight.act("Ilya", "longsword", "Goblin 1")
    fight.act("Ilya", "longsword", "Goblin 2")
    with pytest.raises(CombatError, match="no action left"):
        fight.act("Ilya", "longsword", "Goblin 2")


def test_ambush_surprises_whoever_misses_the_goblins():
    from gm.combat import start_encounter

    fight = start_encounter("ambush", sheets("dnd5e"), Faces(10, 10, 10, 18, 18))  # initiative x5, then Stealth 24 x2
    surprised = [e for e in fight.log if e.kind == "surprise"]
    assert len(surprised) == 3 and all("surprised" in e.text for e in surprised)
    assert not fight.current.is_player  # every character lost the first turn


def test_grapple_is_an_opposed_athletics_roll():
    fight = duel("dnd5e", "goblin", party=ILYA)
    put_first(fight, "Ilya")
    events = fight.act("Ilya", "grapple", "Goblin", Faces(15, 5))  # Athletics 20 vs the goblin's Acrobatics (+2) 7
    assert events[0].hit and fight.get("Goblin").has("grappled") and len(events[0].rolls) == 2
    assert fight.get("Goblin").condition("grappled").source == "Ilya Thorncastle"


def test_attack_without_a_weapon_list_uses_a_plain_weapon():
    from gm.combat import combatant_from_sheet
    from gm.combat._data import Gear

    c = combatant_from_sheet(sheets("dnd5e")[1].model_copy(update={"items": {}}), "dnd5e", Gear())  # nothing carried
    assert c.attacks and c.attacks[0].name == "Weapon"
    with_attacks = combatant_from_sheet({"name": "Vex", "abilities": {"STR": 12, "DEX": 14, "CON": 10, "INT": 10, "WIS": 10, "CHA": 10},
                                         "attacks": [{"name": "Dagger", "bonus": 4, "damage": "1d4+2"}]}, "dnd5e")
    assert with_attacks.attacks == [Attack(name="Dagger", bonus=4, damage="1d4+2")]


def test_moving_needs_no_action_and_hiding_gives_advantage_once():
    fight = duel("dnd5e", "ogre", party=["Brisa"], distance=30)
    fight.get("Ogre").passive_perception = 8
    brisa = put_first(fight, "Brisa")
    fight.act("Brisa", "hide", rng=Faces(10))  # Stealth 17 beats passive 8
    assert brisa.has("hidden") and brisa.actions_left == 0
    fight.act("Brisa", "move", distance=10)
    assert brisa.position == -10 and brisa.moved == 10
    put_first(fight, "Brisa")
    shot = fight.act("Brisa", "shortbow", "Ogre", Faces(4, 15, 2))
    assert "advantage: unseen" in shot[0].text and not brisa.has("hidden")


def test_a_refused_action_changes_nothing_and_keeps_the_same_objects():
    fight = duel("dnd5e", "goblin", party=ILYA, distance=60)
    ilya = put_first(fight, "Ilya")
    before = fight.to_dict()
    with pytest.raises(CombatError):
        fight.act("Ilya", "longsword", "Goblin")
    assert fight.to_dict() == before and fight.get("Ilya") is ilya


def test_multiattack_makes_every_attack_of_the_action():
    fight = duel("dnd5e", "ogre", party=ILYA)
    ogre = fight.get("Ogre")
    ogre.attacks_per_action = 2
    fight.get("Ilya").hp = fight.get("Ilya").max_hp = 200
    put_first(fight, "Ogre")
    events = fight.npc_turn()
    assert sum(e.kind == "attack" and e.actor == "Ogre" for e in events) == 2
    put_first(fight, "Ogre")
    fight.act("Ogre", "greatclub", "Ilya")
    with pytest.raises(CombatError, match="no action left"):
        fight.act("Ogre", "dodge")
