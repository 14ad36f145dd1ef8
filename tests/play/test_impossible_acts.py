"""Acts whose own words say they cannot happen are refused before any vote, with a reason."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from pipelines.impossible_acts import (JUMP_LIMIT_FT, SHOT_LIMIT_FT, SPEED_LIMIT_MPH, impossible_act, impossible_in_era, impossible_in_scene,
                                      impossible_without_magic, magic_act)


@pytest.mark.parametrize("line", [
    "I lift the loaded ore wagon over my head and throw it at the bandits.",
    "Dutch hoists the whole assay office onto his back.",
    "i pick up the church and move it ten feet left",
    "I brace my shoulder against the wall and push the whole tower over.",
    "I flap my arms as hard as I can to get up to the roof.",
    "I sprint across the surface of the lake to the island.",
    "I'll hold my breath until dawn.",
    "I outrun the bullet.",
    "I swim across the Atlantic to warn them.",
    "I take a photo of the room the way it looked last week.",
    "I squeeze my whole body through the keyhole.",
    "He wades in and drags the truck up out of the creek with his bare hands.",
    "I plant my feet in the ford and hold back the river so the others can cross.",
    "I put my back under the mine roof and hold the whole thing up till they're out.",
    "He shoves the whole landslide off the road.",
    "I hold my breath under the pond for the whole night.",
    "I hold my breath at the bottom of the well for the entire day.",
    "I chase the night train on foot and beat it to the next station.",
    "He fires right through the hillside at the men behind it.",
    "I walk straight through the cellar wall into the vault.",
    "She climbs down and heaves the whole fallen span onto her shoulders.",
    "Pip lifts the fallen span back into place all by himself.",
    "I spur my horse straight up the sheer cliff face to the top.",
])
def test_plainly_impossible_acts_are_named_with_a_reason(line):
    why = impossible_act(line)
    assert why and len(why.split()) >= 3


@pytest.mark.parametrize("line", [
    "I throw open the tavern door and stride in.",
    "I toss the inn keeper a silver coin.",
    "I lift the crate over my head.",
    "I carry the wounded miner out of the bank.",
    "I lift the boulder off his leg.",
    "I knock the door down and push the table over.",
    "Dutch heaves the wagon up so we can pull the wheel free.",
    "I throw a rock at the lighthouse window.",
    "I run along the river bank after him.",
    "I hold my breath and dive for the key.",
    "I swim across the river with the rope in my teeth.",
    "I climb the hill and look for the mill.",
    "I haul the cart out of the ditch with my bare hands.",
    "I walk through the gap in the wall.",
    "I walk through the stone archway.",
    "I fire through the window at the rider.",
    "I hold back the curtain and peek out.",
    "I run to catch the train before it leaves.",
    "I hold my breath for as long as I can and dive.",
    "I ride up the cliff path to the fort.",
    "I drive up the wall road toward the pass.",
    "I lift the span of rope over the rail.",
])
def test_ordinary_acts_near_the_patterns_are_left_to_the_vote(line):
    assert impossible_act(line) is None


_ordinary = st.sampled_from(["crate", "barrel", "chair", "rope", "lantern", "sack of flour", "wounded guard", "ladder", "door"])
_huge = st.sampled_from(["lighthouse", "saloon", "standing stone", "castle", "bridge", "windmill"])
_heavy = st.sampled_from(["ore wagon", "boulder", "stagecoach", "cart"])
_verb = st.sampled_from(["lift", "hoist", "pick up", "heave", "throw", "carry", "hurl", "toss"])
_tail = st.sampled_from(["", ".", " over my head", " onto my back", " across the street", " and walk off"])


@given(_verb, _ordinary, _tail)
def test_moving_an_ordinary_thing_is_never_refused(verb, thing, tail):
    assert impossible_act(f"I {verb} the {thing}{tail}") is None


@given(_verb, _huge, _tail)
def test_moving_a_building_sized_thing_always_is(verb, thing, tail):
    assert impossible_act(f"I {verb} the whole {thing}{tail}") == "no one could move that"


def test_the_whole_thing_is_the_huge_thing_the_line_named():
    line = "Ilya gets his shoulder under the fallen tower and heaves the whole thing back upright so the carts can get through."
    assert impossible_act(line) == "no one could move that"
    assert impossible_act("I look the tower over and search the whole thing for a way in") is None
    assert impossible_act("we lift the crate, the whole thing, onto the cart") is None


def test_the_decision_step_refuses_it_without_dice_and_names_the_rule():
    """End to end through the adjudicate step: no roll, the rule named in the step record."""
    import asyncio

    import rulesets
    from pipelines.check_index import IMPOSSIBLE
    from pipelines.pipeline import load_pipeline
    from pipelines.records import MoeInstance, Turn

    pack = rulesets.load("swade")
    pipe = load_pipeline("adjudicate")
    instance = MoeInstance(id="x", ruleset="swade", context=[Turn(speaker="GM", text="The street is quiet."),
                                                              Turn(speaker="Dutch", text="I lift the loaded ore wagon over my head.")],
                           characters=["Dutch"])
    result = asyncio.run(pipe.run(instance, None, pack=pack))
    assert result.decision == IMPOSSIBLE and result.checks == []
    assert any(isinstance(s.parsed, dict) and s.parsed.get("rule") == "no one could lift that so high" for s in result.steps)


def test_no_one_stays_under_water_for_an_hour():
    assert impossible_act("Keth dives down and searches the shrine, staying under for a good hour.") == "no one holds their breath that long"
    assert impossible_act("Keth dives down and stays under as long as he can.") is None


def test_a_motor_car_is_never_held_overhead_but_may_be_thrown_into_reverse():
    assert impossible_act("Eddie hoists the whole car over his head and hurls it onto the ghoul.") == "no one could lift that so high"
    assert impossible_act("I throw the car into reverse and floor it.") is None


@given(_heavy)
def test_a_heavy_thing_may_be_heaved_but_never_held_overhead_or_thrown(thing):
    assert impossible_act(f"I heave the {thing} up an inch so they can crawl out") is None
    assert impossible_act(f"I lift the {thing} over my head") == "no one could lift that so high"
    assert impossible_act(f"I hurl the {thing} at the guards") == "no one could throw that"


GORGE = "The rope bridge has fallen. The far side is two hundred feet away across empty air."


@pytest.mark.parametrize("line, scene, why", [
    ("I take a running start and jump the gorge to the far side", GORGE, "no one jumps 200 feet"),
    ("I spur my horse and jump clean across to the far rim.", "A canyon half a mile wide, its floor a thousand feet below.", "no one jumps half a mile"),
    ("tomás jumps across the street onto the bank roof", "The bank roof is across the street, a good eighty feet away.", "no one jumps 80 feet"),
    ("I leap over the stream", "A stream ten feet across. The mill is two miles downstream.", None),  # narrow; the mill is not the gap
    ("I jump across to the ledge", "The ledge is a thousand feet below.", None),  # a height, not a width
    ("I climb down into the gorge", GORGE, None),  # no jump
    ("I jump across the gap", "A dark hall.", None),  # the scene gives no width: the vote decides
    ("brisa takes a running start and leaps the whole gap", "The far edge is sixty feet away.", "no one jumps 60 feet"),
    ("I jump across to the other roof!", "The next roof is forty feet away across an alley.", "no one jumps 40 feet"),
    ("I jump across the brook", "The brook is six feet wide.", None),
])
def test_a_jump_is_refused_only_across_a_gap_the_scene_says_no_one_jumps(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@given(st.integers(min_value=1, max_value=20000), st.sampled_from(["feet", "yards"]), st.sampled_from(["away", "across", "wide"]))
def test_the_jump_limit_holds_for_any_stated_width(count, unit, word):
    width = count * (3 if unit == "yards" else 1)
    why = impossible_in_scene("I leap across the chasm", f"The far edge is {count} {unit} {word}.")
    assert (why is not None) is (width > JUMP_LIMIT_FT)


def test_the_decision_step_reads_the_width_from_the_scene():
    import asyncio

    import rulesets
    from pipelines.check_index import IMPOSSIBLE
    from pipelines.pipeline import load_pipeline
    from pipelines.records import MoeInstance, Turn

    instance = MoeInstance(id="x", ruleset="dnd5e", context=[Turn(speaker="GM", text="The bridge is down."),
                                                              Turn(speaker="Brisa", text="I take a running start and jump the gorge")],
                           characters=["Brisa"])
    pipe, pack = load_pipeline("adjudicate"), rulesets.load("dnd5e")
    refused = asyncio.run(pipe.run(instance, None, pack=pack, scene=GORGE))
    assert refused.decision == IMPOSSIBLE and refused.steps[0].parsed["rule"] == "no one jumps 200 feet"
    narrow = asyncio.run(pipe.run(instance, None, pack=pack, scene="The gorge is twelve feet across."))
    assert "rule" not in narrow.steps[0].parsed  # a narrow gorge is left to the vote


# ---- magic, refused only for a character whose sheet gives none -----------------------------------

@pytest.mark.parametrize("line, what", [
    ("I cast fireball right into the middle of them", "a spell"),
    ("ok brisa casts a sleep spell on the guards", "a spell"),
    ("closes her eyes and reaches into his thoughts with her psychic powers", "magic"),
    ("I ask him telepathically where the others are", "telepathy"),
    ("I read the sheriff's mind", "telepathy"),
    ("Eddie: I read Ruth's mind to find out what she is hiding.", "telepathy"),
    ("I teleport to the city gates", "teleporting"),
    ("I point at the goblins and turn them into frogs", "turning someone into a beast"),
    ("I lay my hands on him and bring him back to life", "raising the dead"),
    ("Dutch kneels by the coffin and prays the sheriff back to life.", "raising the dead"),
    ("Dutch stands up and hurls a bolt of lightning from his hand at them.", "magic"),
    ("fire streams from her fingertips into the straw", "magic"),
    ("I chant the words a wizard once used and throw a fireball into their shield wall.", "a spell"),
])
def test_acts_only_magic_can_do_are_named(line, what):
    assert magic_act(line) == what


@pytest.mark.parametrize("line", [
    "I cast my line into the river", "I cast a glance at the door", "I cast off the mooring line",
    "Does the spell book say anything about the bell?", "I ask if he has psychic powers",
    'Marisol raises her sword. "Drop those clubs or you join him."', "I turn the key in the lock",
    "I try to read his face for a lie", "I turn the table into a barricade",
    "Can you bring dead people back to life?", "He didn't bring anything back to life, that's good.", "I do not cast a spell",
    "I throw a bolt of cloth over the table", "I fire a burst of shots at the door", "the fire from his hand-lamp lights the hall",
])
def test_ordinary_acts_and_talk_about_magic_work_no_magic(line):
    assert magic_act(line) is None


@given(st.sampled_from(["fireball", "magic missile", "cure wounds", "hold person", "misty step"]),
       st.sampled_from(["Brisa", "Ilya Thorncastle", "Dutch"]))
def test_a_spell_is_impossible_only_for_one_listed_without_magic(spell, who):
    line = f"I cast {spell} at the bandit"
    assert impossible_without_magic(line, who, [who]) is not None
    assert impossible_without_magic(line, who, []) is None  # a caster's spell is left to the vote
    assert impossible_without_magic(line, who, ["Someone Else"]) is None


def test_the_refusal_names_the_character_not_their_title():
    why = impossible_without_magic("Margaret tries First Aid on him to bring him back to life.", "Dr. Margaret Hale", ["Dr. Margaret Hale"])
    assert why == "Margaret has no magic for raising the dead"  # was "Dr. has no magic..."


def test_who_has_magic_comes_from_the_sheet_and_the_pack():
    import rulesets
    from gm.systems import parse_character, ready_characters

    has = {s.name: s.works_magic(rulesets.load(s.ruleset)) for pack in ("dnd5e", "pf2e", "swade", "coc7e")
           for s in ready_characters(rulesets.load(pack))}
    assert has["Oskar Venn"] and has["Pip Quillon"] and has["Hosea Pike"]  # cleric, bard, Faith d8
    assert not has["Brisa Tallowmere"] and not has["Dutch Calloway"] and not has["Eddie Kowalczyk"]
    # the sheet's own word wins: a 1920s professor who learned a spell from a tome
    pack = rulesets.load("coc7e")
    sheet = parse_character({"name": "Ada Finch", "ruleset": "coc7e", "concept": "librarian", "magic": True,
                             "characteristics": {"STR": 40, "CON": 50, "SIZ": 50, "DEX": 50, "APP": 50, "INT": 70, "POW": 60, "EDU": 80}}, pack)
    assert sheet.works_magic(pack)


def test_a_sheet_that_names_no_class_is_not_refused_its_spells():
    """An imported 'elf' may be a wizard: only a class the pack lists without magic (or the sheet) says no."""
    import rulesets
    from gm.systems import parse_character

    pack = rulesets.load("dnd5e")
    base = {"name": "Wren", "ruleset": "dnd5e", "level": 3, "abilities": {"STR": 10, "DEX": 14, "CON": 12, "INT": 16, "WIS": 12, "CHA": 10}}
    assert parse_character({**base, "concept": "elf"}, pack).works_magic(pack)
    assert parse_character({**base, "concept": "elf", "notes": "a wizard of the third circle"}, pack).works_magic(pack)
    assert not parse_character({**base, "concept": "dwarf fighter"}, pack).works_magic(pack)
    assert not parse_character({**base, "concept": "elf", "magic": False}, pack).works_magic(pack)


def test_the_gm_refuses_a_rogues_fireball_but_rolls_nothing_for_it_and_says_why():
    from gm.agent import GameMaster
    from pipelines.llm import ScriptedModel

    model = ScriptedModel(by_step={"narrate": ["Brisa's fingers twitch, but no fire comes; she was never taught a spell."]})
    g = GameMaster("dnd5e", "drowned_chapel", model, characters=["Brisa Tallowmere", "Oskar Venn"], memory=False, seed=3)
    reply = g.step("Brisa", "I cast fireball right into the middle of them")
    assert reply.decision == "impossible" and reply.rolls == []
    assert "Brisa has no magic" in g.session.turns[-1].why
    cleric = g.step("Oskar", "I cast cure wounds on Brisa")
    assert cleric.decision != "impossible"  # a cleric's spell goes to the vote


# ---- a shot the scene puts out of reach ---------------------------------------------------------

@pytest.mark.parametrize("line, scene, why", [
    ("dutch draws his colt and shoots him off his horse", "A lone rider on the far ridge, about two miles away.", "no handgun reaches 2 miles"),
    ("I draw my .38 and put one right between his eyes", "The steamer is already a mile out into the bay.", "no handgun reaches a mile"),
    ("I shoot him with my bow from here.", "A lookout on a headland roughly five miles away.", "no bow or throw reaches 5 miles"),
    ("I put an arrow through that lantern from here.", "The signal lantern burns on a hill about three miles away.", "no bow or throw reaches 3 miles"),
    ("I shoot the bandit", "The town is two miles off. A bandit stands thirty feet away.", None),  # the nearest distance counts
    ("I fire at the lookout with my rifle", "The lookout is 300 yards away.", None),
    ("I set fire to the barn", "The barn is half a mile away.", None),  # fire, not a shot
    ("I shoot the bandit", "The bandit laughs from the saloon door.", None),  # no distance stated
])
def test_a_shot_is_refused_only_when_the_scene_puts_the_target_past_the_weapons_reach(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@given(st.integers(min_value=1, max_value=20_000), st.sampled_from(["colt", "longbow", "rifle"]))
def test_the_shot_limit_holds_for_any_stated_distance(feet, weapon):
    why = impossible_in_scene(f"I shoot him with my {weapon}", f"The rider is {feet} feet away.")
    limit = SHOT_LIMIT_FT[{"colt": "handgun", "longbow": "bow", "rifle": "any"}[weapon]]
    assert (why is not None) is (feet > limit)


@pytest.mark.parametrize("line, why", [
    ("Margaret sifts through the ash, pieces the letter back together and reads what it said.", "ash holds no writing"),
    ("I scoop the ash out of the fireplace and read what the letter said", "ash holds no writing"),
    ("I throw a lasso over the smokestack and dig in with the horse to drag the whole train to a stop.", "no one could move that"),
    ("I sift through the ashes for any scrap that didn't burn and read it", None),  # a scrap may have survived: the vote decides
    ("I search the ashes of the campfire for tracks", None),
    ("I climb into the cab and stop the train", None),  # by its brake
    ("I read the letter and toss it in the ashes", None),
])
def test_burned_writing_and_a_whole_train_dragged_to_a_stop(line, why):
    assert impossible_act(line) == why


@pytest.mark.parametrize("line, scene, year, era, why", [
    ("I take out my cell phone and call for a tow truck.", "1926, a farm road outside Dunwich.", None, "", "there are no mobile phones in 1926"),
    ("I google the cult's name", "A rainy night in Arkham.", 1925, "the 1920s", "there is no internet in the 1920s"),
    ("I switch on my flashlight", "A damp crypt.", 1500, "this world", "there are no electric torches in this world"),
    ("I phone the sheriff's office", "Arkham, 1926.", 1925, "the 1920s", None),  # telephones were ordinary by then
    ("I call her on my cell phone", "Boston, 2019.", 1925, "the 1920s", None),  # the scene's year wins over the pack's era
    ("I snap the stranger with my Polaroid", "Arkham, 1925.", None, "", "there are no instant cameras in 1925"),
    ("I radio ahead to the next station", "It is 1879. The express has left.", None, "", "there is no radio to call on in 1879"),
    ("I'll radio back up to the top and tell them", "A sea cave.", 1500, "this world", None),  # a Sending spell, said the table's way
    ("I take a picture with my camera", "A damp crypt.", 1500, "this world", "there are no cameras in this world"),
    ("I photograph the symbol with my camera", "Arkham, 1925.", None, "", None),
    ("I grab the security camera footage", "The museum has a security camera over the door.", 1925, "", None),  # the scene shows it
    ("Is there a telephone in the inn?", "A coaching inn.", 1500, "this world", None),  # asking is not doing
    ("I light a lantern and look around", "A damp crypt.", 1500, "this world", None),
    ("I cast plane shift", "A temple.", 1500, "this world", None),
    ("Fine, I'll send him a telegram", "A guild hall.", 1500, "this world", "there is no telegraph in this world"),
    ("I send a telegram to Boston", "Arkham, 1925.", None, "", None),
    ("I check the little screen on the back of the camera", "Gloucester, 1925.", None, "", "there are no digital cameras in 1925"),
    ("Margaret checks the caller ID to see who rang.", "A crank telephone on the farmhouse wall.", 1925, "the 1920s",
     "there is no caller ID in the 1920s"),
    ("I fax the photos to the Boston Globe.", "Arkham, 1925.", None, "", "there are no fax machines in 1925"),
    ("I press record on my pocket cassette recorder.", "Maine coast, autumn 1925.", None, "", "there are no tape recorders in 1925"),
    ("I spray luminol on the floorboards.", "The farmhouse kitchen.", 1925, "the 1920s", "there is no luminol in the 1920s"),
    ("Tomás snaps an instant colour print and hands it over.", "October 1925.", None, "", "there are no instant cameras in 1925"),
])
def test_a_thing_the_scenes_year_does_not_have_is_refused(line, scene, year, era, why):
    from pipelines.impossible_acts import impossible_in_era

    assert impossible_in_era(line, scene, year, era) == why


CELL = "Keth wakes in a stone cell, wrists manacled. His bow, quiver and all his gear were taken; the jailer eats soup outside."
STOVE = "The smugglers fed the ledger into the pot-bellied stove minutes ago; it holds only grey ash and a brass clasp."


@pytest.mark.parametrize("line, scene, why", [
    ("Keth draws his longbow and shoots the jailer through the bars.", CELL, "the bow was taken"),
    ("Dutch pulls out his revolver and fires at the sheriff", "The sheriff took his revolver when they locked him up.",
     "the revolver was taken"),
    ("I fire my revolver", "The deputy takes your revolver and locks the cell.", "the revolver was taken"),
    ("I ask the jailer for my bow back.", CELL, None),  # getting it back is a fair try
    ("Where did they put my bow?", CELL, None),  # a question
    ("I draw my knife", "The sheriff took his revolver.", None),  # not what was taken
    ("I draw my sword and attack", "The bandits were taken by surprise.", None),
    ("I fire my crossbow", "The owl takes a crossbow bolt to the chest.", None),  # CRD3: being hit is not being robbed
    # writing the scene put into the fire
    ("Margaret pulls the ledger out and reads the last page.", STOVE, "the ledger was burned to ash"),
    ("I fish the diary out of the stove and read the last entry.", "His nephew threw the old man's diary into the stove last night.",
     "the diary was burned to ash"),
    ("I read the letters", "The letters were burned before we arrived.", "the letters were burned to ash"),
    ("I search the ashes for anything left of the ledger", STOVE, None),  # a fair search
    ("I read the ledger", "The ledger was burned, but a scrap of the last page survived.", None),
    ("I read the sign by the road", "The barn was burned down years ago; a sign hangs by the road.", None),
])
def test_a_thing_the_scene_says_was_taken_or_burned_cannot_be_used_or_read(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@pytest.mark.parametrize("line, scene, why", [
    ("Oskar plays a jig on his fiddle", "Oskar's fiddle was crushed under the wagon wheel last night.", "the fiddle was crushed"),
    ("I light my lantern", "During the climb the lantern slipped from your belt and went over the side.", "the lantern was lost"),
    ("I use my lockpicks on the door", "The jailer confiscated the lockpicks, Brisa's knives included, at the gate.", "the lockpicks were taken"),
    ("I take out my notebook and read my notes", "The thief stole her notebook and her purse on the tram.", "the notebook was taken"),
    ("I play a tune on my flute", "Her flute was lost in the river, the lute survived.", "the flute was lost"),
    ("I mend my fiddle with glue and string", "Oskar's fiddle was crushed under the wagon wheel.", None),  # mending is a fair try
    ("I dive into the cistern for my candle", "Her candle fell into the cistern and sank.", None),  # so is fetching it
    ("I play my fiddle", "His bow was broken in the fight.", None),  # CRD3-like: not the thing that is gone... (a fiddle's bow aside)
    ("I hold her hand", "She takes your hand and holds it.", None),  # a hand taken is a gesture
    ("I pick up the pistol from the table", "The pistol was sent to the capital on the noon stage.", "the pistol was sent away"),
    ("I pick up the knife", "The boy was sent to fetch water. His knife lies on the table.", None),
    ("Beau gets out of her chains and grabs her stuff", "The guards took her weapons and her chains were removed.", None),
])
def test_a_thing_the_scene_says_was_broken_lost_or_taken_cannot_be_used(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@pytest.mark.parametrize("line, scene, why", [
    # sold, mounted, pushed with: the thing is not there
    ("I saddle the grey mare and ride for town", "Old Hobb sold the grey mare at the fair last week.", "the mare was sold"),
    ("Marisol swings up onto the camel", "The caravan master sold his last camel in Zarith for water.", "the camel was sold"),
    ("I push us off the bank with the oar", "Both oars went over the side in the rapids and sank.", "the oars were lost"),
    ("I ride to the fair", "Old Hobb sold the grey mare at the fair last week.", None),  # the fair is not what was sold
    ("I ask Hobb to buy the mare back", "Old Hobb sold the grey mare at the fair last week.", None),  # getting it back is a try
    ("I pole us back to the jetty", "The raft's pole is lashed to the deck; the rope was lost.", None),  # the pole is there
    # burned writing, with a date in its name
    ("I open the 1902 diary and read it", "She threw the 1902 diary into the kitchen stove an hour ago.", "the diary was burned to ash"),
    ("I read the will aloud", "The will the lawyer drew up was torn in half and burned in the parlour grate; only ash remains.",
     "the will was burned to ash"),
    ("I read the will aloud", "The will was burned, but the remains of its last page lie in the grate.", None),  # a piece survived
    ("We climb into the canoe and paddle for the island", "The canoe was crushed against the rocks in the night.", "the canoe was crushed"),
    ("I row the skiff to the wreck", "Their skiff was stolen from the jetty.", "the skiff was taken"),
])
def test_a_thing_sold_or_lost_cannot_be_ridden_or_used(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@pytest.mark.parametrize("line, scene, why", [
    ("We walk across the footbridge to the mill", "Someone cut the footbridge ropes; the footbridge was cut at dawn.", "the footbridge is down"),
    ("I climb the ladder to the loft", "The loft ladder burned with the rest of the stable.", "the ladder is down"),
    ("Dutch leads the horses over the bridge", "The bridge over Cutter's Creek washed out and the bridge is gone.", "the bridge is down"),
    ("I run up the stairs", "The raiders tore down the stairs to the tower room.", "the stairs are down"),
    ("I climb down what's left of the bridge ropes", "The rope bridge was cut last night.", None),  # another way over: dice
    ("We rig a new line across where the bridge was", "The rope bridge was cut last night.", None),
    ("Can we still cross the bridge?", "The rope bridge was cut last night.", None),  # a question
    ("I walk across the bridge", "The old bridge creaks but holds; the ferry was sunk.", None),  # not the way that is down
    ("Oskar jogs over the footbridge", "At dawn the footbridge over the millrace snapped under a fallen oak.", "the footbridge is down"),
    ("I trot up the stairs to the gallery", "The gallery stairs collapsed in the fire.", "the stairs are down"),
])
def test_a_bridge_or_ladder_the_scene_says_is_down_cannot_be_crossed(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@pytest.mark.parametrize("line, scene, why", [
    ("I sit down at the computer and look up his address", "Arkham, 1926.", "there are no computers in 1926"),
    ("I search the police database for the name", "Boston, 1923.", "there are no computers in 1923"),
    ("I switch on the radio and call the fort", "Dakota Territory, 1874.", "there is no radio to call on in 1874"),
    ("I switch on the radio and listen for news", "Arkham, 1926.", None),  # a 1920s parlour has one
    ("I pick up the car phone and call the garage", "A mountain road, winter of 1927.", "there are no mobile phones in 1927"),
    ("I ask the clerk to compute the fare", "Boston, 1923.", None),
])
def test_machines_the_scenes_year_does_not_have(line, scene, why):
    from pipelines.impossible_acts import impossible_in_era

    assert impossible_in_era(line, scene) == why


@pytest.mark.parametrize("line, scene, why", [
    ("I lean over the edge and snatch the banner", "The banner hangs on the far side of the chasm, forty feet of open air away.", "no arm reaches 40 feet"),
    ("I grab the lamp", "A lamp hangs on a hook twenty feet away.", None),
    ("I lean over the edge and grab the ring", "The ring lies at the bottom of a cistern a hundred and twenty feet deep.",
     "no arm reaches 120 feet down"),
    ("I climb down the cistern and grab the ring", "The ring lies at the bottom of a cistern a hundred and twenty feet deep.", None),
    ("I reach into the pool and grab the key", "The key glints in a pool three feet deep.", None),  # an arm's length
    ("What if something grabs the banner from the far side? Like a troll.", "The banner hangs across the chasm, forty feet away.", None),  # walked to, not reached across a gap
    ("I climb across and grab the rope", "The rope dangles on the far side of the chasm, forty feet away.", None),
    ("I jump onto the boat", "The boat is already two hundred feet out on the river.", "no one jumps 200 feet"),
    ("I jump onto the boat", "The boat bumps against the dock, a step away. The town is two miles east.", None),  # the town is not the boat
    ("I run down the platform on foot to catch the train", "The train is now miles down the track.", "no one on foot catches it a mile off"),
    ("I hop aboard the stage", "The stage pulled out of town an hour ago and is long gone.", "the stage left long ago"),
    ("I hop aboard the stage", "The stage waits by the hotel; it leaves in an hour.", None),
    ("I drive to Chicago by midnight", "It is ten at night. Chicago is a thousand miles to the west.", "no motor car covers 1000 miles by midnight"),
    ("We drive to Boston before nightfall", "Boston is sixty miles east.", None),
    ("I run down the platform to catch the train", "The train is just pulling out, a few yards away.", None),
    ("I ride hard for the fort to get there before nightfall", "It is noon; the fort is two hundred miles north.", "no horse covers 200 miles before nightfall"),
    ("I ride for the fort", "It is noon; the fort is two hundred miles north.", None),  # a long ride, but no deadline today
    ("We walk to the mill before dark", "The mill is two miles downstream.", None),
    ("I leap from the pier onto the deck of the barge", "The barge cast off an hour ago.", "the barge left long ago"),
    ("I jump from the quay onto the ferry", "The ferry pulled away and is out of sight round the headland.", "the ferry is already out of sight"),
    ("I gallop after it and swing aboard the coach", "The coach rounds the bend, out of sight.", None),  # a rider may yet catch it
    ("I stand on the bench and reach up to unhook the lantern", "The lantern hangs from the arch, forty feet above the water.", "no arm reaches 40 feet up"),
    ("I reach up and take the lantern down", "The lantern hangs six feet up, by the door.", None),
    ("I climb the pillar and grab the lantern", "The lantern hangs forty feet above the floor.", None),
    ("I throw a stone across the harbour at the lamp", "The harbour is two miles wide; a lamp burns on the far shore.", "no arm throws 2 miles"),
    ("I throw my dagger at the goblin", "The goblin stands twenty feet away.", None),
    ("We drag the bodies off and throw them into the lake", "The lake lies five hundred feet from the tents.", None),  # carried there first
    ("I squeeze between the bars", "The window's bars are three inches apart.", "no body fits between bars that close"),
    ("Pip wriggles out between the bars.", "The grate's bars are so close that only two fingers fit between them.", "no body fits between bars that close"),
    ("I slip through the grate", "The grate's bars are rusted and a foot apart.", None),
])
def test_a_thing_out_of_reach_by_the_scenes_own_distance_cannot_be_reached(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@given(st.integers(min_value=1, max_value=2000))
def test_reaching_across_a_gap_fails_exactly_past_the_reach_limit(feet):
    from pipelines.impossible_acts import REACH_LIMIT_FT

    why = impossible_in_scene("I lean out and grab the banner", f"The banner hangs across the gap, {feet} feet away.")
    assert (why is not None) is (feet > REACH_LIMIT_FT)



@pytest.mark.parametrize("line, scene, why", [
    ("Ilya crouches and leaps straight up to the top of the spire.", "The bell-ringer waits at the top of the spire, two hundred feet above the square.",
     "no one jumps 200 feet up"),
    ("Brisa springs straight up onto the top of the wall in one leap.", "The old city wall rises a sheer thirty feet of dressed stone.",
     "no one jumps 30 feet up"),                                                                          # a height the scene gives as "rises"
    ("I jump up and catch the chandelier.", "A chandelier hangs twelve feet above the floor.", None),          # within a jump
    ("I jump down from the balcony to the floor.", "The balcony runs twenty feet above the ballroom floor.", None),  # down is a fall, not a jump up
])
def test_a_jump_up_is_refused_only_past_any_high_jump(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@pytest.mark.parametrize("line, scene, why", [
    ("Dutch puts his shoulder to the engine and heaves it back up onto the rails.",
     "A rockslide knocked a locomotive off the rails; forty tons of iron lie on their side.", "no one lifts 40 tons"),
    ("Brisa hauls the anchor up by herself.", "The bower anchor is a two-ton mass of iron.", "no one lifts 2 tons"),
    ("Lottie lifts the engine back onto the rails.", "A derailed sixty-ton locomotive lies across the tracks.", "no one lifts 60 tons"),  # no word shared
    ("Eddie picks the Packard up over his head.", "Their big Packard touring car is parked at the kerb.",
     "no one holds a vehicle over their head"),                                                          # the scene says it is a car
    ("I put my shoulder to the wheel and push the wagon free.", "The wagon, loaded with two tons of ore, is stuck.", None),  # pushing, not lifting
    ("I lift the crate onto the cart.", "The crate weighs forty pounds.", None),
    ("Eddie picks the Packard's crank up off the road.", "Their big Packard touring car is parked at the kerb.", None),
])
def test_lifting_what_the_scene_says_weighs_tons_or_is_a_car_is_refused(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@pytest.mark.parametrize("line, scene, why", [
    ("Lottie sits down at the key and wires the marshal in Prescott.", "Raiders hit the station, cutting the telegraph wire for miles.",
     "the telegraph line is down"),
    ("I send a telegram to the sheriff.", "The telegraph line has never reached this stage station.", "there is no telegraph line here"),
    ("I pick up the telephone and ring the exchange.", "The storm brought the telephone lines down last night.", "the telephone line is down"),
    ("I ride to the next town and send a telegram from there.", "The telegraph line here was cut.", "the telegraph line is down"),
    ("I climb the pole and splice the telegraph wire.", "Raiders hit the station, cutting the telegraph wire for miles.", None),  # mending it
    ("I wire the marshal.", "The telegraph office is open and the clerk is at the key.", None),
    ("Hosea cranks the telephone on the wagon's dash and asks for the sheriff.", "Ten miles of prairie, no house, wire or pole anywhere.",
     "there is no telephone line here"),  # the wire among the things the scene says are not there
    ("I cut a length of wire from the fence.", "No house, wire or pole anywhere.", None),
])
def test_sending_word_by_a_line_the_scene_says_is_down_is_refused(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@pytest.mark.parametrize("line, refused", [
    ("Dutch ducks under the water and holds his breath on the bottom all afternoon.", True),
    ("Eddie dives in, holds his breath for twenty minutes, and searches the car.", True),
    ("Eddie holds his breath for a minute and swims under the pier.", False),
    ("I hold my breath for five minutes while the gas clears.", False),   # long, but the dice may say so
    ("Sorrel gulps a lungful of air, dives off the pier and searches the wreck for the next hour.", True),
    ("I take one deep breath and swim underwater all the way to Innsmouth.", True),
    ("I take a deep breath and swim underwater to the far side of the pool.", False),
    ("I take a deep breath and tell him I have waited an hour already.", False),  # no water: a breath is a pause
])
def test_breath_held_past_any_record_is_refused(line, refused):
    assert (impossible_act(line) is not None) == refused


@pytest.mark.parametrize("line, refused", [
    ("Keth heads back to yesterday morning's camp.", False),        # a place named by when they left it
    ("I go back to yesterday, before the fire, and warn the miller.", True),
    ("Pip slips back to three days ago to read the letter before it was sealed.", True),
    ("We go back to last night's inn and ask the landlord.", False),
    ("I go back to the inn and ask about last night.", False),
])
def test_going_back_to_a_past_time_is_refused(line, refused):
    assert (impossible_act(line) == "the past cannot be reached") == refused


@pytest.mark.parametrize("line, scene, why", [
    ("Eddie recalls reading about the Wall Street crash of 1929 and tells the banker to sell.", "Arkham, summer 1924.",
     "1929 has not happened yet in 1924"),
    ("I remember the great fire of 1871 and warn them about lanterns.", "Chicago, 1893.", None),   # the past is fine
    ("I bet him the river floods again in 1927.", "Arkham, summer 1924.", None),                  # a guess, not a memory
    ("Do I remember anything that happened in 1930?", "Arkham, summer 1924.", None),               # asking is not doing
])
def test_remembering_a_year_after_the_scenes_own_is_refused(line, scene, why):
    from pipelines.impossible_acts import impossible_in_era

    assert impossible_in_era(line, scene) == why


GAGGED = "The cultists tied Tomás to a chair in the cellar. A rag is stuffed in his mouth and a gag knotted behind his head."


@pytest.mark.parametrize("line, actor, why", [
    ("Tomás shouts for help as loud as he can.", "Tomás Vidal", "Tomás is gagged: no words get out"),
    ('"Let me go and I will pay you," Tomás tells the guard.', "Tomás Vidal", "Tomás is gagged: no words get out"),
    ("Tomás works the gag loose against the chair back.", "Tomás Vidal", None),
    ("Tomás hums loudly to draw the guard over.", "Tomás Vidal", None),
    ("Tomás rocks the chair towards the lamp.", "Tomás Vidal", None),
    ("I shout up the stairs for Tomás.", "Margaret Hale", None),   # someone else is gagged
    ("Tomás shouts for help.", None, None),                         # who acts unknown: the rule cannot tell
])
def test_a_gagged_character_cannot_speak(line, actor, why):
    assert impossible_in_scene(line, GAGGED, actor) == why


TIED = "Keth lies trussed up on the barge deck, wrists lashed behind his back. His bow hangs on a peg by the tiller."


@pytest.mark.parametrize("line, actor, why", [
    ("Keth grabs his bow and shoots the bargeman.", "Keth Ardwell", "Keth is tied up: no hand is free for that"),
    ("I draw my knife and cut the mooring line.", "Keth Ardwell", "Keth is tied up: no hand is free for that"),
    ("Keth saws the rope against a nail head.", "Keth Ardwell", None),          # working at the bonds
    ("I wriggle my wrists to loosen the knots.", "Keth Ardwell", None),
    ("Keth shouts for the watch.", "Keth Ardwell", None),                       # a voice is free
    ("I grab the bow off the peg.", "Pip Underbough", None),                    # someone else is the one tied
])
def test_a_character_the_scene_says_is_tied_up_cannot_wield_a_weapon(line, actor, why):
    assert impossible_in_scene(line, TIED, actor) == why


@pytest.mark.parametrize("line, why", [
    ("Margaret plucks the bullet out of the air an inch from her nose.", "no hand is quicker than a bullet"),
    ("I grab a bullet from the box and load it.", None),
    ("I catch the thrown dagger in mid-air.", None),   # a thrown blade is the dice's call
    ("I hold my breath under the pier until the patrol leaves at dawn.", "no one holds their breath that long"),
])
def test_a_bullet_caught_in_flight_and_breath_held_till_dawn(line, why):
    assert impossible_act(line) == why


def test_a_letter_thrown_into_a_forge_is_ash():
    scene = "The smith fed the ledger into his forge last night; only ash is left in the coals."
    assert impossible_in_scene("I pull the ledger out of the forge and read it.", scene) == "the ledger was burned to ash"


@pytest.mark.parametrize("scene, refused", [
    ("The rope bridge burned, leaving a fifty-foot gap between the ledges.", True),   # the width before the gap
    ("A gap of sixty feet splits the old road.", True),                              # the width after it
    ("A ten-foot gap splits the path.", False),
    ("A 40 ft wide chasm bars the way.", True),
    ("A fifty-foot drop falls away below the ledge; the far ledge is six feet off.", False),  # a depth, not a width
])
def test_a_gap_whose_width_the_scene_gives_in_any_word_order_is_too_wide_to_jump(scene, refused):
    assert (impossible_in_scene("Ilya takes a run-up and leaps the gap to the far ledge.", scene) is not None) is refused


EMPTY = "Dutch's Colt clicked empty on his last shot, and his cartridge belt hangs from the saddle of his bolted horse."


@pytest.mark.parametrize("line, actor, why", [
    ("Dutch thumbs back the hammer and puts a bullet in the rustler's leg.", "Dutch Calloway", "Dutch has nothing left to shoot"),
    ("I fire at the rustler.", "Dutch Calloway", "Dutch has nothing left to shoot"),
    ("Dutch reloads and fires at the rustler.", "Dutch Calloway", None),                 # a reload first
    ("Dutch grabs the dead man's rifle and fires.", "Dutch Calloway", None),             # another gun
    ("Dutch runs for the horse.", "Dutch Calloway", None),                               # no shot
    ("Lottie fires at the rustler.", "Lottie Shaw", None),                               # someone else's gun is empty
    ("Margaret nocks an arrow and looses it at the wolf.", "Dr. Margaret Hale", "Margaret has nothing left to shoot"),
])
def test_a_gun_or_bow_the_scene_says_is_spent_cannot_fire_without_a_reload(line, actor, why):
    scene = EMPTY if actor != "Dr. Margaret Hale" else "Dr. Margaret Hale has loosed her last arrow; the quiver is empty."
    assert impossible_in_scene(line, scene, actor) == why


@pytest.mark.parametrize("line, scene, refused", [
    ("Lottie runs after the stage until she catches it.", "The stage pulled out twenty minutes ago and is a plume of dust on the horizon.", True),
    ("I sprint after the train and catch it.", "The train left the depot a quarter of an hour ago, now out of sight.", True),
    ("Lottie runs after the stage until she catches it.", "The stage is creeping away from the depot, twenty yards off.", False),
    ("Lottie rides after the stage until she catches it.", "The stage pulled out twenty minutes ago and is a plume of dust on the horizon.", False),
])
def test_no_one_on_foot_catches_a_coach_or_train_long_gone(line, scene, refused):
    assert (impossible_in_scene(line, scene) is not None) is refused


@pytest.mark.parametrize("line, scene, why", [
    ("Margaret asks the state laboratory to match the DNA in the blood against the brother's.", "Boston, autumn 1925.",
     "there is no DNA testing in 1925"),
    ("I send the blood to the lab for a DNA test.", "Los Angeles, 1994.", None),
    ("I fly the biplane over the ridge.", "Texas, 1921.", None),
    ("I charter an aeroplane to the island.", "Maine, 1899.", "there are no aeroplanes in 1899"),
    ("I take an X-ray of the skull.", "Arkham, 1890.", "there are no X-rays in 1890"),
])
def test_a_science_or_machine_from_after_the_scenes_year_is_refused(line, scene, why):
    from pipelines.impossible_acts import impossible_in_era

    assert impossible_in_era(line, scene) == why


BLINDFOLDED = "Eddie is blindfolded in the back of the moving car; the driver hums."


@pytest.mark.parametrize("line, actor, why", [
    ("Eddie reads the street signs as they drive past.", "Eddie Kowalczyk", "Eddie cannot see: the eyes are covered"),
    ("I watch the driver's hands on the wheel.", "Eddie Kowalczyk", "Eddie cannot see: the eyes are covered"),
    ("Eddie counts the turns and listens for the trolley bells.", "Eddie Kowalczyk", None),   # by ear
    ("Eddie rubs his head on the seat to push the blindfold up.", "Eddie Kowalczyk", None),   # at the cloth
    ("Tomás reads the street signs.", "Tomás Reyes", None),                                   # his eyes are free
    ("Eddie says they were looking at him the whole way.", "Eddie Kowalczyk", None),         # others' eyes
    ("Eddie can't see a thing.", "Eddie Kowalczyk", None),
])
def test_a_blindfolded_character_cannot_read_or_watch(line, actor, why):
    assert impossible_in_scene(line, BLINDFOLDED, actor) == why


@pytest.mark.parametrize("line, scene, why", [
    ("I tell him tonight's password.", "The gate guard demands the night's password. Nobody in the party has heard it.",
     "no one here knows the password"),
    ("Pip chats with him fluently in his own dialect.", "The merchant speaks only an old desert dialect that none of you has ever heard.",
     "no one here knows the dialect"),
    ("I try to bluff him with a made-up password.", "The gate guard demands the night's password. Nobody in the party has heard it.", None),
    ("I sneak closer to overhear the password.", "The gate guard demands the night's password. Nobody in the party has heard it.", None),
    ("I tell him the password.", "The guard demands the password; Brisa learned it from the smuggler last night.", None),
])
def test_a_password_or_tongue_no_one_present_knows_cannot_be_used(line, scene, why):
    assert impossible_in_scene(line, scene) == why


@pytest.mark.parametrize("line, scene, refused", [
    ("Dutch kicks the vault door in with his boot.", "The vault's door is two feet of steel, time-locked until Monday.", True),
    ("I shoulder through the wall.", "The cell wall is a yard of solid granite.", True),
    ("Dutch packs dynamite against the vault door hinges and lights it.", "The vault's door is two feet of steel.", False),  # a tool for it
    ("Dutch kicks the shed door in.", "The old shed door is rotten pine.", False),
    ("I kick the door in.", "The door is a sheet of iron two inches thick.", False),  # no thickness the rule reads as past any body
])
def test_no_body_breaks_through_a_foot_of_steel_or_stone(line, scene, refused):
    assert (impossible_in_scene(line, scene) is not None) is refused


def test_a_photocopy_in_the_1920s_is_refused():
    from pipelines.impossible_acts import impossible_in_era

    assert impossible_in_era("I photocopy the professor's notes.", "Arkham, 1925.") == "there are no photocopiers in 1925"
    assert impossible_in_era("I copy the professor's notes out by hand.", "Arkham, 1925.") is None


@pytest.mark.parametrize("line, scene, refused", [
    ("Ilya jumps off the cliff and lands on his feet on the rocks.", "The cliff drops three hundred feet to the rocks below.", True),
    ("I jump down from the hayloft and land on my feet.", "The hayloft is ten feet up.", False),
    ("She dives off the cliff into the sea and surfaces unhurt.", "The cliff stands 150 feet high above the water.", False),  # water, within a diver's reach
    ("Ilya jumps off the cliff.", "The cliff drops three hundred feet to the rocks below.", False),  # the jump is possible; what follows is the dice'
])
def test_landing_unhurt_from_a_fall_past_any_body_is_refused(line, scene, refused):
    assert (impossible_in_scene(line, scene) is not None) is refused


@pytest.mark.parametrize("line, scene, refused", [
    ("Dutch reads the letter from here with his naked eye.", "A letter lies on a desk in a farmhouse across the valley, two miles away.", True),
    ("Dutch reads the letter through his spyglass.", "A letter lies on a desk in a farmhouse across the valley, two miles away.", False),
    ("I read the wanted poster.", "The poster hangs by the door, ten feet away.", False),
])
def test_writing_too_far_off_for_any_eye_cannot_be_read(line, scene, refused):
    assert (impossible_in_scene(line, scene) is not None) is refused


@pytest.mark.parametrize("line, why", [
    ("Eddie looks through the wall to see who is in the study.", "no eye sees through a solid wall"),
    ("I look through the crack in the wall.", None),
    ("I peer through the window.", None),
])
def test_no_eye_sees_through_a_wall(line, why):
    assert impossible_act(line) == why


@pytest.mark.parametrize("line, what", [
    ("Lottie asks the rattlesnake which way the bandits rode.", "speaking with animals"),
    ("I ask the horse's owner where he bought it.", None),
    ("Marisol stitches the arm back on.", "making a severed limb whole"),
    ("Marisol stitches the wound closed.", None),
])
def test_talking_beasts_and_limbs_set_back_on_are_magic(line, what):
    assert magic_act(line) == what


@pytest.mark.parametrize("line, refused", [
    ("Tomás remembers the murderer's name and writes it down.", True),
    ("Tomás asks around for the murderer's name.", False),   # finding it out
])
def test_a_name_no_one_knows_cannot_be_remembered(line, refused):
    scene = "The murderer has never been seen; no one knows who he is."
    assert (impossible_in_scene(line, scene) is not None) is refused


@pytest.mark.parametrize("line, scene, refused", [
    ("I squeeze out through the arrow slit and climb down.", "The cell's only opening is an arrow slit two fingers wide.", True),
    ("I wriggle through the vent.", "The vent is a yard wide; the bars beside it are a hand's width apart.", False),  # the narrow thing is not the vent
    ("I squeeze out through the window.", "The window is narrow but a child could fit.", False),
])
def test_no_body_fits_through_an_opening_a_few_fingers_wide(line, scene, refused):
    assert (impossible_in_scene(line, scene) is not None) is refused


def test_a_shot_at_a_rider_miles_across_a_valley_is_out_of_a_revolvers_reach():
    scene = "The outlaw is topping the far ridge, a speck at least two miles across the valley. Dutch has only his Colt."
    assert impossible_in_scene("Dutch draws his Colt and takes a shot at the Kid on the ridge.", scene) == "no handgun reaches 2 miles"


@pytest.mark.parametrize("line, what", [
    ("Lottie lays her hands on his side and calls on the Lord to heal him.", "a healing miracle"),
    ("Lottie presses her hands on the wound to stop the bleeding.", None),
    ("I pray to God for strength and keep digging.", None),
])
def test_healing_by_prayer_is_a_miracle_for_one_who_works_them(line, what):
    assert magic_act(line) == what


@pytest.mark.parametrize("line, actor, refused", [
    ("Keth nocks an arrow and shoots at the thief's legs before he can get over the roof.", "Keth", "the bow was taken"),
    ("Keth throws a roof tile at the thief's legs.", "Keth", None),            # another weapon, named
    ("Marisol nocks an arrow and shoots at the thief.", "Marisol", None),      # not hers that was taken
    ("Keth asks the gate guards for his bow back.", "Keth", None),
])
def test_shooting_needs_the_bow_the_scene_says_was_taken_from_the_archer(line, actor, refused):
    scene = "In the walled town of Reedholm the gate guards took Keth's bow and quiver an hour ago. A thief is escaping over a rooftop."
    assert impossible_in_scene(line, scene, actor) == refused


@pytest.mark.parametrize("line, scene, refused", [
    ("Marisol braces her shoulder against the hull and pushes the whole barge back upright.",
     "A cargo barge, forty tons of oak planks and grain sacks, lies hull-up against the bank.", "no one lifts 40 tons"),
    ("Marisol pushes the overturned handcart back upright.", "A handcart lies on its side in the mud.", None),
    ("Marisol pushes the barge off the sandbar with a pole.", "A barge of forty tons is stuck on the sandbar.", None),  # afloat: a shove
])
def test_righting_what_weighs_tons_is_lifting_it(line, scene, refused):
    assert impossible_in_scene(line, scene, "Marisol") == refused


@pytest.mark.parametrize("line, what", [
    ("Dutch lays his hand on the miner's wound and calls down a healing miracle like the preacher does.", "a miracle"),
    ("Lottie works a miracle on that engine with a wrench and some wire.", None),   # a figure of speech
])
def test_a_miracle_called_down_is_magic(line, what):
    assert magic_act(line) == what


@pytest.mark.parametrize("line, refused", [
    ("Tomás flicks back through the shots on the camera to see whether the figure came out.", True),
    ("Tomás puts the exposed plates in his camera bag and heads for the darkroom.", False),
])
def test_no_picture_is_seen_on_a_camera_before_digital_ones(line, refused):
    from pipelines.impossible_acts import impossible_in_era

    assert (impossible_in_era(line, "A foggy street in 1925 Arkham.") is not None) is refused


@pytest.mark.parametrize("line, scene, refused", [
    ("I kneel by the clerk and ask him who did this to him.", "The night clerk lies dead behind the desk, his throat cut.", "the clerk is dead"),
    ("I ask the ogre where his boss keeps the gold.", "The ogre is out cold on the tavern floor.", "the ogre is out cold"),
    ("I knock and ask the professor about the idol.", "Professor Whitcombe left for Cairo by steamer last Tuesday.", "the professor is not here"),
    ("I ask the corpse who killed him.", "A corpse lies in the alley.", "the corpse cannot answer"),
    ("I slap the ogre awake and ask him where the gold is.", "The ogre is out cold on the tavern floor.", None),   # roused first
    ("I ask the innkeeper about his son.", "The innkeeper's son died last winter; the innkeeper polishes glasses.", None),
    ("I ask the guard about the dead man.", "A guard stands over a dead man in the alley.", None),
    ("I ask the widow who killed her husband.", "The widow sits by the fire. Her husband was murdered last night.", None),
])
def test_words_put_to_the_dead_the_senseless_or_the_absent_reach_no_one(line, scene, refused):
    assert impossible_in_scene(line, scene, "Tomás Reyes") == refused


@pytest.mark.parametrize("line, refused", [
    ("Ilya mounts his horse and rides for the village.", "the scene says the horse bolted"),
    ("I saddle the horse.", "the scene says the horse bolted"),
    ("I follow the horses' tracks into the moor.", None),     # a bolted beast may be followed, called or caught
    ("I whistle for my horse.", None),
])
def test_no_one_rides_a_horse_that_bolted(line, refused):
    assert impossible_in_scene(line, "The party's horses bolted in the storm last night; they are on foot on the moor.", "Ilya") == refused


def test_a_train_is_named_by_any_word_for_one_when_chased_on_foot():
    scene = "The 4:15 express thunders out of Red Gulch station at full steam, already a mile down the track."
    assert impossible_in_scene("Dutch sprints after the train on foot to catch it.", scene, "Dutch") == "no one on foot catches it a mile off"
    assert impossible_in_scene("Dutch spurs his horse after the train to catch it.", scene, "Dutch") is None  # a rider may


@pytest.mark.parametrize("scene, refused", [
    ("The iron vault door is two feet thick and sealed by a lock with no keyhole.", True),
    ("A two-foot-thick steel door bars the vault.", True),
    ("A two-inch-thick oak door bars the way.", False),
])
def test_a_door_of_steel_a_foot_or_more_thick_is_not_punched_through(scene, refused):
    assert (impossible_in_scene("Marisol punches through the vault door.", scene, "Marisol") is not None) is refused


@pytest.mark.parametrize("line, scene, refused", [
    ("Lottie flips on the electric lights so everyone can see the cheat.", "Tombstone, 1881. The saloon is lit by oil lamps.", True),
    ("I flip on the lights.", "Arkham, 1925.", False),
    ("Nott reaches out with her Mage Hand and tries to flip the switch.", "Tombstone, 1881.", False),  # a switch, not a light
])
def test_no_electric_light_before_the_1880s(line, scene, refused):
    from pipelines.impossible_acts import impossible_in_era

    assert (impossible_in_era(line, scene) is not None) is refused


@pytest.mark.parametrize("line, refused", [
    ("Keth holds his breath until the guards give up and leave, three days later.", True),
    ("Keth holds his breath and waits a few seconds for the guards to pass.", False),
])
def test_no_breath_is_held_for_days(line, refused):
    assert (impossible_act(line) is not None) is refused


@pytest.mark.parametrize("line, blind_in_dark, refused", [
    ("I read the letter I found on the shelf.", True, True),
    ("I strike a match and read the letter.", True, False),       # brings a light
    ("I read the letter I found on the shelf.", False, False),    # darkvision
    ("I feel along the shelf for the letter.", True, False),      # no reading
])
def test_no_one_reads_in_the_pitch_dark_without_a_light(line, blind_in_dark, refused):
    scene = "The cellar is pitch black; the investigators' only lantern was smashed on the stairs."
    assert (impossible_in_scene(line, scene, "Tomás", blind_in_dark) is not None) is refused


@pytest.mark.parametrize("line, actor, refused", [
    ("Dutch runs after the posse, sprinting the whole way.", "Dutch Calloway", True),
    ("Dutch limps after the posse on a crutch.", "Dutch Calloway", False),
    ("Lottie runs after the posse.", "Lottie Shaw", False),       # not her leg
])
def test_a_broken_leg_does_not_run(line, actor, refused):
    scene = "The posse rides out of town at dusk. Dutch's leg was broken in the fall yesterday and is splinted."
    assert (impossible_in_scene(line, scene, actor) is not None) is refused


@pytest.mark.parametrize("line, refused", [
    ("Marisol walks straight through the portcullis bars like a ghost.", True),
    ("Marisol walks through the wall.", True),
    ("Marisol walks through the wall gate into the town.", False),
    ("Marisol steps through the wall of fire.", False),
])
def test_no_body_walks_through_solid_walls(line, refused):
    assert (impossible_act(line) is not None) is refused


def test_no_social_media_in_the_twenties():
    from pipelines.impossible_acts import impossible_in_era

    assert impossible_in_era("I check the suspect's social media for where he went.", "Boston, 1923.") == "there is no social media in 1923"


@pytest.mark.parametrize("pack, concept, sees", [
    ("dnd5e", "half-orc fighter who keeps a ledger", True),
    ("dnd5e", "human cleric of the Lantern Saint", False),
    ("pf2e", "elf ranger who tracks smugglers", False),           # low-light vision needs some light
    ("pf2e", "dwarf monk", True),
    ("coc7e", "photographer from Boston", False),
])
def test_who_sees_in_the_dark_is_read_from_the_sheet_and_the_pack(pack, concept, sees):
    import rulesets
    from gm.systems._base import Sheet

    assert Sheet(name="X", ruleset=pack, concept=concept).sees_in_dark(rulesets.load(pack)) is sees


@pytest.mark.parametrize("line, scene, refused", [
    ("Keth runs at the wall, jumps up, grabs the edge of the gatehouse roof and pulls himself over.",
     "The flat gatehouse roof is thirty feet above the road, the stone walls sheer.", "no one jumps 30 feet up"),
    ("Keth jumps up and grabs the low branch.", "A low branch hangs eight feet above the path.", None),
    ("Keth climbs the ladder, jumps up and grabs the gutter.", "The roof is thirty feet above the road.", None),
])
def test_a_standing_leap_reaches_no_height_past_a_body_and_an_arm(line, scene, refused):
    assert impossible_in_scene(line, scene, "Keth") == refused


def test_a_revolver_does_not_reach_a_good_mile():
    scene = "The outlaw Jed Marrow can be seen riding away across the flats below, a good mile off. Dutch has only his Colt revolver."
    assert impossible_in_scene("Dutch steadies his Colt on a rock, takes careful aim and fires at Marrow.", scene, "Dutch") == "no handgun reaches a mile"


@pytest.mark.parametrize("line, refused", [
    ("I'll ride to the capital tonight and be back with the signed writ before they open the cells in the morning.", True),
    ("I ride to the capital to fetch the writ.", False),
])
def test_a_journey_of_days_is_not_made_overnight(line, refused):
    scene = "The magistrate who can sign the writ sits in the capital, a ten-day ride away."
    assert (impossible_in_scene(line, scene, "Keth") is not None) is refused


@pytest.mark.parametrize("line, refused", [
    ("Once the guard's footsteps fade, Brisa pulls out her thieves' tools and gets to work on the cell lock.", True),
    ("Brisa pulls out a pin from her hair and works the lock.", False),
])
def test_prisoners_left_only_their_shirts_have_no_tools(line, refused):
    scene = "The party wakes in a stone cell. Their weapons, packs and pouches were taken; only their shirts and breeches are left."
    assert (impossible_in_scene(line, scene, "Brisa") is not None) is refused


@pytest.mark.parametrize("line, refused", [
    ("Dutch grabs his saddle, throws it on his horse and rides out after them.", True),
    ("Dutch follows the horses' tracks east.", False),
])
def test_no_one_rides_a_horse_the_rustlers_ran_off(line, refused):
    scene = "At dawn the livery stands empty; the rustlers ran off every horse in town during the night, Dutch's included."
    assert (impossible_in_scene(line, scene, "Dutch") is not None) is refused


def test_a_lantern_gone_out_leaves_it_too_dark_to_read():
    scene = "The lantern has just gone out in the flooded root cellar and every match is soaked through. It is absolutely black."
    assert impossible_in_scene("Margaret finishes reading the last page of the diary.", scene, "Margaret", True) is not None


# ---- a journey against the clock -----------------------------------------------------------------

WHARF = "It is 11:50 p.m. when you learn the cultists' ship sails from Boston's Long Wharf, some forty miles away, at midnight sharp."


@pytest.mark.parametrize("line, scene, refused", [
    ("I take the car and floor it down to Boston. We'll catch them before they cast off!", WHARF, "no motor car covers 40 miles in 10 minutes"),
    ("I drive to Boston and catch them before they cast off", WHARF.replace("11:50", "10:30"), None),  # 40 miles in 90 minutes
    ("Tomás floors it and gets the Ford to the New York newsroom in half an hour flat.",
     "The editor in New York, nearly two hundred miles away, wants the photographs within half an hour.", "no motor car covers 200 miles in 30 minutes"),
    ("We run to the mill in ten minutes", "The mill is three miles downstream.", "no one on foot covers 3 miles in 10 minutes"),
    ("We walk to the mill in twenty minutes", "The mill is a mile downstream.", None),
    ("I ride to the fort before midnight", "It is 9:00 p.m. The fort is twenty miles north.", None),  # 20 miles in 3 hours on a horse
])
def test_no_journey_is_faster_than_a_car_a_horse_or_a_runner_can_go(line, scene, refused):
    assert impossible_in_scene(line, scene) == refused


def test_the_speed_limits_are_past_any_vehicle_of_the_games_eras():
    assert SPEED_LIMIT_MPH["car"] >= 100 and SPEED_LIMIT_MPH["ride"] >= 30 and SPEED_LIMIT_MPH["foot"] >= 15


# ---- forestalling what is already done -------------------------------------------------------------

@pytest.mark.parametrize("line, scene, refused", [
    ("Oskar hurries to the south gate and stops the courier before he rides out with that letter.",
     "The duke's courier rode out of the south gate at dawn yesterday on a fresh horse. It is now noon.", "they are already gone"),
    ("Oskar hurries to the south gate and stops the courier before he rides out with that letter.",
     "The duke's courier is saddling his horse by the south gate.", None),
    ("Eddie sprints down the pier and jumps aboard the Carolina before she gets away.",
     "The steamer Carolina cast off from the pier an hour ago and is a smudge of smoke out at sea.", "they are already gone"),
    ("Marisol argues for Tobin's pardon before the sentence is carried out.",
     "Young Tobin was hanged at dawn for the theft. It is now noon.", "the sentence was already carried out"),
    ("Marisol argues for Tobin's pardon before the sentence is carried out.",
     "Young Tobin will be hanged at dawn for the theft. It is now midnight.", None),
    ("Lottie shuts the valve before the boiler blows.", "The Number 9's boiler exploded at dawn; the engine is scrap.", "it is already wrecked"),
    ("Lottie shuts the valve before the boiler blows.", "The Number 9's boiler is rattling; it was serviced yesterday.", None),
    ("Could we have stopped him before he left?", "The courier rode off an hour ago.", None),  # a question, not an act
])
def test_nothing_is_forestalled_that_the_scene_says_is_done(line, scene, refused):
    assert impossible_in_scene(line, scene) == refused


# ---- what the scene says went where no hand reaches, and shots phrased as they are said ------------

def test_a_key_the_dog_swallowed_is_not_taken_off_its_hook():
    scene = "The only key to the cell was swallowed by the marshal's dog, which bolted hours ago. The hook is bare."
    assert impossible_in_scene("Lottie takes the cell key off the hook and unlocks the cell.", scene) == "the key was swallowed"
    assert impossible_in_scene("Lottie takes the hairpin from her hat and picks the cell lock.", scene) is None


def test_a_shot_squeezed_off_is_still_a_shot():
    scene = "Dutch spots the outlaw on the far side of the valley, a good two miles off."
    assert impossible_in_scene("Dutch draws his Colt and squeezes off a shot at the rider.", scene) == "no handgun reaches 2 miles"
    assert impossible_in_scene("Dutch draws his Colt and squeezes off a shot at the rider.", "The outlaw is forty feet away.") is None


@pytest.mark.parametrize("line, refused", [
    ("I flip the camera round and check the little screen on the back to see whether the face showed up.", True),
    ("I hide the camera behind the folding screen.", False),  # a screen in a room, not on a camera
])
def test_no_camera_of_the_twenties_shows_a_picture_on_its_back(line, refused):
    assert (impossible_in_era(line, "Arkham.", 1925) is not None) == refused


@pytest.mark.parametrize("line, refused", [
    ("Dutch whistles for Biscuit, swings up into the saddle and gallops after the robbers.", "the scene says Biscuit was dead"),
    ("Dutch swings up into the saddle and gallops after the robbers.", "the scene says the horse was dead"),  # the one mount there was
    ("Dutch takes a horse from the corral, swings up into the saddle and gallops after the robbers.", None),  # another mount
    ("Dutch kneels by Biscuit and takes the saddlebags off him.", None),  # what is left of the dead
])
def test_no_one_gallops_off_on_a_horse_the_scene_says_lies_dead(line, refused):
    scene = "Dutch's horse Biscuit was shot out from under him an hour ago and lies dead in the wash."
    assert impossible_in_scene(line, scene, "Dutch") == refused


def test_a_name_after_a_thing_that_is_no_beast_is_not_that_thing():
    from pipelines.scene_state import gone_things

    assert gone_things("The wagon Lottie drove was smashed on the rocks.") == {"wagon": "smashed"}


DRAIN = "The only way into the chapel is a flooded drain, a twenty-minute crawl through black water with no air pockets anywhere."


@pytest.mark.parametrize("line, scene, refused", [
    ("Eddie fills his lungs, holds his breath and crawls the whole drain underwater.", DRAIN, "no one holds their breath for 20 minutes"),
    ("Eddie holds his breath and crawls through.", DRAIN.replace("twenty", "two"), None),              # a short way
    ("Eddie straps on the diving helmet and crawls through underwater.", DRAIN, None),                 # air brought along
    ("Eddie holds his breath and crawls through.", DRAIN.replace(" with no air pockets anywhere", ""), None),  # air on the way
])
def test_no_breath_lasts_a_way_underwater_the_scene_says_is_longer(line, scene, refused):
    assert impossible_in_scene(line, scene) == refused


JOB = "The job needs a lookout at the inn's front door and someone picking the counting-house lock across town, half an hour's walk away."


@pytest.mark.parametrize("line, scene, refused", [
    ("Brisa keeps watch on the inn's door and at the same time picks the counting-house lock across town.", JOB, "no one is in two places at once"),
    ("Brisa keeps watch on the inn's door while Oskar picks the lock across town at the same time.", JOB, None),  # two bodies
    ("Brisa hums and at the same time picks the lock.", "A locked door. The town is across the river, two miles away.", None),  # one place
])
def test_no_one_is_in_two_places_far_apart_at_once(line, scene, refused):
    assert impossible_in_scene(line, scene) == refused


@pytest.mark.parametrize("line, scene, refused", [
    ("Hosea wraps his arms round the safe and carries it up the stairs by himself.", "The bank's iron safe weighs well over half a ton.",
     "no one carries 1,000 pounds"),
    ("Hosea and Dutch carry the safe up the stairs together.", "The bank's iron safe weighs well over half a ton.", None),  # many hands
    ("I carry the sack of flour up the stairs.", "The sack weighs a hundred pounds.", None),
    ("Marisol hoists the wagon, oxen and all, onto her back and carries it over the ford.", "A wagon of iron ingots is stuck at the ford.",
     "no one carries a wagon"),
    ("Marisol carries the wounded boy to the wagon.", "A wagon waits by the ford.", None),  # the wagon is where he goes
])
def test_no_one_carries_half_a_ton_or_a_wagon(line, scene, refused):
    assert impossible_in_scene(line, scene) == refused


@pytest.mark.parametrize("line, scene, refused", [
    ("Keth draws his longbow and puts a shaft into the captain on that barge.", "The barge rounded the bend two miles downriver.",
     "no bow or throw reaches 2 miles"),
    ("Pip skips across the bridge to the tollhouse.", "The toll bridge's cables were cut last night; the span lies in the river.", "the bridge is down"),
    ("Keth squeezes through the drainpipe into the warehouse.", "The only opening is a clay drainpipe barely two inches across.",
     "no body fits through a drainpipe that narrow"),
    ("Margaret opens the Blackwood diary and reads the entry.", "Federal agents seized the Blackwood diary yesterday.", "the diary was taken"),
    ("I open the chest.", "The bandits took the gold but left the chest.", None),  # what was left behind
    ("Brisa sorts through the ash and reads the last letter.", "He fed all his letters to the fire; nothing is left but ash.",
     "the letters were burned to ash"),
    ("Keth cups a hand to his ear and listens to what the two on the tower roof are saying.",
     "A mile across the valley two figures talk quietly on a watchtower roof.", "no ear makes out words a mile off"),
    ("I listen at the door to what the guards are saying.", "Two guards talk behind the door, ten feet away.", None),
])
def test_distances_down_a_river_cut_bridges_pipes_seized_books_burned_letters_and_far_talk(line, scene, refused):
    assert impossible_in_scene(line, scene) == refused


@pytest.mark.parametrize("line, scene, actor, dark, refused", [
    ("Dutch draws his Colt and plugs that lookout up on the mesa.", "A rifleman on a mesa nearly two miles across the flats.", None, False,
     "no handgun reaches 2 miles"),
    ("Tomás buys a ticket and hops aboard the midnight express.", "The midnight express pulled out twenty minutes ago; the next train is at six.",
     None, False, "the express left long ago"),
    ("Tomás hops aboard the midnight express.", "The midnight express pulls out in twenty minutes.", None, False, None),
    ("Eddie squeezes himself through the duct into the records room.", "A vent grille about the size of a shoebox lid opens onto a narrow duct.",
     None, False, "no body fits through a duct that narrow"),
    ("Hosea sits down at the piano and plays a hymn.", "The saloon piano was gutted last winter: every key was pried out and burned.",
     None, False, "the scene says the piano was gutted"),
    ("Brisa gets to work on the lock with her thieves' tools.", "A seamless stone door with no keyhole, handle or hinge. It opens to a word.",
     None, False, "there is no lock to pick"),
    ("Brisa picks the lock.", "A heavy oak door with an iron lock. There is no window.", None, False, None),
    ("Pip whirls the rope and flings it across to snag the pine on the far side.", "The gap is about 120 feet wide; the only rope is a single 50-foot coil.",
     None, False, "a 50-foot rope does not reach across 120 feet"),
    ("Pip flings the rope across the stream to Keth.", "The stream is ten feet wide. Pip has a 50-foot coil of rope.", None, False, None),
    ("Keth finds the ledger by touch, flips it open and reads the names.", "In the sealed hold there is no light at all.", "Keth", True,
     "it is too dark to read anything without a light"),
    ("Keth runs his fingers over the carved letters and reads the name.", "In the sealed hold there is no light at all.", "Keth", True, None),
])
def test_the_kinds_read_from_fresh32s_misses(line, scene, actor, dark, refused):
    assert impossible_in_scene(line, scene, actor, dark) == refused


def test_a_fish_gutted_for_supper_is_still_a_fish():
    assert impossible_in_scene("I cook the fish.", "The fish was gutted and cleaned.") is None


@pytest.mark.parametrize("line, scene, actor, refused", [
    # a weapon the scene says was taken, used without naming it, the owner named earlier in the sentence
    ("Dutch draws and shoots the lock off the cell door.",
     "Dutch is locked in a cell; the sheriff took his Colt and rifle and locked them in the safe.", "Dutch Calloway", "the colt was taken"),
    ("Dutch draws his knife and works at the lock.",
     "Dutch is locked in a cell; the sheriff took his Colt and rifle and locked them in the safe.", "Dutch Calloway", None),
    # a weight the scene gives without a number
    ("Marisol gets her shoulder under the gunwale and heaves the whole barge upright by herself.",
     "A grain barge, sixty feet of oak and many tons of wet grain, has capsized in the shallows.", None, "no one lifts many tons"),
    ("Marisol heaves the sack upright.", "A sack of grain has tipped over by the barge.", None, None),
    # there and back against a clock said in words
    ("I'll drive back to Arkham, pick up the professor and bring him here before midnight.",
     "It is nine in the evening, three hundred miles from Arkham. The ritual is at midnight.", None,
     "no motor car covers 600 miles there and back before midnight"),
    ("I drive to Arkham in the Ford before midnight.", "It is nine in the evening, three hundred miles from Arkham. The ritual is at midnight.",
     None, None),
    ("I drive to Arkham and get there in two hours.", "It is nine in the evening, three hundred miles from Arkham.", None,
     "no motor car covers 300 miles in 2 hours"),
    # water from a source the scene says is dry; an empty canteen is filled, not drunk from
    ("Ilya drops the bucket down the well and hauls up some water for the horses.", "Its well went dry two summers ago.", None,
     "the scene says the well is dry"),
    ("I drop a stone down the well to hear how deep it is.", "Its well went dry two summers ago.", None, None),
    ("I take a long drink from my canteen.", "Your canteen has been empty since noon.", None, "the scene says the canteen is empty"),
    ("I take a long drink from my canteen.", "Your canteen is half empty.", None, None),
    ("I ride on and fill my canteen at the water hole.", "Dutch's canteen went dry an hour ago and the water hole is half a day's ride away.", None, None),
    ("I keep riding till the water hole.", "Dutch's canteen went dry an hour ago and the water hole is half a day's ride away.", None, None),
    ("I fill my waterskin at the spring.", "The creek bed is dry but a spring bubbles beside the oak.", None, None),
    ("I fill my waterskin at the spring.", "The creek bed is dry, and the spring has dried up too.", None, "the scene says the spring is dry"),
])
def test_the_kinds_read_from_fresh33s_misses(line, scene, actor, refused):
    assert impossible_in_scene(line, scene, actor) == refused


@pytest.mark.parametrize("line, scene, actor, refused", [
    # one act at each of two places the scene sets far apart at the same hour
    ("Ilya stands guard at the north gate and keeps watch at the south gate too, the whole night.",
     "Wexley has two gates, north and south, half a mile apart, and the captain wants both watched all night.", None,
     "no one is in two places at once"),
    ("Pip plays his set at the Heron and listens in at the warehouse at the same time.",
     "Pip plays the Heron's common room all evening, and the meeting is in a warehouse on the far side of the city at the same hour.", None,
     "no one is in two places at once"),
    ("I walk to the north gate and check the south gate too.", "Wexley has two gates, north and south, half a mile apart.", None, None),
    # a breath held longer than anyone can: a swim timed in the scene, gas that takes a while to clear
    ("Fine, I take a big breath and swim the whole tunnel.",
     "The only way on is a flooded tunnel the map marks as an hour's swim, with no air pocket anywhere along it.", None,
     "no one holds their breath for 1 hour"),
    ("Tomás holds his breath and keeps searching the shelves until it clears.",
     "Choking gas fills the cellar; it will take a good twenty minutes to clear.", None, "no one holds their breath for 20 minutes"),
    ("Tomás holds his breath and dashes in to grab the ledger.", "Choking gas fills the cellar; it will take a good twenty minutes to clear.", None, None),
    # a tongue or script the scene says no one, or this character, ever learned
    ("Margaret reads the tablet aloud for us.", "The clay tablet is covered in a script that no living scholar has ever deciphered.", "Margaret Ashby",
     "no one here can read or speak it"),
    ("Marisol reads the warning out to the others.", "Over the door is a warning in Aklo, a tongue Marisol has never learned.", "Marisol Vane",
     "Marisol never learned it"),
    ("Keth reads the warning out to the others.", "Over the door is a warning in Aklo, a tongue Marisol has never learned.", "Keth", None),
    ("Hosea gives them the whole sermon in Cantonese.", "The track gang speak only Cantonese, a language Hosea has never learned a word of.",
     "Hosea Grant", "Hosea never learned it"),
    ("Margaret copies the tablet's signs into her notebook.", "The clay tablet is covered in a script that no living scholar has ever deciphered.",
     "Margaret Ashby", None),
    # the dead answer no one and come round for no first aid; a guard out cold can be shaken awake
    ("I shake him by the shoulders and ask him who took the satchel.",
     "On the road lies a courier who was killed by an arrow yesterday; he is cold and stiff.", None, "the courier is dead"),
    ("Margaret kneels and works on him with first aid to bring him round.",
     "The caretaker lies on his kitchen floor, cold and stiff; the doctor says he has been dead since yesterday morning.", None,
     "no one brings the dead round"),
    ("I shake him awake and ask him where the key is.", "The guard lies out cold by the gate.", None, None),
    ("Margaret kneels and works on him with first aid.", "The caretaker lies on his kitchen floor, bleeding and groaning.", None, None),
    # "at nine" after the scene's own clock
    ("Tomás floors the Ford and gets to Union Station before she boards.",
     "It is eight in the evening in Arkham, and the witness boards the express at Union Station at nine, nearly a thousand miles away.", None,
     "no motor car covers 1000 miles in 1 hour"),
])
def test_the_kinds_read_from_imp5s_misses(line, scene, actor, refused):
    assert impossible_in_scene(line, scene, actor) == refused


@pytest.mark.parametrize("line, refused", [
    ("Marisol lays hands on the stump and grows his hand back.", "no lost hand or limb grows back"),
    ("By morning the two fingers should have grown back, right?", "no lost hand or limb grows back"),
    ("I let my beard grow back.", None),
])
def test_no_lost_limb_grows_back(line, refused):
    assert impossible_act(line) == refused


@pytest.mark.parametrize("line, what", [
    ("Dutch lays his hands on the kid and prays the bullet out, same as the preacher does.", "a healing miracle"),
    ("Keth raises his bow to the clouds and calls down lightning on the smugglers' boat.", "commanding the weather"),
    ("Lottie stretches out her hands and conjures a gust of wind to blow the fire back.", "commanding the weather"),
    ("I call the horses in before the storm.", None),
])
def test_prayers_that_heal_and_weather_at_a_word_are_magic(line, what):
    from pipelines.impossible_acts import magic_act

    assert magic_act(line) == what


@pytest.mark.parametrize("line, scene, actor, refused", [
    ("Hosea pumps the water out of Amos's chest and breathes into him until he comes back.",
     "They hauled Amos out of the flooded shaft. He was under for over two hours, and he is cold and stiff.", "Hosea Grant",
     "no one brings the dead round"),
    ("I breathe into him until he comes back.", "Amos lies on the bank, not breathing; he went under a minute ago.", None, None),
    # money the scene says the actor does not have
    ('Lottie slaps five hundred dollars on the judge\'s desk. "There\'s his bail."',
     "The bail is five hundred dollars. Lottie has three dollars and change to her name.", "Lottie Hale", "the scene says Lottie has three dollars"),
    ("Lottie slaps two dollars on the bar.", "Lottie has three dollars and change to her name.", "Lottie Hale", None),
    ("Dutch pays the fifty dollars.", "Lottie has three dollars and change to her name.", "Dutch Calloway", None),
    ("Lottie borrows five hundred dollars from the bank and pays the bail.", "Lottie has three dollars to her name.", "Lottie Hale", None),
])
def test_the_kinds_read_from_fresh34s_misses(line, scene, actor, refused):
    assert impossible_in_scene(line, scene, actor) == refused
