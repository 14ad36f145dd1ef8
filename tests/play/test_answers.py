"""Questions are answered from the world: NPCs say what they know in their voice, the dead and gone
stay silent, out-of-character requests for hidden facts are turned away, a decided fact stays true,
and a resumed game still knows what was found."""
from __future__ import annotations

import pytest

from gm.agent import GameMaster
from gm.answer import OOC_REFUSAL, STATS_REFUSAL, choose_answer, content_keys, is_recall, remember_decided
from gm.intent import read_intent
from gm.world import Fact, Knowledge, Npc, Thing, World
from pipelines.llm import ScriptedModel

WORLD = World(
    npcs=[
        Npc(name="Ruth Quist", role="the keeper's daughter", voice="clipped, polite", knows=[
            Knowledge(topic="when she last saw her father", answer="four nights ago, at dusk, when he walked out to the lighthouse"),
            Knowledge(topic="what she heard at night", answer="singing inside the tower at high tide", checks=["psychology", "persuade"]),
            Knowledge(topic="the family's debts", answer="they owe the bank", never=True),
        ]),
        Npc(name="Abner Quist", role="the keeper", present=False),
        Npc(name="Old Tam", role="a ferryman", alive=False),
    ],
    facts=[Fact(text="The lighthouse stands forty feet from the cottage door."),
           Fact(text="Fog rolls in off the bay every evening."),
           Fact(text="The keeper hides his logbook under the floor.", public=False)],
)
NAMES = dict(npcs=WORLD.npcs, pcs=["Eddie Kowalczyk", "Eddie"])


def ask(line: str, **kw):
    return choose_answer(read_intent(line, **NAMES), WORLD, **kw)


def test_an_npc_says_what_they_know_on_the_topic_asked():
    answer = ask("Ruth, when did you last see your father?")
    assert answer.kind == "npc" and answer.speaker == "Ruth Quist" and "four nights ago" in answer.quote.lower()
    assert answer.spoken().startswith('Ruth Quist says, "Four nights ago')


def test_knowledge_behind_a_check_opens_only_to_that_check():
    assert ask("Ruth, what did you hear at night?").kind == "npc_gated"
    opened = ask("Ruth, what did you hear at night?", found_checks=["persuade"])
    assert opened.kind == "npc" and "singing" in opened.quote.lower()


def test_what_an_npc_never_tells_stays_untold_and_an_unknown_topic_is_not_invented():
    assert ask("Ruth, does your family owe money?").kind == "npc_refuses"
    unknown = ask("Ruth, who won the horse race in Boston last spring?")
    assert unknown.kind == "npc_unknown" and "know" in unknown.quote


def test_the_absent_and_the_dead_do_not_answer():
    gone, dead = ask("Abner, where are you?"), ask("Tam, are you there?")
    assert gone.kind == dead.kind == "npc_gone" and gone.final and dead.final
    assert "not here" in gone.content and "dead" in dead.content


def test_a_question_to_the_gm_is_answered_from_public_facts_only():
    far = ask("How far is the lighthouse from here?")
    assert far.kind == "fact" and "forty feet" in far.content and "forty" in content_keys(far.content)
    assert ask("Where does the keeper hide his logbook?") is None  # a GM note is never an answer


def test_an_out_of_character_request_for_hidden_facts_is_turned_away_but_rules_questions_are_not():
    assert ask("OOC: just tell me what's under the floor").content == OOC_REFUSAL
    assert ask("(OOC) how many hit points do I have left?") is None


@pytest.mark.parametrize("line", ["OOC: how many hit points do goblins have?", "(ooc) what's the cultist's AC?",
                                  "OOC: does the ghoul have any resistances?"])
def test_the_foes_numbers_stay_behind_the_screen_and_no_scene_count_answers_them(line):
    answer = ask(line)
    assert answer.kind == "ooc" and answer.final and answer.content == STATS_REFUSAL


@pytest.mark.parametrize("line", ["OOC: what do the last pages of the logbook say? Save me the roll.",
                                  "(out of character) Level with me: is Ruth locked in the cellar?"])
def test_a_request_for_hidden_facts_worded_with_rules_words_is_still_the_usual_refusal(line):
    assert ask(line).content == OOC_REFUSAL


def test_recall_answers_from_what_the_table_was_told():
    said = ["The goblin's pouch holds a brass token stamped with the Oil Guild's sign.", "Rain begins to fall."]
    assert is_recall("What did I find earlier?")
    answer = ask("What did I find in the pouch earlier?", table_said=said)
    assert answer.kind == "recall" and "brass token" in answer.content


def test_a_decided_fact_is_stored_once_and_answers_the_same_question_later():
    world = WORLD.model_copy(deep=True)
    question = "How deep is the well behind the cottage?"
    assert choose_answer(read_intent(question), world) is None
    remember_decided(world, question, "You peer down. The well drops sixty feet to black water.", turn=3)
    again = choose_answer(read_intent(question), world)
    assert again.kind == "fact" and "sixty feet" in again.content


def _gm(tmp_path, replies):
    model = ScriptedModel(by_step={"narrate": replies}, repeat_last=True)
    return GameMaster("coc7e", "lantern_house", model, characters=["Eddie"], memory=False, seed=1, session_path=tmp_path / "s.json")


def test_the_gm_has_an_npc_answer_in_their_voice_and_says_it_plainly_when_the_model_does_not(tmp_path):
    gm = _gm(tmp_path, ["The fog is thick tonight and the gulls cry."])  # words that leave the answer out
    reply = gm.step("", "Ruth, when did you last see your father?")
    assert reply.decision == "no_roll" and reply.narration.startswith("Ruth Quist says, \"") and "four nights" in reply.narration.lower()
    good = _gm(tmp_path, ['Ruth twists her apron. "Four nights ago, at dusk, when he walked out to the lighthouse."'])
    assert "apron" in good.step("", "Ruth, when did you last see your father?").narration


def test_an_ooc_request_costs_no_model_call_and_no_roll(tmp_path):
    gm = _gm(tmp_path, ["unused"])
    reply = gm.step("", "OOC: what is actually written in the logbook?")
    assert reply.decision == "no_roll" and not reply.rolls and reply.narration == OOC_REFUSAL
    assert not [r for r in gm.model.requests if r.get("step") == "narrate"]


def test_what_was_found_is_held_by_the_finder_and_survives_a_resume(tmp_path):
    gm = _gm(tmp_path, ["Eddie looks around the cottage."])
    secret = gm.scenario.secrets[0]
    from gm.world import found
    found(gm.world, secret.text, "Eddie Kowalczyk", turn=0)
    gm.session.revealed.append(secret.id)
    gm.save()
    again = GameMaster.resume(tmp_path / "s.json", ScriptedModel(replies=["x"], repeat_last=True), memory=False)
    assert any(f.source == "outcome" and "Eddie Kowalczyk" in f.about for f in again.world.facts)
    assert again.world.model_dump() == gm.world.model_dump()


@pytest.mark.parametrize("line", ["Abner, where are you?", "Abner, come down!"])
def test_an_absent_npc_is_not_rolled_for_and_does_not_speak(tmp_path, line):
    gm = _gm(tmp_path, ['"I am up here," Abner says.'])
    reply = gm.step("", line)
    assert reply.decision == "no_roll" and "Abner says" not in reply.narration and "not here" in reply.narration


