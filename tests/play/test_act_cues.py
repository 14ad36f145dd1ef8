"""A line that names its kind of act outright rolls that kind's check, whatever nouns it shares
with other checks' example lines; words said in it name nothing."""
from __future__ import annotations

import asyncio

import pytest

import rulesets
from pipelines.act_cues import cued_checks, names_effort
from pipelines.speech import narrated
from pipelines.decide import DEFAULT_RULES
from tests.play.test_gm_turn import ROLLS, STAYS, adjudicate, bag_of_words, instance
from pipelines.check_index import CheckIndex

SWADE, DND, COC, PF2 = (rulesets.load(n) for n in ("swade", "dnd5e", "coc7e", "pf2e"))


@pytest.mark.parametrize("pack, line, checks", [
    (COC, "I climb onto the roof of the boathouse.", ["climb"]),                       # a roof is a climb; a table is not
    (SWADE, "Shoot the rope.", ["shooting"]),
    (SWADE, "Dutch throws his weight on the sweep and tries to steer between the rocks.", ["boating"]),
    (SWADE, "Hosea stands his ground in front of the tent.", ["spirit", "fear"]),
    (SWADE, "I bet the deed on one more hand of poker", ["gambling"]),
    (DND, "Oskar pulls his cloak over his mouth and pushes through the spores to the lever.", ["constitution_save", "constitution"]),
    (DND, "Ilya drains the whole horn in one go", ["constitution_save", "constitution"]),
    (PF2, "Keth grits his teeth and fights the pull of the song.", ["will"]),
    (PF2, "Marisol swims out to the boy against the current.", ["athletics"]),
    (COC, "I kick off my shoes and dive in after it.", ["swim"]),
    (SWADE, "Deal me in, gentlemen.", ["gambling"]),
    (DND, "Oskar thinks back to his years in the temple archive.", ["history", "nature", "religion", "arcana"]),
    (PF2, "I know these hills. Where would a shepherd shelter from the storm?", ["society", "nature", "religion", "arcana", "occultism"]),
    (COC, "I go over the desk drawer by drawer for any sign of the letter.", ["spot_hidden"]),
    (PF2, "I've fished these waters since I was a boy. Where do the eels hide?", ["society", "nature", "religion", "arcana", "occultism"]),
    (DND, "Brisa edges out along the rafter above the hall.", ["acrobatics"]),
    (SWADE, "Dutch grips the rail and tries with all he has not to bolt.", ["spirit", "fear"]),
    (PF2, "I slip through the willows toward their fire, keeping low and out of the light.", ["stealth"]),
    (COC, "Tomás creeps along the hedge without a sound.", ["stealth"]),
    (DND, "I follow the blood spatter and the churned snow into the trees after it.", ["survival"]),
    (COC, "Eddie tracks the dog across the dunes.", ["track"]),
    # finding prints: Spot Hidden in Call of Cthulhu (its pack says so), the tracking skill where a pack says nothing
    (COC, "Eddie crouches and looks for footprints in the mud.", ["spot_hidden"]),
    (DND, "I search the riverbank for hoofprints.", ["survival"]),
    (SWADE, '"Hyah!" Dutch spurs his horse along the rim to cut the wagon off.', ["riding"]),
    (COC, "Eddie watches him talk, trying to figure out whether the story holds water.", ["psychology"]),
    (DND, "Oskar sizes him up across the table.", ["insight"]),
    (PF2, "I study the goblin chief's face to see if he is afraid.", ["perception"]),
    (PF2, "Keth walks the bank slowly, searching the reeds for a boat pulled in out of sight.", ["perception"]),
    (DND, "I look closely at the stranger's hands.", ["perception"]),
    (SWADE, "I shade my eyes and scan the canyon rim for a glint.", ["notice"]),
    (DND, "I walk the rows before the frost goes, looking for where the goat and whoever led it went.", ["survival"]),
    (PF2, "Keth moves from crate to crate, trying to reach the warehouse door.", ["stealth"]),
    (PF2, "Marisol starts up the pier, finding holds in the mossy stone.", ["athletics"]),
    (DND, "Brisa slips the key ring off his belt without him noticing.", ["sleight_of_hand"]),  # the hand's work over the sneaking
    (SWADE, '"I\'ll see that, Mr. Tate. Deal me in."', ["gambling"]),                           # a bet said aloud
    (COC, "Eddie lunges in and tries to twist the revolver out of the deacon's hand.", ["fighting_brawl"]),
    (DND, "I tackle him before he reaches the door.", ["athletics"]),
    (PF2, "Pip carefully disarms the spring needle before lifting the lid.", []),  # a trap, not a foe
    (SWADE, "Dutch gets down and tries to follow the thief's trail across the rock.", ["survival"]),
    (DND, "Oskar listens to the whole tune, steeling his mind against it.", ["wisdom_save"]),
    (PF2, "I clench my holy symbol and refuse to touch the thing. I won't listen.", ["will"]),
    (SWADE, "Hosea plants his feet and does not run as the dead reach for him.", ["spirit", "fear"]),
    (SWADE, '"Son, them pistols are prettier than you are, and I\'d wager they\'ve seen less use."', []),  # a guess, not a stake
    (SWADE, "I bet he's bluffing.", []),
    (SWADE, "I bet you ten dollars he misses.", ["gambling"]),
    (DND, "Ilya grabs the mule's halter, keeps low and talks to it in a steady rumble.", []),  # low on a pitching deck, not sneaking
    (DND, "I keep low and move along the hedge toward the camp.", ["stealth"]),
    (PF2, "Keth walks out along the trunk, arms out for balance, heading for the far bank.", ["acrobatics"]),
    (SWADE, "I'll scout the washes for any sign of water before the horses give out.", ["notice", "survival"]),
])
def test_a_line_naming_its_kind_of_act_names_the_games_checks_for_it(pack, line, checks):
    assert cued_checks(line, pack) == checks


