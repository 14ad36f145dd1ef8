"""Kinds of impossible act: each refused in several wordings, with its reason; ordinary acts never."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.decide.impossible import (Reason, impossible_act, impossible_in_era, impossible_in_scene, impossible_power,
                                         impossible_without_magic, kinds, magic_act, named_spell)

KIND_LINES = {
    "move_huge": ["I lift the church over my head.", "Grog hoists the whole tavern onto his back.", "I pick the lighthouse up and carry it off.",
                  "Dutch throws the locomotive into the river."],
    "throw_vehicle": ["I throw the wagon at the guards.", "Ilya hurls the stagecoach over the wall."],
    "walk_on_water": ["I walk across the lake to the island.", "I run on the water to the far shore.", "I stroll across the sky."],
    "fly_by_flapping": ["I flap my arms and fly up to the bell tower", "Grog flaps his arms to soar over the wall."],
    "breath_for_hours": ["I hold my breath for an hour and wait on the bottom.", "I hold my breath until dawn."],
    "outrun_the_fast": ["I outrun the train to the next station.", "I outpace the bullet."],
    "catch_bullet": ["I catch the bullet out of the air.", "I snatch the bullet in mid-air."],
    "through_solid": ["I walk straight through the wall.", "I squeeze through the keyhole."],
    "see_through_solid": ["I look through the wall to see who is there.", "I peer through the floor into the cellar."],
    "regrow_limb": ["I grow my hand back.", "Grog regrows his arm back overnight."],
    "hold_back_water": ["I hold back the river with my hands.", "I push back the tide."],
    "read_ash": ["I read the letter from the ashes.", "I read the words in the ash."],
    "the_past": ["I travel back in time to stop him.", "I go back in time to yesterday."],
    "two_places": ["I stand guard at the gate and in two places at once watch the vault."],
}


@pytest.mark.parametrize("kind,line", [(k, line) for k, lines in KIND_LINES.items() for line in lines])
def test_each_kind_is_refused_with_its_reason(kind, line):
    why = impossible_act(line)
    assert isinstance(why, Reason) and why.kind == kind and len(why) > 10, (line, why)


def test_every_line_kind_in_the_data_is_tested():
    assert {k["id"] for k in kinds("act")} | {k["id"] for k in kinds("phrase")} == set(KIND_LINES)


ORDINARY = [
    "I hop off the boat", "Could one of us carry it until she returns?", "I cast Detect Magic.", "I lift Beau up to the branch",
    "I'm not a rogue.", "I throw open the tavern door.", "I carry the model ship to the captain.", "I hoist the crate onto my back.",
    "I walk across the frozen lake.", "I walk across the bridge over the river.", "I hold my breath and dive.",
    "I hold my breath for a minute.", "I walk through the door in the wall.", "I look through the crack in the wall.",
    "Can I lift the church?", "He lifts the house with his magic.", "I don't think I could lift the house.",
    "If I walked on water, they'd worship me.", "I run to the river.", "I throw the rock into the lake.",
    "I look at the wall.", "Jester runs up and casts Cure Wounds.", "I grab the bullet from the table.",
    "I read the letter by the fire.", "I walk to the tower.", "I climb the tower.", "I pick up the toy house.",
]


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_acts_are_not_refused(line):
    assert impossible_act(line) is None
    assert impossible_in_scene(line, "There's no boats at the dock that are being manned. The river is forty feet wide.", "Beau") is None
    assert impossible_in_era(line, "A tavern in 1890.") is None


# ---- the scene's numbers --------------------------------------------------------------------------
@pytest.mark.parametrize("line,scene,kind,said", [
    ("I jump across the chasm.", "The chasm is two hundred feet across.", "jump_gap", "200 feet"),
    ("I take a run and leap over the gap.", "A 60-foot gap yawns between the roofs.", "jump_gap", "60 feet"),
    ("I vault across to the far ledge.", "The far side is a hundred and fifty feet across the ravine.", "jump_gap", "150 feet"),
    ("I shoot the rider with my revolver.", "The rider is two miles away across the plain.", "shot_range", "2 miles"),
    ("I loose an arrow at the lookout.", "The lookout stands half a mile off on the ridge.", "shot_range", "2,640 feet"),
    ("I fire at the ship.", "The ship is five miles out, far off on the horizon.", "shot_range", "5 miles"),
    ("I lift the anchor.", "The iron anchor weighs two tons.", "lift_tons", "2 tons"),
    ("I pick up the statue and carry it.", "The bronze statue weighs three thousand pounds.", "lift_tons", "1.5 tons"),
])
def test_a_number_the_scene_states_past_any_body(line, scene, kind, said):
    why = impossible_in_scene(line, scene)
    assert why is not None and why.kind == kind and said in why, why


@pytest.mark.parametrize("line,scene", [
    ("I jump across the stream.", "The stream is six feet across."),
    ("I jump across the chasm.", "The chasm is two hundred feet deep."),  # deep, not across: no width stated
    ("I shoot the bandit.", "The bandit is thirty feet away; the town is two miles off."),
    ("I jump across the gap with my rope.", "The gap is sixty feet across."),
    ("We lift the anchor together.", "The iron anchor weighs two tons."),
    ("I lift the crate.", "The crate weighs fifty pounds."),
    ("Can I jump across?", "The chasm is two hundred feet across."),
])
def test_numbers_within_reach_or_acts_with_help_are_left_to_the_dice(line, scene):
    assert impossible_in_scene(line, scene) is None


def test_reading_in_total_dark_only_for_one_who_needs_light():
    scene = "The cellar is pitch black."
    assert impossible_in_scene("I read the letter.", scene, "Ilya", blind_in_dark=True).kind == "read_in_dark"
    assert impossible_in_scene("I read the letter.", scene, "Ilya", blind_in_dark=False) is None
    assert impossible_in_scene("I light a candle and read the letter.", scene, "Ilya", blind_in_dark=True) is None


# ---- magic and era ---------------------------------------------------------------------------------
@pytest.mark.parametrize("line,what", [
    ("I cast fireball into the middle of them.", "a spell"), ("I cast a spell on the guard.", "a spell"),
    ("I cast Detect Magic.", "a spell"), ("I reach out telepathically to the captain.", "telepathy"),
    ("I teleport behind the guard.", "teleporting"), ("I read his mind.", "telepathy"),
])
def test_magic_acts_are_named(line, what):
    assert magic_act(line) == what


@pytest.mark.parametrize("line", ["I cast my line into the river.", "Jester casts Cure Wounds.", "Can I cast a spell?",
                                  "I don't cast anything.", "He said he'd cast fireball.", "I'm not a rogue."])
def test_not_the_speakers_magic(line):
    assert magic_act(line) is None


def test_magic_is_refused_only_to_those_without_it():
    assert impossible_without_magic("I cast fireball.", "Beau Lionett", ["Beau Lionett"]) == "Beau has no magic for a spell"
    assert impossible_without_magic("I cast fireball.", "Caleb", ["Beau Lionett"]) is None
    assert impossible_without_magic("I punch him.", "Beau Lionett", ["Beau Lionett"]) is None


@pytest.mark.parametrize("line,scene,year,what", [
    ("I call the sheriff on my cell phone.", "A farm road, 1926.", None, "mobile phones in 1926"),
    ("I pull out my flashlight.", "", 1870, "electric torches"),
    ("I take a photo with my camera.", "Dodge City, 1830.", None, "cameras in 1830"),
    ("I use the computer to search the records.", "", 1925, "computers in the 1920s"),
    ("Hosea climbs into the caboose and radios the depot for a relief engine.", "The winter of 1879, snowed in.", None, "no radio in 1879"),
    ("I'll phone the marshal in Tucson.", "Tombstone, 1872.", None, "no telephones in 1872"),
    ("ok dutch jumps in a pickup truck n floors it after em", "1879, Arizona Territory.", None, "no motor cars in 1879"),
])
def test_things_the_era_does_not_have(line, scene, year, what):
    why = impossible_in_era(line, scene, year, "the 1920s" if year == 1925 else "the West")
    assert why is not None and why.kind == "era" and what in why, why


@pytest.mark.parametrize("line,scene,year", [
    ("I call the sheriff on my cell phone.", "Downtown, 2015.", None),   # the scene's year has them
    ("I pick up the telephone.", "The hotel lobby has a telephone on the desk.", 1870),  # the scene says there is one
    ("Google reported a weird influx of searches.", "", 1500),           # table talk: no act uses it
    ("Check your Twitter.", "", 1500), ("Send your emails.", "", 1500),
    ("I didn't look at my phone.", "", 1500), ("Do you have a phone?", "", 1500),
    ("The radio is dead.", "", 1879), ("My radio was stolen last week.", "", 1879),  # the thing named, not used
    ("Hosea radios the depot for a relief engine.", "The winter of 1925.", None),   # the year has it
])
def test_table_talk_and_things_the_scene_has_are_not_refused(line, scene, year):
    assert impossible_in_era(line, scene, year, "this world") is None


# ---- distance, time and voice the scene states ------------------------------------------------------
@pytest.mark.parametrize("line,scene,kind,said", [
    ("I ride to Varrow and warn the garrison before the gates shut.",
     "The gates of Varrow close in twenty minutes. Varrow lies fifty miles west across the downs.", "travel_time", "50 miles in 20 minutes"),
    ("We hurry to the quay before the ferry leaves.", "It is 6:40. The last ferry leaves at seven sharp from the quay, nine miles away.",
     "travel_time", "on foot"),
    ("I yell to the shepherd to get his flock off the hill.", "The shepherd sits on the far hillside, two miles off.", "shout_range", "2 miles"),
    ("I creep close and overhear what the smugglers are saying.", "The smugglers' camp fire burns a mile away on the beach.",
     "overhear", "a mile away"),
    ("I toss the grapnel line out to the raft.", "The raft drifts four hundred feet out from the jetty.", "throw_reach", "400 feet"),
])
def test_a_journey_a_shout_or_a_throw_past_what_the_scene_allows(line, scene, kind, said):
    why = impossible_in_scene(line, scene, "Ilya Thorncastle")
    assert why is not None and why.kind == kind and said in why, why


@pytest.mark.parametrize("line,scene", [
    ("I ride to Varrow before the gates shut.", "The gates of Varrow close in two hours. Varrow lies ten miles west."),
    ("I yell to the shepherd.", "The shepherd sits on the wall, forty feet away."),
    ("I listen for anything moving out there.", "The smugglers' camp fire burns a mile away on the beach."),  # no talk to follow
    ("I throw the rope to the raft.", "The raft drifts thirty feet out from the jetty."),
    ("Could we reach Varrow in time?", "The gates of Varrow close in twenty minutes. Varrow lies fifty miles west."),
])
def test_what_the_numbers_allow_is_left_to_the_dice(line, scene):
    assert impossible_in_scene(line, scene, "Ilya Thorncastle") is None


@pytest.mark.parametrize("line,scene,said", [
    ("I cross the footbridge to the mill.", "Beyond the hedge the old footbridge has collapsed into the stream.", "footbridge has collapsed"),
    ("Tess draws a bucket of water from the cistern.", "The cistern under the courtyard ran dry in the summer.", "cistern ran dry"),
    ("I ask the ferryman to take us over.", "The ferryman rode off at first light and has not come back.", "ferryman rode off"),
    # what the scene says something did to it (read from the parse): the act needs it whole, or them alive
    ("we hop on the skiff and row out to the island", "The storm sank the skiff at its mooring; only its mast shows.", "the skiff was sunk"),
    ("Tess goes to the chapel to ask Father Willem about the bells.", "The village buried Father Willem on Sunday.", "Willem was buried"),
])
def test_a_thing_or_person_the_scene_says_is_gone(line, scene, said):
    why = impossible_in_scene(line, scene, "Tess Marrow")
    assert why is not None and said in why, why


@pytest.mark.parametrize("line,scene", [
    ("I walk over to the footbridge and look at the wreck.", "Beyond the hedge the old footbridge has collapsed into the stream."),
    ("I ask the miller where the ferryman went.", "The ferryman rode off at first light."),
    ("I walk across the grass.", "The grass is dry and short."),
])
def test_acts_about_what_is_gone_are_left_to_the_dice(line, scene):
    assert impossible_in_scene(line, scene, "Tess Marrow") is None


# ---- spells and powers the sheet gives --------------------------------------------------------------
SHEETS = {"Dr. Ada Quill": {"spells": ["Shrivelling"], "has": "occultist Shrivelling"},
          "Tess Marrow": {"spells": [], "has": "halfling rogue thieves' tools"},
          "Wren Vale": {"spells": ["Fly", "Cure Wounds"], "has": "sorcerer Fly Cure Wounds"},
          "Bo Hart": {"spells": [], "has": "triton fighter"}}


@pytest.mark.parametrize("actor,line,said", [
    ("Tess Marrow", "Tess ducks behind the cart and casts Misty Step to get past them.", "Tess's sheet has no Misty Step"),
    ("Dr. Ada Quill", "Ada steadies her hands and casts Dominate Person on the clerk.", "spells: Shrivelling"),
    ("Tess Marrow", "Tess jumps off the roof and flies over the square to the clock tower.", "no way to fly"),
    ("Dr. Ada Quill", "Ada stares at him and reads his thoughts to learn the code.", "no way to read minds"),
    ("Tess Marrow", "I turn invisible and walk past the guards.", "no way to turn invisible"),
    ("Tess Marrow", "Tess swims down to the wreck, she can breathe underwater anyway.", "no way to breathe underwater"),
    ("Tess Marrow", "Tess lays hands on the boy and prays to heal his wound.", "no healing magic"),
    ("Tess Marrow", "Tess kneels beside Ada and casts Shrivelling at the cultist.", "Tess's sheet has no Shrivelling"),  # Ada is no subject
    ("Tess Marrow", "Tess hurls a Shrivelling from her open palm at the cultist.", "Tess's sheet has no Shrivelling"),  # Ada's, whatever the verb
])
def test_a_spell_or_power_the_sheet_does_not_give_is_refused(actor, line, said):
    why = impossible_power(line, actor, SHEETS)
    assert why is not None and said in why, why


@pytest.mark.parametrize("actor,line", [
    ("Wren Vale", "Wren casts Fly on herself and flies up to the clock tower."),
    ("Wren Vale", "I cast cure wounds on Tess."),
    ("Dr. Ada Quill", "Ada casts Shrivelling at the cultist."),
    ("Bo Hart", "Bo dives in; he can breathe underwater, he's a triton."),
    ("Tess Marrow", "Tess drinks her potion of healing."),
    ("Tess Marrow", "The arrow flies over the square to the clock tower."),
    ("Tess Marrow", "I wish I could fly over the square."),
    ("Tess Marrow", "Tess casts her net over the crabs."),
    ("Tess Marrow", "Tess lays hands on the thief and drags him back."),
    ("Someone Else", "I turn invisible."),  # no sheet known: nothing to hold the line against
])
def test_what_the_sheet_gives_or_no_power_at_all_is_not_refused(actor, line):
    assert impossible_power(line, actor, SHEETS) is None


def test_a_named_spell_is_read_with_its_words():
    assert named_spell("Brisa kneels, lays her hands on the cut and casts Cure Wounds.", "Brisa Tallowmere") == "Cure Wounds"
    assert named_spell("Eddie grabs Tomás's arm and casts Mend the Flesh on him.", "Eddie Kowalczyk") == "Mend the Flesh"
    assert named_spell("Tomás casts Mend the Flesh.", "Eddie Kowalczyk") is None  # another's act
    assert named_spell("I cast my line into the river.", "Eddie Kowalczyk") is None


@pytest.mark.parametrize("line,scene,what", [
    ("Lottie hot-wires the deputy's automobile.", "Silver Gulch, 1871.", "motor cars in 1871"),
    ("Dutch telegraphs ahead, then calls the judge in Tucson on the telephone.", "Tucson, 1869.", "telephones in 1869"),
    ("I switch on the wireless for news.", "Paris, spring 1890.", "radio in 1890"),
])
def test_a_thing_the_year_lacks_anywhere_in_the_act(line, scene, what):
    why = impossible_in_era(line, scene, None)
    assert why is not None and what in why, why


# ---- properties -------------------------------------------------------------------------------------
_EVERY_KIND_LINE = [line for lines in KIND_LINES.values() for line in lines]
_HARMLESS = st.sampled_from([" and then I look around.", ", quietly.", " Then I wait.", " and I smile.", ", carefully."])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_EVERY_KIND_LINE), st.sampled_from(["Could ", "Can ", "What if ", "Should "]))
def test_asking_about_a_kind_is_never_refused(line, ask):
    question = ask + line[0].lower() + line[1:].rstrip(".") + "?"
    assert impossible_act(question) is None


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(ORDINARY), _HARMLESS)
def test_a_harmless_clause_never_makes_an_ordinary_act_impossible(line, tail):
    assert impossible_act(line.rstrip(".?") + tail) is None


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(codec="ascii"), max_size=120), st.text(alphabet=st.characters(codec="ascii"), max_size=120))
def test_any_text_gives_a_reason_or_none(line, scene):
    for why in (impossible_act(line), impossible_in_scene(line, scene, "Ilya", True), impossible_in_era(line, scene, 1925)):
        assert why is None or (isinstance(why, str) and why.kind)


def test_a_spell_of_the_game_named_in_lower_case_is_still_magic():
    """pf2e's "Heal" is a spell by its plain word: "casts heal on him" is magic a ranger without
    spells cannot work; casting a glance or a fishing line is no spell."""
    from pipelines.decide.impossible import impossible_without_magic

    spells = ("Electric Arc", "Heal", "Soothe")
    assert impossible_without_magic("Keth kneels by the carter and casts heal on him.", "Keth Ashvein", ["Keth Ashvein"], spells)
    assert impossible_without_magic("Keth casts heal on him.", "Keth Ashvein", ["Keth Ashvein"]) is None  # a word the game does not name
    for line in ("Keth casts a glance at the door.", "I cast my line into the river and wait."):
        assert impossible_without_magic(line, "Keth Ashvein", ["Keth Ashvein"], spells) is None