def test_someone_the_prose_names_is_met_when_spoken_to_and_is_dead_or_gone_as_the_prose_says():
    from gm.world.reader import person_named

    prose = ("Captain Aldric Voss, who held the tower, lies dead by the hearth. His sergeant, Mira Dunn, kneels beside the body. "
             "Brother Olan left a note saying he went down to the valley. A grave by the landing is carved \"Martha Crowley, 1831-1867\".")
    voss, mira, olan, martha = (person_named(prose, w) for w in ("Voss", "Mira", "Olan", "Martha"))
    assert voss.name == "Captain Aldric Voss" and not voss.alive
    assert mira.alive and mira.present and not olan.present and olan.alive and not martha.alive
    assert person_named(prose, "Nobody") is None


def test_a_question_about_what_someone_said_asks_the_gm_and_a_title_addresses_its_bearer():
    assert read_intent("Remind me, what did Hilda say Tobin looks like?", npcs=["Hilda Marsh", "Tobin Reed"]).kind == "ask"
    assert read_intent("What did Gus say Mrs. Beaumont pays?", npcs=["Gus"]).kind == "ask"
    assert read_intent("Sheriff, when does the coach get in?", npcs=["Sheriff Tull"]).npc == "Sheriff Tull"


def test_recall_prefers_what_the_gm_said_came_of_it_over_the_players_own_line():
    said = ["Dr. Margaret Hale: I ask Armitage what is stamped on the folio's spine.",
            "Armitage says the spine bears a single word in tarnished gold: Revelations."]
    answer = ask("What was stamped on the folio's spine, again?", table_said=said)
    assert answer.kind == "recall" and "Revelations" in answer.content


def test_a_count_is_answered_by_a_number_of_that_thing_and_nothing_hidden_is_an_answer():
    world = World(facts=[Fact(text="The goblin gate stands forty feet away."), Fact(text="Three goblins squat behind the gate.")])
    assert "Three goblins" in choose_answer(read_intent("How many goblins are there?"), world).content
    secret = ["A tunnel runs from the saloon cellar toward the assay office vault."]
    cellar = World(things=[Thing(name="saloon cellar", where="the saloon", description="whiskey barrels and the tunnel to the assay office")])
    assert choose_answer(read_intent("What is in the saloon cellar?"), cellar, hidden=secret) is None
    assert choose_answer(read_intent("What is in the saloon cellar?"), cellar) is not None


def test_in_a_fight_a_question_out_of_turn_is_answered_and_takes_no_turn(tmp_path):
    from gm.combat import Combat

    gm = GameMaster("dnd5e", "ambush", ScriptedModel(replies=["Tamsin ducks behind the wheel."], repeat_last=True),
                    characters=["Ilya", "Brisa"], memory=False, seed=2, session_path=tmp_path / "a.json")
    fight = Combat.from_json(gm.session.combat)
    waiting = next(s.name for s in gm.sheets if s.name != fight.current.name)
    before = gm.session.combat
    reply = gm.step(waiting, "Tamsin, who wants your oil so badly?")
    assert reply.decision == "no_roll" and not reply.rolls and gm.session.combat == before


def test_what_i_did_is_recalled_in_the_third_person_with_how_the_roll_went():
    said = ["The goblins jeer from behind the gate.",
            "Pip Quillon: I hand Nettlejaw a polished button as my shiny thing.",
            "Brisa Tallowmere: I search the altar for a catch (Investigation: failure)"]
    gave = choose_answer(read_intent("What did I give the chief earlier?"), WORLD, table_said=said, asker="Pip Quillon")
    assert gave.kind == "recall" and gave.content.startswith("Pip hands Nettlejaw a polished button")
    searched = choose_answer(read_intent("What did I find at the altar?"), WORLD, table_said=said, asker="Brisa Tallowmere")
    assert "Investigation roll was a failure" in searched.content


def test_what_was_done_is_recalled_from_the_deed_not_from_a_question_that_names_the_same_one():
    said = ["Pip Quillon: Chief Nettlejaw, what is the riddle?",
            'Chief Nettlejaw says, "What runs but never walks, has a mouth but never talks?"',
            "Pip Quillon: I hand Nettlejaw a polished button as my shiny thing.", "They look around.",
            "Keth Ashvein: We tie the horses at the shrine below the ridge and go up on foot.",
            "The horses crop the grass as you start up the slope."]
    gave = choose_answer(read_intent("What did I give the chief?"), WORLD, table_said=said, asker="Pip Quillon")
    assert gave.kind == "recall" and "button" in gave.content
    left = choose_answer(read_intent("Where'd we leave the horses?"), WORLD, table_said=said, asker="Keth Ashvein")
    assert left.kind == "recall" and "shrine" in left.content


def test_an_npc_speaks_when_named_outside_the_quote_not_when_the_quote_describes_them():
    from gm.narration import voiced

    assert voiced('Armitage frowns. "Professor Pike gave it to us."', "Dr. Henry Armitage")
    assert not voiced('"The head librarian, Dr. Henry Armitage, stands by the case."', "Dr. Henry Armitage")


def test_who_is_answered_by_someone_elses_name_not_by_the_one_asked():
    world = World(npcs=[Npc(name="Odile Varga", role="the curator")], facts=[
        Fact(text="The curator, Odile Varga, dusts a glass case holding a jade mask."),
        Fact(text="Baron Ludo Ferrant, who bequeathed the mask, was buried last spring.")])
    answer = choose_answer(read_intent("Odile, who left the museum this mask?", npcs=world.npcs), world)
    assert answer.kind == "npc" and answer.speaker == "Odile Varga" and "Ferrant" in answer.quote


def test_a_gm_note_stating_a_plain_measure_is_told_when_asked_but_never_one_near_a_secret():
    world = World(facts=[Fact(text="The night train leaves the junction at 9:15.", public=False),
                         Fact(text="The stationmaster keeps a pistol in the ticket drawer at 9:15 every night.", public=False)])
    train = choose_answer(read_intent("When does the night train leave?"), world)
    assert train.kind == "fact" and "9:15" in train.content
    hidden = ["The stationmaster's pistol in the ticket drawer is loaded."]
    assert choose_answer(read_intent("When does the stationmaster check the ticket drawer?"), world, hidden=hidden) is None


def test_what_was_found_is_recalled_from_what_the_gm_said_and_the_later_word_stands():
    said = ["Nadia Voss: I sift through the straw in the loft.",
            "Nadia sifts the straw but turns up only dust.",
            "Under the last bale Nadia finds a tin box holding three silver spoons."]
    answer = choose_answer(read_intent("What did Nadia turn up in the loft before?"), WORLD, table_said=said)
    assert answer.kind == "recall" and "silver spoons" in answer.content
    # the GM's retelling of the attempt is not what came of it
    said = ["Oren Pike: I pry open the sea chest (Investigation: success)", "Oren pries open the sea chest.",
            "Inside, wrapped in oilcloth, lies a brass sextant."]
    found = choose_answer(read_intent("What did Oren find in the sea chest earlier?"), WORLD, table_said=said)
    assert "sextant" in found.content


def test_a_request_or_an_offer_to_an_npc_is_not_answered_with_i_dont_know():
    world = World(npcs=[Npc(name="Bram", role="a porter")])
    names = dict(npcs=world.npcs)
    assert choose_answer(read_intent("Bram, could you lift this trunk onto the cart?", **names), world) is None
    unknown = choose_answer(read_intent("Bram, who owns the grey mare?", **names), world)
    assert unknown.kind == "npc_unknown"