@pytest.mark.parametrize("pack, line", [
    (SWADE, "I shoot him a look and keep walking."),
    (COC, '"The Globe sent me to shoot Mr. Ashcombe for the society page," I tell the butler.'),
    (PF2, "Marisol rests her blade on his shoulder and tells him he will talk or he will swim."),
    (COC, "I freeze at the foot of the stairs, hold my breath and listen hard."),
    (DND, "I shoot the rope with my bow."),  # D&D's attacks are not checks: no check names shooting
    (SWADE, "I ask the barkeep what there is to eat."),
    (DND, "Ilya takes the mule's bridle and walks it up to the ledge."),  # leading an animal, not keeping one's feet
    (SWADE, "Lottie dives into the engine house with her toolbag."),   # a dive into a room is no swim
    (COC, "I dive for cover behind the counter."),
    (DND, "Brisa vaults the table and dives down behind it."),
    (PF2, "While he shouts on his barrel I sneak up and lift the hat off his head."),  # the lifting is the act
    (DND, "I follow the road to the village."),                                      # a road is no quarry's trail
    (SWADE, "Dutch rides into town at a walk."),
    (COC, '"Is the story true?" I ask him.'),                                         # asking, not judging
    (PF2, "Pip squints at the sigil. Does he know what kind of magic this is?"),       # a squint opens a question of lore
    (SWADE, "Hosea climbs onto a water trough and speaks to the crowd."),              # the climb is the way to the act
    (SWADE, "Lottie climbs up to patch the valve."),
    (DND, "I climb up the stairs."),                                                   # a stair is a walk
    (SWADE, "I climb up on a table, slam my Bible down and start preaching hellfire."),  # onto furniture is a step up
    (DND, "I climb up onto the altar and put my palm flat against the cracked bell."),
    (DND, "Ilya lifts the twine loop off the post and swings the gate open."),         # no one's pocket
])
def test_words_said_and_words_used_otherwise_name_no_check(pack, line):
    assert cued_checks(line, pack) == []


@pytest.mark.parametrize("pack, line, scene, checks", [
    (DND, "We press on, one foot after the other.", "The salt flats shimmer at noon; the waterskins ran dry at dawn.",
     ["constitution_save", "constitution"]),
    (SWADE, "Hosea keeps riding, hat pulled low against the sleet.", "A mountain road.", ["vigor", "soak"]),
    (PF2, "I keep walking toward the market.", "A bright morning in a busy town square.", []),  # an easy stroll
    (COC, "We push on to the next room.", "A dry, quiet cellar.", []),
])
def test_a_march_is_an_endurance_roll_only_where_the_going_is_hard(pack, line, scene, checks):
    assert cued_checks(line, pack, scene) == checks


@pytest.mark.parametrize("line, effort", [
    ("Lottie spends the whole afternoon going through the court records.", True),
    ("I'll spend the night copying out the ritual page by page.", True),
    ("I spend all my coin on rope.", False),
    ("'I'll spend the day resting,' she says.", False),  # said, not done
])
def test_a_long_task_is_named_as_effort(line, effort):
    assert names_effort(line) is effort


def test_quoted_and_reported_speech_is_not_the_act():
    assert narrated('"Hold on!" Dutch leans on the sweep.').strip() == "Dutch leans on the sweep."
    assert "swim" not in narrated("She tells him he will talk or he will swim.")


INDEX = CheckIndex([("athletics", "I climb the rope"), ("athletics", "I swing on the rope"),
                    ("shooting", "I fire my rifle at the bandit"), ("no_roll", "I ask about the rope"),
                    ("no_roll", "I ask them what they were shooting at")], embed=bag_of_words)


UNCUED = [r for r in DEFAULT_RULES if r != "named_act"]


def run(line: str, decision_model=ROLLS, **args):
    return asyncio.run(adjudicate(**args).run(instance(line), None, pack=SWADE, check_index=INDEX, decision_model=decision_model))


def test_the_cue_turns_the_nearest_lines_check_into_the_named_kind():
    cued = run("Shoot the rope")
    assert [c.skill for c in cued.checks] == ["shooting"]
    assert [(f["rule"], f["from"], f["to"]) for f in cued.steps[0].parsed["fired"]] == [("named_act", "athletics", "shooting")]
    assert [c.skill for c in run("Shoot the rope", rules=UNCUED).checks] == ["athletics"]
    assert run("Shoot the rope", STAYS).decision == "no_roll"  # it says which check, not that there is one