def test_an_out_of_character_question_a_public_number_answers_is_answered_and_the_rest_is_not():
    world = World(era="March 1911", facts=[Fact(text="The mill race runs twelve feet deep below the wheel.")])
    deep = choose_answer(read_intent("OOC: how deep is the mill race?"), world)
    assert deep.kind == "fact" and "twelve feet" in deep.content
    assert "1911" in choose_answer(read_intent("GM, what year is it?"), world).content
    for line in ("OOC: how deep is the mill race really, and what's hidden in it?", "OOC: who drowned the miller?"):
        assert choose_answer(read_intent(line), world).content == OOC_REFUSAL


def test_a_terse_scene_answers_how_tall_by_its_number_with_that_dimension_and_an_npc_tells_a_posted_price():
    world = World(npcs=[Npc(name="Bren Okafor", role="toll-keeper")], facts=[
        Fact(text="Old signal mast on the headland."), Fact(text="Rusted iron, 45 feet tall, ladder missing."),
        Fact(text="The cliff path runs 300 yards down to the cove."), Fact(text="A board by the gate reads: 2 copper a head.")])
    assert "45 feet" in choose_answer(read_intent("Roughly how tall is that mast?"), world).content
    assert choose_answer(read_intent("How deep is the well?"), world) is None  # the path's 300 yards down is no depth
    price = choose_answer(read_intent("Bren, how much to pass for the four of us?", npcs=world.npcs), world)
    assert price.speaker == "Bren Okafor" and "2 copper" in price.quote


def test_one_things_size_or_age_answers_no_other_named_thing_and_a_date_is_no_age():
    world = World(npcs=[Npc(name="Abner Quist", role="the lighthouse keeper")], era="Gull's Rest, October 1925", facts=[
        Fact(text="The lighthouse is about 65 feet tall."), Fact(text="The lighthouse is about 55 years old.")])
    assert choose_answer(read_intent("how tall is the keeper?"), world) is None  # decided as a person's, not the tower's
    assert choose_answer(read_intent("how old is the saloon"), world) is None
    assert "55 years" in choose_answer(read_intent("how old is that lighthouse?"), world).content
    assert choose_answer(read_intent("how old is the chapel?"), World(era="Gull's Rest, October 1925")) is None


def test_the_dead_and_the_gone_are_said_so_with_what_the_scene_says_of_them():
    world = World(npcs=[Npc(name="Isolde Marrow", role="guard captain", present=False), Npc(name="Aldo Crane", role="miller", alive=False)],
                  facts=[Fact(text="Isolde Marrow rode for the capital at dawn and is not expected back for a week."),
                         Fact(text="The miller, Aldo Crane, lies dead at the foot of the ladder.")])
    names = dict(npcs=world.npcs)
    gone = choose_answer(read_intent("Captain Marrow! We need a word about the bandits.", **names), world)
    dead = choose_answer(read_intent("Aldo, who did this to you?", **names), world)
    assert gone.kind == dead.kind == "npc_gone" and gone.final
    assert "not here" in gone.content and "capital" in gone.content and not gone.quote
    assert "dead" in dead.content and "ladder" in dead.content and not dead.quote


@pytest.mark.parametrize("line, fact, key", [
    ("Hilda, how long has the river been this high?", "The river is 80 yards wide here; it has risen every day for six days.", "six"),
    ("How far off are the campfires?", "On the far ridge, five campfires burn half a mile off across the bog.", "half"),
    ("How many windows are boarded up?", "Of the twelve windows facing the street, seven are boarded over.", "seven"),
    ("Sheriff, how long till the next stage?", "The stage runs twice a week and the next one is due Thursday at noon.", "Thursday"),
    ("How much is the reward on that notice?", "A notice board by the door offers 25 gold pieces for news of the ferryman.", "25"),
    ("How many steps up to the roof?", "A stair of twelve stone steps climbs to the broken roof.", "twelve"),
])
def test_the_words_a_reply_must_carry_are_the_kind_of_thing_asked_for(line, fact, key):
    world = World(npcs=[Npc(name="Hilda Brandt"), Npc(name="Sheriff Tull")], facts=[Fact(text=fact)])
    answer = choose_answer(read_intent(line, npcs=world.npcs), world)
    assert answer.keys == [key]


def test_an_npc_tells_what_the_scene_says_they_saw_in_their_own_words():
    world = World(npcs=[Npc(name="Gull", role="fisherman"), Npc(name="the keeper", present=False)], facts=[
        Fact(text="At its far end an old fisherman everyone calls Gull mends his lobster pots alone."),
        Fact(text="Two miles out the lighthouse stands dark for the second night."),
        Fact(text="Gull saw the keeper row out toward Devil Reef at sundown; he has mended nets here since dawn.")])
    answer = choose_answer(read_intent("Do you know where the lighthouse keeper went?", npcs=world.npcs), world)
    assert answer.speaker == "Gull" and "Devil Reef" in answer.quote
    assert answer.quote.startswith("I saw the keeper") and "I have mended" in answer.quote
    assert answer.spoken().startswith('Gull says, "I saw')


def test_what_a_thing_holds_and_a_count_by_another_word_are_answered():
    world = World(facts=[Fact(text="Three barrels stand against the wall; the one nearest the stair has its lid pried off and is full of salted eels."),
                         Fact(text="The cellar is low and damp, lit by a single lamp."),
                         Fact(text="The wall rises thirty feet above the ditch."),
                         Fact(text="Six crossbowmen in green tabards pace the wall-walk.")])
    held = choose_answer(read_intent("What's in the open barrel?"), world)
    assert "salted eels" in held.content and held.keys and set(held.keys) <= {"salted", "eels"}  # what it holds, not "three barrels"
    assert "Six crossbowmen" in choose_answer(read_intent("How many guards are on the wall?"), world).content


def test_recall_keeps_a_quote_whole_with_who_said_it_and_answers_a_players_question_by_what_came_of_it():
    said = ["Ilya Thorncastle: Ilya puts the wyvern scale on the counter. What'll you give for it?",
            "Meska the fence turns the scale in the lamplight and sniffs.", '"Forty gold.', "Not a copper more.", 'Wyvern\'s not dragon."',
            "Ilya Thorncastle: We step outside.", "Through the window you can see Meska wrapping the scale in a rag.",
            "Brisa Tallowmere: We ask the innkeeper which room the silk merchant took.",
            'Widow Pell counts your coins. "Master Corvane? Room five, end of the upstairs hall, on the left."',
            "Brisa Tallowmere: We take our own rooms and wait.", "The common room empties."]
    offer = ask("Remind me what the fence offered for the scale? I want to write it in my ledger.", table_said=said, asker="Ilya Thorncastle")
    assert "Forty gold" in offer.content and "Meska" in offer.content
    room = choose_answer(read_intent("Brisa creeps upstairs. Which door was the merchant's again?", **NAMES), WORLD, table_said=said)
    assert "Room five" in room.content


def test_what_i_saw_is_what_the_gm_said_after_my_line_and_a_named_asker_is_the_one_asking():
    said = ["Keth Ashvein: Keth studies the mud at the bottom of the stairs.",
            "Three sets of boot prints, all going the same way: along the ledge toward the north outflow.",
            "Keth Ashvein: We go down the stairs carefully.", "The steps are slick.",
            "Lottie Shaw: I sit down at the faro table and play a few hands.", "By midnight Lottie is up 42 dollars.",
            "Dutch Calloway: I keep an eye on the door.", "Nobody comes in but the wind."]
    prints = ask("How many sets of boot prints did I see, and which way were they going?", table_said=said, asker="Keth Ashvein")
    assert "Three sets" in prints.content
    won = ask("Lottie asking: remind me what I won at the card table?", table_said=said, asker="Dutch Calloway")
    assert "42 dollars" in won.content


def test_a_question_after_an_act_or_put_to_no_one_is_answered_from_the_scene():
    world = World(facts=[Fact(text="In the glovebox are a road map and the registration card, made out to Dr. Lyman Greer of Arkham."),
                         Fact(text="A green Packard sedan is parked crookedly at the edge of the quarry road."),
                         Fact(text="The barrow's stone door is carved with a frieze of cranes in flight."),
                         Fact(text="Above it, in plain letters worn by rain, runs the inscription ONLY THE UNBURDENED MAY PASS.")])
    whose = choose_answer(read_intent("Tomás pops the glovebox. Whose name is on the registration?"), world)
    assert "Lyman Greer" in whose.content and "Greer" in whose.keys
    says = choose_answer(read_intent("Pip squints up at the writing over the door. What does it say?"), world)
    assert "UNBURDENED" in says.content


def test_an_npc_does_not_recite_their_own_description_and_tells_what_they_know_of_who_someone_is():
    world = World(npcs=[Npc(name="Bessa Quill", role="the boat's cook"), Npc(name="Clementine Duvall", role="singer")], facts=[
        Fact(text="Bessa Quill, the boat's cook, a stout woman with flour to the elbows, stirs a huge pot."),
        Fact(text="Tonight's supper is eel and barley stew with leeks, a copper a bowl."),
        Fact(text="In the corner sits a clean-shaven stranger in a city suit."),
        Fact(text="Clementine knows he is a Pinkerton agent called Amos Reed who came in on Tuesday's stage.")])
    names = dict(npcs=world.npcs, pcs=["Oskar Venn", "Oskar"])
    stew = choose_answer(read_intent("Oskar leans on the counter and asks the cook what's in the pot tonight.", **names), world)
    assert stew.speaker == "Bessa Quill" and "eel and barley" in stew.quote
    who = choose_answer(read_intent("Miss Clementine, who's the dude in the city suit over in the corner?", **names), world)
    assert "Amos Reed" in who.quote


def test_when_a_thing_will_be_ready_is_a_time_ahead_and_my_thing_is_the_askers():
    world = World(npcs=[Npc(name="Garrick Holloway", role="smith")], facts=[
        Fact(text="Garrick Holloway, a bald smith, is hammering a wagon tyre on the anvil."),
        Fact(text="Ilya's longsword, left here yesterday for a new edge, hangs on the rack behind him; Garrick has promised it "
                  "will be ready at sundown today, for 3 silver.")])
    answer = choose_answer(read_intent("Garrick! How's my blade coming along? When can I have it back?", npcs=world.npcs), world,
                           asker="Ilya Thorncastle")
    assert answer.kind == "npc" and "sundown" in answer.quote and answer.keys == ["sundown"]


def test_the_gms_later_word_on_a_question_stands_and_what_a_box_plainly_holds_needs_no_roll():
    from gm.answer import answers_without_dice

    said = ["Brisa Tallowmere: We ask the innkeeper which room the silk merchant took.",
            "The innkeeper is a man with a silver watch, and he takes the silk merchant's silk.",
            'Widow Pell counts your coins twice before she answers. "Master Corvane? Room five, end of the upstairs hall, on the left."',
            "Brisa Tallowmere: We take our own rooms and wait until the inn goes quiet.", "The common room empties."]
    room = choose_answer(read_intent("Brisa creeps upstairs. Which door was the merchant's again?", **NAMES), WORLD, table_said=said)
    assert "Room five" in room.content
    box = World(facts=[Fact(text="Inside lie 37 gold pieces, a silver locket and a folded chart of the coast.")])
    line = read_intent("Ooh. Okay, what's in there, is it just coin?")
    held = choose_answer(line, box)
    assert "locket" in held.content and answers_without_dice(held, line)


def test_a_thing_in_view_is_told_as_a_sentence_not_in_the_world_files_shape():
    """"What does the logbook say about the lamp?" was answered "The lamp (the lamp room): the great lamp,
    unlit for four nights." at the table: the thing's place is said in words."""
    world = World(things=[Thing(name="the lamp", where="the lamp room", description="the great lamp, unlit for four nights")])
    answer = choose_answer(read_intent("Where is the lamp?"), world)
    assert answer is not None and "(" not in answer.content
    assert answer.content.startswith("The lamp is in the lamp room") and "unlit for four nights" in answer.content
    held = World(npcs=[Npc(name="Sheriff Tull", role="the sheriff")], things=[Thing(name="Tull's whiskey", where="Sheriff Tull")])
    said = choose_answer(read_intent("Where is Tull's whiskey?"), held)
    assert said is not None and said.content == "Sheriff Tull has Tull's whiskey."  # held, not "in Sheriff Tull: there"


def test_me_in_a_question_to_an_npc_is_the_one_asking():
    """"Any wires come for me?" asks after the asker's own name: the clerk tells of the wire for them."""
    office = World(npcs=[Npc(name="Amos Whitlock", role="operator")], facts=[
        Fact(text="The stove ticks in the corner and the key clatters now and then."),
        Fact(text="At noon a wire came for Dutch Calloway from the marshal in Tucson: GANG RIDING FOR YUMA.")])
    reading = read_intent("Amos, any wires come for me?", npcs=office.npcs)
    answer = choose_answer(reading, office, asker="Dutch Calloway")
    assert answer is not None and answer.speaker == "Amos Whitlock" and "YUMA" in answer.quote


def test_an_npc_tells_a_scene_sentence_about_someone_else_without_making_it_their_own():
    """"a man who signed himself 'J. Carrow'" is not the archivist signing; an initial ends no sentence."""
    archive = World(npcs=[Npc(name="Professor Ezra Whitcombe", role="archivist")], facts=[
        Fact(text='The Pickering diary was taken out on March 3rd by a man who signed himself "J. Carrow" and gave no address.')])
    reading = read_intent("Professor Whitcombe, who last borrowed the Pickering diary?", npcs=archive.npcs)
    answer = choose_answer(reading, archive, asker="Eddie Kowalczyk")
    assert answer is not None and answer.speaker == "Professor Ezra Whitcombe"
    assert "signed himself" in answer.quote and "Carrow" in answer.quote


def test_a_player_character_the_scene_names_is_no_npc(tmp_path):
    """"Marisol waits with her shield lowered" names the player's own character: she answers no question."""
    from gm.table import Scenario
    scene = Scenario(id="warren", ruleset="pf2e", title="The Warren", opening="",
                     scene="The mouth of the kobold warren. Marisol waits with her shield lowered beside Old Brannoc, a grizzled miner.")
    gm = GameMaster("pf2e", scene, ScriptedModel(by_step={"narrate": ["The wind moans."]}, repeat_last=True),
                    characters=["Marisol Ardent"], memory=False, seed=1, session_path=tmp_path / "w.json")
    assert gm.world.npc("Marisol") is None and gm.world.npc("Brannoc") is not None