@pytest.mark.parametrize("line", ["I ask them what they were shooting at", "Shoot the rope", "I climb the rope"])
@pytest.mark.parametrize("model", [ROLLS, STAYS], ids=["rolls", "stays"])
def test_a_cue_never_changes_whether_to_roll(line, model):
    assert run(line, model).decision == run(line, model, rules=UNCUED).decision


def test_the_examples_alone_never_refuse_an_act():
    """The nearest example line may be an impossible one (here with under a quarter of the vote):
    that alone refuses nothing, the leading check is rolled (only a rule with a reason refuses)."""
    lines = {"impossible": "with force", "strength": "off the big heap", "sanity": "and stare at it",
             "spot_hidden": "to look under it", "listen": "and hear it", "track": "and follow it",
             "psychology": "and watch the old farmer"}
    index = CheckIndex([(label, f"I yank the tarp back {tail}") for label, tail in lines.items()] + [("no_roll", "what time is it")],
                       embed=bag_of_words)
    line, coc = "I yank the tarp back", rulesets.load("coc7e")
    assert index.vote(line, k=8, temperature=0.1).top == "impossible"  # the nearest, with under a quarter of the vote
    state = asyncio.run(adjudicate(k=8).run(instance(line), None, pack=coc, check_index=index, decision_model=ROLLS))
    assert state.decision == "roll" and [c.skill for c in state.checks] == ["strength"]


def test_a_line_naming_a_rolled_kind_of_act_is_rolled_when_the_nearest_lines_say_impossible():
    """Swimming in armour sits among impossible lines by its topic; the game has a roll for it."""
    index = CheckIndex([("impossible", "I swim in my armor across the whole sea"), ("impossible", "I swim in my armor to the moon"),
                        ("swim", "I swim after the boat"), ("no_roll", "what time is it")], embed=bag_of_words)
    line, coc = "I swim in my armor after the boat", rulesets.load("coc7e")
    assert index.vote(line, k=3, temperature=0.1).top == "impossible"
    state = asyncio.run(adjudicate(k=3).run(instance(line), None, pack=coc, check_index=index, decision_model=ROLLS))
    assert state.decision == "roll" and [c.skill for c in state.checks] == ["swim"]


def test_a_stake_pushed_in_and_play_hand_for_hand_is_gambling():
    assert cued_checks("Lottie pushes her stake in and plays the cattle buyer hand for hand until dawn.", SWADE) == ["gambling"]


@pytest.mark.parametrize("pack, line, checks", [
    (PF2, "Marisol braces her boots and heaves with all her strength to force the gate shut.", ["athletics"]),
    (DND, "Ilya puts his shoulder to the jammed door.", ["athletics", "strength"]),
    (PF2, "Keth crouches, searches the bank for the handcart's ruts, and follows wherever they lead.", ["survival"]),
    (SWADE, "I get down and hunt for hoofprints, scuffs, anything to pick his trail up.", ["survival"]),
    (SWADE, "Hosea climbs onto the wagon bed and pleads with the crowd to let the law try the boy.", ["persuasion"]),
    (DND, "While Gorm reaches for his ale, I swap his lucky bones for my weighted pair.", ["sleight_of_hand"]),
    (DND, "Ilya slams his coin on the table and starts drinking to keep up with the dwarf.", ["constitution_save", "constitution"]),
    (DND, "Brisa searches the desk for the missing letter.", ["investigation", "perception"]),  # a search, not a trail
    (DND, "Ilya pours himself a drink and sits by the fire.", []),
])
def test_strength_tracking_pleading_swapping_and_drinking_matches_are_named_acts(pack, line, checks):
    assert cued_checks(line, pack) == checks


@pytest.mark.parametrize("line, only", [
    ("Eddie sets his feet, puts his shoulder to the vault door and heaves until it bursts open.", True),
    ("Marisol swims for the far bank with all her strength.", False),  # a swim named beside it
    ("Keth climbs the seawall.", False),
])
def test_strength_alone_never_turns_a_refusal_into_a_roll(line, only):
    from pipelines.act_cues import names_strength_only

    assert names_strength_only(line) is only


@pytest.mark.parametrize("line, checks", [
    ("Brisa hops up onto the boom and scampers along it, arms out, to drop onto the other ship's deck.", ["acrobatics"]),
    ("I hold my arms out to catch the child.", []),
])
def test_arms_held_out_on_the_move_is_keeping_balance(line, checks):
    assert cued_checks(line, DND) == checks


@pytest.mark.parametrize("line, knowledge", [
    ("What do I know about fords like this on the river? Where's the safest line across?", True),
    ("Do I know anything about the Order of the Silver Twilight?", True),
    ("Maren, what do you know about the bell?", False),  # asked of someone else: they answer
    ("I know what I saw.", False),
])
def test_asking_what_the_character_knows_names_a_knowledge_check(line, knowledge):
    assert bool(set(cued_checks(line, PF2)) & {"nature", "society", "religion", "arcana", "occultism"}) is knowledge