def test_a_favour_asked_of_an_npc_is_no_question_to_answer_from_what_they_know():
    assert ask("I tell Ruth we'll find her father, and ask her to wait by the stove.") is None
    assert ask("I ask Ruth to tell me when she last saw her father.").kind == "npc"


def test_a_quote_left_open_never_swallows_the_turns_after_it():
    from gm.answer import _whole_quotes
    said = ['Sheriff Tull stares into his glass. "Someone has been digging next door.', "Dutch Calloway: I order a whiskey.",
            "Dutch leans on the bar.", "Dutch Calloway: I bet ten dollars.", "The dealer turns a card."]
    assert len(_whole_quotes(said)) == 5


def test_a_question_reported_with_to_in_it_is_still_a_question():
    assert ask("I ask Ruth what happened to her father.").kind == "npc"


def test_what_others_freely_tell_of_an_npc_the_npc_knows_of_themselves():
    world = World(npcs=[Npc(name="Silas Vane", role="gambler"),
                        Npc(name="Sheriff Tull", knows=[Knowledge(topic="the gambler", keywords=["vane", "gambler"],
                                                                  answer="Vane rode in three weeks back and wins every night")])])
    answer = choose_answer(read_intent("Mr. Vane, how long you been in town?", npcs=world.npcs), world)
    assert answer.kind == "npc" and answer.speaker == "Silas Vane" and answer.quote.startswith("I rode in three weeks back")


@pytest.mark.parametrize("line", ["Ruth, is there anything you haven't told us?", "Ruth, are you hiding something?",
                                  "What aren't you telling us, Ruth?"])
def test_pressing_one_who_holds_something_back_gets_an_evasion_that_a_check_may_open(line):
    answer = choose_answer(read_intent(line, **NAMES), WORLD)
    assert answer.kind == "npc_gated" and answer.gated_checks == ["psychology", "persuade"] and "singing" not in answer.quote
    opened = choose_answer(read_intent(line, **NAMES), WORLD, found_checks=["persuade"])
    assert opened is None or opened.kind != "npc_gated"


@pytest.mark.parametrize("line, said", [("OOC: what's my Spot Hidden again?", "Eddie Kowalczyk's Spot Hidden: 50%"),
                                        ("(ooc) how good is my Library Use?", "Eddie Kowalczyk's Library Use:")])
def test_out_of_character_a_player_asking_after_their_own_check_is_told_it_from_the_sheet(tmp_path, line, said):
    gm = _gm(tmp_path, ["The fog is thick tonight."])
    reply = gm.step("", line)
    assert reply.decision == "no_roll" and not reply.rolls and reply.narration.startswith(said)
    assert gm.step("", "OOC: is Abner still alive?").narration == OOC_REFUSAL  # the world's hidden side stays hidden


def test_a_why_question_is_answered_by_the_cause_not_by_the_sentence_sharing_its_words():
    """"Why did the miller shut the sluice?" was answered with what the sluice looks like: a text that
    gives a reason (because, so that, for fear of) now weighs for a why."""
    world = World(npcs=[Npc(name="Hobb Trask", role="miller")], facts=[
        Fact(text="The miller shut the sluice gate at noon, and the great wheel stands still over a dry race."),
        Fact(text="Hobb Trask closed it because the reeve's men were coming to count his sacks for the tithe."),
    ])
    answer = choose_answer(read_intent("Why did the miller shut the sluice gate?", npcs=world.npcs), world)
    assert "reeve" in answer.content, answer.content


def test_what_an_npc_told_us_is_never_answered_with_a_players_own_line():
    """Asked "what did the toll-keeper tell us again?", the GM answered with the player's own earlier
    line, which only named the toll-keeper (tmux play, 2026-12-07): what someone said is what the
    table was told, never what a player did."""
    said = ["Keth Ashvein: Keth kneels by the wounded toll-keeper and binds his arm.",
            'The toll-keeper winces. "The smugglers crossed at the old ford, three nights back."',
            "Keth Ashvein: I look across the gorge."]
    answer = choose_answer(read_intent("what did the toll-keeper tell us again?", **NAMES), WORLD, table_said=said)
    assert answer is None or "old ford" in answer.content, answer
    only_mine = ["Keth Ashvein: Keth kneels by the wounded toll-keeper and binds his arm.", "Keth Ashvein: I look across the gorge."]
    mine = choose_answer(read_intent("what did the toll-keeper tell us again?", **NAMES), WORLD, table_said=only_mine)
    assert mine is None or "binds his arm" not in mine.content, mine
    what_i_did = choose_answer(read_intent("what did I do for the toll-keeper again?", **NAMES), WORLD, table_said=only_mine,
                               asker="Keth Ashvein")
    assert what_i_did is not None and "binds his arm" in what_i_did.content  # one's own deed is still recalled


def test_what_an_npc_said_before_is_recalled_word_for_word_or_said_to_be_unsaid():
    """"What did Ruth tell me about her father?" is a memory of this table: her own earlier words,
    never a fresh answer in her voice nor a scene sentence; what she has not spoken of is said so."""
    said = ["Eddie Kowalczyk: Ruth, does your father keep a logbook?",
            'Ruth Quist says, "Four nights ago, at dusk, when he walked out to the lighthouse with his lantern."',
            "Eddie Kowalczyk: I listen at the lighthouse door.",
            "Eddie listens at the door but hears only the surf."]
    father = ask("What did Ruth tell me about her father?", table_said=said)
    assert father.kind == "recall" and father.final and "Four nights ago, at dusk" in father.content
    assert father.content.startswith("Ruth Quist said")
    boats = ask("What did Ruth say about the wrecked boats?", table_said=said)
    assert boats.kind == "recall" and boats.content == "Ruth Quist has not said anything about the wrecked boats yet."
    boats = ask("Wait, what did Ruth say about the wrecked boats? I want to check it against the logbook.", table_said=said)
    assert boats.content == "Ruth Quist has not said anything about the wrecked boats yet."  # the topic ends with its question
    unquoted = ask("What did Ruth tell us?", table_said=["Ruth says her father walked out at dusk."])
    assert unquoted is None or "has not said" not in unquoted.content  # her words, told without quotes, are read as a whole
    assert ask("What did I find at the door?", table_said=said).kind != "recall" or "Ruth" not in ask(
        "What did I find at the door?", table_said=said).content  # one's own doings are not her words


def test_a_span_of_something_else_is_no_answer_to_how_long_of_this():
    """"How long have you worn that badge?" is not answered by "won every hand for three nights"."""
    world = World(npcs=[Npc(name="Sheriff Tull", role="a tired lawman"), Npc(name="Silas Vane", role="gambler")], facts=[
        Fact(text="Silas Vane has won every hand for three nights, and the sheriff looks the other way.")])
    answer = choose_answer(read_intent("Sheriff Tull, how long have you worn that badge?", npcs=world.npcs, pcs=["Dutch"]), world)
    assert answer is not None and "three nights" not in (answer.quote + answer.content)


@pytest.mark.parametrize("line, reply", [
    ('I bow to Ruth. "Sorry for dripping on your floor, miss."', "No harm done."),
    ('I take off my cap and tell Ruth, "We\'ll find him, miss. You stay close behind me."', "I hope so."),
    ("Thank you, Ruth.", "You're welcome."),
    ('"Hail, Ruth! I am Marisol Ardent, sworn to keep this road open."', "Well met."),
])
def test_an_npc_spoken_to_without_a_question_answers_a_courtesy_in_a_word(line, reply):
    answer = ask(line)
    assert answer.kind == "npc_ack" and answer.speaker == "Ruth Quist" and answer.quote == reply
    assert answer.spoken() == f'Ruth Quist says, "{reply}"'


def test_small_talk_the_world_has_no_answer_for_is_answered_in_a_word_and_rolls_nothing(tmp_path):
    """"Howdy, Sheriff. Quiet night?" once rolled Persuasion, and its success told the sheriff's debt."""
    answer = ask("Evening, Ruth. Cold night?")
    assert answer.kind == "npc" and answer.speaker == "Ruth Quist" and answer.quote == "Aye, that it is."
    reply = _gm(tmp_path, ["unused"]).step("", "Evening, Ruth. Cold night?")
    assert reply.decision == "no_roll" and not reply.rolls and "Ruth" in reply.narration
    assert ask("Good morning, Miss Quist. How are you holding up?").quote == "I'm getting by."
    assert ask("Good evening, Ruth!").quote == "Well met."  # a greeting is no remark on the evening


def test_small_talk_never_opens_or_refuses_what_an_npc_keeps_back():
    """"Evening, Miss Quist. Cold night to be out, isn't it?" once got "I'd rather not say. Not to strangers.":
    the weather word reached a topic behind a check."""
    answer = ask("Evening, Miss Quist. Cold night to be out, isn't it?")
    assert answer.quote == "Aye, that it is." and not answer.gated_checks
    asked = ask("Evening, Ruth. Cold night. Where is your father?")
    assert asked.speaker == "Ruth Quist" and asked.quote != "Aye, that it is."  # a real question is still answered


def test_a_remark_that_is_no_courtesy_and_the_absent_get_no_made_up_answer():
    assert ask("Ruth, the fog is coming in.") is None
    assert ask("Abner, sorry to barge in.").kind == "npc_gone"


def test_an_ooc_question_about_ones_own_checks_answers_each_check_named_or_the_one_the_act_takes(tmp_path):
    gm = _gm(tmp_path, ["unused"])
    both = gm.step("", "(OOC) How much Sanity does Eddie have right now, and what's my Spot Hidden?")
    assert both.decision == "no_roll" and "Sanity: 45%" in both.narration and "Spot Hidden: 50%" in both.narration
    swim = gm.step("", "(OOC) does Eddie have anything that would help with swimming?")
    assert "Swim" in swim.narration and not swim.rolls


def test_a_hint_asked_out_of_character_nudges_toward_someone_or_something_never_the_hidden_fact(tmp_path):
    nudge = ask("OOC: I'm stuck, can you give me a hint?")
    assert nudge.kind == "ooc" and nudge.final and "Ruth Quist" in nudge.content and "logbook" not in nudge.content
    gm = _gm(tmp_path, ["unused"])
    both = gm.step("", "(OOC) what's my Spot Hidden? Also can you drop a hint?")
    assert "Spot Hidden: 50%" in both.narration and "nudge" in both.narration and not both.rolls
    for secret in gm.scenario.secrets:
        assert secret.text[:30] not in both.narration


def test_an_ooc_rules_question_or_a_break_is_answered_plainly_not_made_up(tmp_path):
    """The model made up "Bon Mot is a clever goblin..." for a rules question it cannot know."""
    from gm.answer import BREAK_REPLY, RULES_REPLY

    gm = _gm(tmp_path, ["Bon Mot is a clever goblin who tricks Bon Mot."])
    rules = gm.step("", "OOC question: how does a pushed roll work, is it one try? and do I even have it on my sheet")
    assert rules.narration == RULES_REPLY and not rules.rolls
    assert gm.step("", "OOC: quick bathroom break, brb").narration == BREAK_REPLY
    shooting = gm.step("", "OOC: can I reroll a Spot Hidden roll with Luck?")
    assert "Spot Hidden: 50%" in shooting.narration


@pytest.mark.parametrize("line, meant", [
    ('I call through the door: "Mr. Quist? Abner? It\'s all right, your daughter sent us."', "Abner Quist"),
    ('"Ruth, is Abner Quist your father?"', "Ruth Quist"),
    ('"Miss Quist, when did you last see him?"', "Ruth Quist"),
])
def test_a_shared_surname_goes_to_the_one_the_line_also_names_by_their_own_name(line, meant):
    npcs = [Npc(name="Ruth Quist", aliases=["Ruth", "Miss Quist", "Quist", "daughter"]),
            Npc(name="Abner Quist", aliases=["Abner", "Quist", "the keeper"], present=False)]
    assert read_intent(line, npcs=npcs, pcs=["Eddie Kowalczyk", "Eddie"]).npc == meant


def test_words_the_scene_reports_are_said_in_the_first_person():
    """"she says she last saw it on the altar, and that she cannot say where it went" came out of
    Maren's own mouth as "She says she last saw it"."""
    from gm.answer import _in_their_words

    maren = Npc(name="Maren", role="the chapel's elderly keeper")
    said = _in_their_words("she says she last saw it on the altar before the rains, and that she cannot say where it went", maren, own=True)
    assert said == "I last saw it on the altar before the rains, and I cannot say where it went"


def test_what_the_scene_says_an_npc_does_is_told_not_put_in_their_mouth():
    world = World(npcs=[Npc(name="Sheriff Tull", role="a tired lawman")],
                  facts=[Fact(text="Sheriff Tull, leaning on the bar, suddenly finds his whiskey very interesting.")])
    answer = choose_answer(read_intent("Sheriff Tull, why won't you look at the card table?", npcs=world.npcs), world)
    assert answer.speaker == "Sheriff Tull" and not answer.quote
    assert answer.spoken() == "Sheriff Tull, leaning on the bar, suddenly finds his whiskey very interesting."


def test_a_greeting_to_the_company_is_answered_by_someone_there():
    world = World(npcs=[Npc(name="Old Tam", role="a ferryman", alive=False), Npc(name="Ruth Quist", role="the keeper's daughter")])
    answer = choose_answer(read_intent('"Good evening, everyone!"', npcs=world.npcs), world)
    assert answer.speaker == "Ruth Quist" and answer.quote == "Well met."
    assert choose_answer(read_intent('"Nice weather today."', npcs=world.npcs), world) is None


def test_a_courtesy_inside_a_lie_or_a_plea_leaves_the_roll_to_the_decision(tmp_path):
    """"Evening! Her ladyship ordered two dozen tapers" opens with a greeting, and is still a lie to roll for;
    only when the decision rolls nothing does the NPC answer the courtesy."""
    from gm.answer import answers_without_dice

    line = '"Evening, miss! The sheriff sent me, and I\'ll need the lighthouse key."'
    answer = ask(line)
    assert answer is None or not answers_without_dice(answer, read_intent(line, **NAMES))


def test_a_plea_that_asks_keeps_its_roll_and_a_typed_question_after_a_deed_is_answered(tmp_path):
    """"I'll turn them back. Will you lift the barrier?" pleads (no "I hope so."); "whats" is "what's"."""
    assert ask("Ruth, I'll find him. Will you let me into the tower?") is None
    gm = _gm(tmp_path, ["unused"])
    reply = gm.step("", "i hold my lamp up to the window. whats the cottage made of?")
    assert reply.decision == "no_roll" and not reply.rolls


def test_small_talk_about_the_day_is_answered_by_the_news_the_scene_tells():
    world = World(npcs=[Npc(name="Lou Ferrante", role="the bartender")], facts=[
        Fact(text="The bartender, Lou Ferrante, a barrel-chested man with a gold tooth, wipes down the zinc bar."),
        Fact(text="It has been a rough night: the cops raided the place at ten o'clock and smashed half the stock."),
        Fact(text="A piano player with a bandaged hand nurses a gin in the corner.")])
    answer = choose_answer(read_intent("Evening, Lou. Slow night?", npcs=world.npcs), world)
    assert answer.kind == "npc" and answer.speaker == "Lou Ferrante" and "raided" in answer.quote


def test_sympathy_is_thanked_not_forgiven():
    assert ask("I'm so very sorry about your father, Ruth.").quote == "Thank you."
    assert ask('I bow to Ruth. "Sorry for dripping on your floor, miss."').quote == "No harm done."


def test_what_someone_said_is_their_quoted_words_or_that_they_have_said_nothing_never_a_courtesy():
    said = ['Ruth Quist says, "Well met."', "Eddie Kowalczyk: what happened the night the lamp went dark?"]
    assert ask("remind me what Ruth said about the night the lamp went dark?", table_said=said).content == \
        "Ruth Quist has not said anything about the night the lamp went dark yet."
    assert ask("hold on, what did Ruth say just now? i missed it", table_said=["Ruth Quist has been told to wait."]).content == \
        "Ruth Quist has not said anything yet."


def test_a_question_of_how_the_game_works_is_a_rules_question_not_a_hidden_fact(tmp_path):
    gm = _gm(tmp_path, ["unused"])
    rules = gm.step("", "OOC rules question: if I fail a Spot Hidden roll by a lot is that a crit fail?")
    assert "rules question" in rules.narration and not rules.rolls
    assert "find out" in gm.step("", "(OOC) who really chained the lighthouse door?").narration


def test_a_catalogue_line_is_said_as_a_sentence_and_a_question_typed_on_past_its_mark_is_whole():
    world = World(npcs=[Npc(name="Horace Pinkney", role="telegraph operator")],
                  things=[Thing(name="the lighthouse door", description="the lighthouse's iron door, chained from the inside")], facts=[
        Fact(text='This morning Horace took down a wire from Denver for a "Mr. J. Smith, to be called for".'),
        Fact(text="A messenger boy naps on a mail sack.")])
    door = choose_answer(read_intent("What is the lighthouse door made of?", npcs=world.npcs), world)
    assert door.content == "The lighthouse's iron door, chained from the inside."
    wire = choose_answer(read_intent("mornin horace, any telegrams come in today? for a mister smith maybe", npcs=world.npcs), world)
    assert wire.speaker == "Horace Pinkney" and "Denver" in wire.quote


def test_where_were_you_is_answered_by_what_the_scene_says_of_the_one_asked_not_of_another():
    world = World(npcs=[Npc(name="Yselde Pennick", role="card-sharp"), Npc(name="Mattias Kell", role="river-hand")], facts=[
        Fact(text="At a corner table Yselde Pennick, a card-sharp in a violet coat, deals patience to herself."),
        Fact(text="Last night she was at the Duke's Rest gambling den until the watch bell rang three."),
        Fact(text="A drunk river-hand, Mattias Kell, snores against the wall; he spent last night in the watch-house cells.")])
    answer = choose_answer(read_intent("so yselde, where were you last night?", npcs=world.npcs), world)
    assert answer.speaker == "Yselde Pennick" and "Duke's Rest" in answer.quote


TOWN = World(
    npcs=[Npc(name="Silas Vane", role="a gambler in a brocade vest"), Npc(name="Sheriff Tull", role="the town's tired lawman"),
          Npc(name="Ruth Quist", role="the keeper's grown daughter", knows=[
              Knowledge(topic="when she last saw her father", answer="four nights ago, at dusk, when he walked out to the lighthouse")])],
    facts=[Fact(text="At the back table Silas Vane shuffles a deck with one hand and smiles at you."),
           Fact(text="Sheriff Tull, leaning on the bar, finds his whiskey very interesting."),
           Fact(text="The lighthouse door is along the rocks, fifty yards away."),
           Fact(text="The keeper has not lit the lamp for four nights, and two boats have run onto the rocks."),
           Fact(text="The outer wall rises 35 feet from a dry moat."),
           Fact(text="Eleven bodies lie under blankets beside the tracks.")],
)


def ask_town(line: str):
    return choose_answer(read_intent(line, npcs=TOWN.npcs, pcs=["Dutch Calloway"]), TOWN)


@pytest.mark.parametrize("line", ["How tall is the lighthouse?", "How many men are sitting at Vane's table?",
                                  "How many rooms are in the cottage?", "How old is the lighthouse?", "How deep is the water by the door?"])
def test_a_measure_the_scene_never_states_is_left_to_decide_not_told_by_another_number(line):
    # "fifty yards away" tells no height, "one hand" counts no men, "two boats" no rooms, "four nights" no age
    assert ask_town(line) is None


@pytest.mark.parametrize("line, told", [("How far is the lighthouse door?", "fifty yards"), ("How high is the outer wall?", "35 feet"),
                                        ("how many dead are there?", "Eleven bodies")])
def test_a_measure_the_scene_states_is_told_by_the_sentence_that_measures_it_that_way(line, told):
    answer = ask_town(line)
    assert answer is not None and told in answer.content


def test_a_name_asked_by_calling_comes_from_the_one_with_that_calling_or_is_left_to_decide():
    assert ask_town("whats the gamblers name?").content == "The gambler is Silas Vane."
    assert ask_town("What's the name of the bartender?") is None  # the sheriff leans on the bar; he keeps none
    keeper = ask_town("what's the keeper's name?")  # "the keeper's grown daughter" is no keeper
    assert keeper is None or "Ruth" not in keeper.content


def test_a_topic_put_as_when_does_not_answer_whether_something_happened():
    visitors = ask_town("Ruth, did your father have any visitors lately?")
    assert visitors.kind == "npc_unknown" and visitors.quote == "Not that I know of."
    where = ask_town("Ruth, where is your father?")  # when she last saw him tells where he went
    assert where.kind == "npc" and "lighthouse" in where.quote


def test_it_in_a_measure_question_is_the_thing_the_act_before_names():
    world = World(facts=[Fact(text="The old well is forty feet deep."), Fact(text="The horse trough is two feet deep.")])
    answer = choose_answer(read_intent("I lean over the trough with my torch. How deep is it?"), world)
    assert answer is not None and "two feet" in answer.content


def test_the_one_age_a_scene_states_answers_how_old_whatever_the_thing_is_called():
    world = World(facts=[Fact(text="The Colossus of Ammet was raised four hundred years ago."), Fact(text="Gulls wheel over the harbour.")])
    answer = choose_answer(read_intent("how old is that giant statue?"), world)
    assert answer is not None and "four hundred" in answer.content


@pytest.mark.parametrize("line", ["ooc: does my ledger thing do anything mechanically or is it just flavour?",
                                  "ooc: since I'm a wild card I get the wild die on every trait roll right?",
                                  "(ooc: do I have flash powder for my camera?)"])
def test_an_ooc_question_about_ones_own_game_is_not_turned_away_as_a_hidden_fact(line):
    assert choose_answer(read_intent(line, **NAMES), WORLD) is None  # the player's own business: the rules reply, not the refusal


def test_a_line_asking_two_things_gets_both_answers_when_the_world_holds_both():
    world = World(facts=[Fact(text="The gate is a heap of barrels and planks lashed with rope."),
                         Fact(text="Five goblins with spears peer over the planks.")])
    answer = choose_answer(read_intent("I stop back from the gate. what's the gate made of, and how many goblins can I see?"), world)
    assert answer is not None and "barrels" in answer.content and "Five goblins" in answer.content


def test_a_line_asking_two_things_the_world_holds_one_of_is_answered_whole_as_before():
    world = World(facts=[Fact(text="Five goblins with spears peer over the planks.")])
    answer = choose_answer(read_intent("how wide is the bridge, and how many goblins can I see?"), world)
    assert answer is not None and answer.content == "Five goblins with spears peer over the planks."


def test_a_line_recalling_the_tables_past_is_not_split_into_parts():
    from gm.answer import answers_to_parts
    world = World(facts=[Fact(text="Two guards stand at the gate.")])
    assert answers_to_parts(read_intent("what was the password again, and how many guards are there?"), world) == []
    assert [q for q, _ in answers_to_parts(read_intent("how many guards are there, and what's the gate made of?"), world)] == [
        "how many guards are there?", "what's the gate made of?"]


def test_what_a_thing_is_made_of_is_told_by_a_stuff_named_with_it_never_by_another_things():
    world = World(facts=[Fact(text="A ramshackle gate of barrels and planks blocks the bridge."), Fact(text="The bar is polished oak.")])
    assert "barrels and planks" in choose_answer(read_intent("what's the gate made of?"), world).content
    assert choose_answer(read_intent("what's the card table made of?"), world) is None  # decided, not the bar's oak


def test_an_npc_asked_of_one_day_does_not_answer_with_another_and_tells_a_name_by_calling():
    world = World(npcs=[Npc(name="Hiram Stokes", role="smith"), Npc(name="Desk Sergeant Patrick Dolan", role="red-nosed")], facts=[
        Fact(text="Hiram Stokes shod a grey mare for a stranger last Tuesday and put a nicked shoe on her."),
        Fact(text="Detective Lieutenant Henry Voss strides past toward the cells.")])
    names = dict(npcs=world.npcs)
    today = choose_answer(read_intent("Hiram, anybody bring a horse in to be shod today?", **names), world)
    assert today.speaker == "Hiram Stokes" and today.quote == "Not today, no." and "Tuesday" not in today.quote
    from gm.answer import _another_day
    assert _another_day("anybody in lately?", world.facts[0].text) == "" and _another_day("seen him last night?", "He left today.") == "last night"
    own = choose_answer(read_intent("Sergeant, whats the sergeant's name?", **names), world)
    assert own.quote == "Patrick Dolan." and "Voss" not in own.content


def test_an_npc_asked_a_name_the_world_lacks_says_a_decided_one_and_keeps_it():
    model = ScriptedModel(by_step={"narrate": ["Tull shrugs."]}, repeat_last=True)
    gm = GameMaster(None, "copper_flats", model, characters=["Dutch"], memory=False, seed=3)
    first = gm.step("", "Evenin' Sheriff. What's the bartender's name?").narration
    assert first.startswith('Sheriff Tull says, "That\'s ') and "Silas" not in first and "Tull" not in first.split("That's")[1]
    told = first.split("That's ")[1].rstrip('."')
    assert told in gm.step("", "what's the bartender's name?").narration  # the same name, asked again of the GM


def test_a_distance_between_two_things_is_told_only_by_a_sentence_of_one_of_them():
    world = World(facts=[Fact(text="The chapel steps lie up the cliff path, half a mile away."),
                         Fact(text="The lighthouse door is out the back door and along the rocks, fifty yards away.")])
    assert choose_answer(read_intent("how far is it from the door to the altar"), world) is not None  # the door's distance
    assert choose_answer(read_intent("how far is it from the pews to the altar?"), world) is None  # decided, not the steps'
    chained = World(facts=[Fact(text="The lighthouse's iron door is chained from the inside.")])
    assert choose_answer(read_intent("what's the chain on the door made of?"), chained) is None  # the door's iron is no chain's


def test_an_npc_asked_whether_something_is_so_that_they_know_nothing_of_cannot_say_rather_than_greet_back():
    world = World(npcs=[Npc(name="Hesper Lowick", role="egg-seller")], facts=[Fact(text="Hesper Lowick sells six eggs for a copper.")])
    said = choose_answer(read_intent("hi Hesper! is the well water safe to drink?", npcs=world.npcs), world)
    assert said.speaker == "Hesper Lowick" and said.quote == "I couldn't say."
    favour = choose_answer(read_intent("hi Hesper! can you help me carry these?", npcs=world.npcs), world)
    assert favour is None or favour.quote != "I couldn't say."  # a favour asked is no question of fact


def test_an_npc_tells_what_he_saw_of_a_woman_in_his_own_words():
    from gm.answer import _in_their_words
    benedek = Npc(name="Dockmaster Benedek Haroun", role="dockmaster")
    world = World(npcs=[benedek], facts=[Fact(text="Dockmaster Benedek Haroun, an abacus on his belt, holds court on a crate.")])
    said = _in_their_words("Yesterday at dusk he watched a woman with a silver hand board the barge.", benedek, world)
    assert said.startswith("Yesterday at dusk I watched a woman")
    assert "he watched" in _in_their_words("Yesterday a stranger came; he watched the barge.", benedek, world)  # a stranger may be the "he"


@pytest.mark.parametrize("line", ["ooc: is the cold water gonna matter rules-wise or is it just flavour",
                                  "ooc: first time playing pf2e, does talking to them use up any of my actions?",
                                  "ooc: does tomás have his camera on him? sheet only mentions the borrowed car lol"])
def test_out_of_character_a_question_of_the_rules_or_ones_sheet_is_not_turned_away(line):
    assert choose_answer(read_intent(line), World()) is None  # the rules reply (GameMaster), not "for your characters to find out"


def test_an_npc_asked_their_name_gives_it():
    world = World(npcs=[Npc(name="Maren", role="the chapel's elderly keeper")])
    said = choose_answer(read_intent("\"you the keeper? what's your name, and why are you staring at me like that\"", npcs=world.npcs), world)
    assert said.speaker == "Maren" and said.quote == "Maren."


def test_an_npc_asked_their_name_and_more_answers_both_and_it_roughly_is_the_thing_before():
    from gm.answer import _questions
    world = World(npcs=[Npc(name="Ruth Quist", role="the keeper's grown daughter", knows=[
        Knowledge(topic="when she last saw her father", answer="Four nights ago, at dusk, when he walked out to the lighthouse.")])])
    said = choose_answer(read_intent("Evening, Miss Quist. What's your name, and when did you last see your father?", npcs=world.npcs), world)
    assert said.quote.startswith("Ruth Quist. Four nights ago")
    assert _questions("How far is the lighthouse, and how tall is it, roughly?")[1] == "how tall is the lighthouse, roughly?"
