"""One reading of a player's line: who is spoken to, what is asked of the GM, what is done, and whom it hits."""
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.intent import Intent, read_intent
from gm.world.model import Npc

NPCS = ["Orla Venn", SimpleNamespace(name="Brother Caddock", aliases=["the friar"], role="ferryman")]
FOES = ["Bog Troll", "Marsh Wolf 1", "Marsh Wolf 2"]
ITEMS = ["Potion of healing", "Brass lantern", "Iron key"]
SPELLS = ["Sleep", "Burning hands"]


def read(line: str, **kw) -> Intent:
    return read_intent(line, npcs=NPCS, items=ITEMS, spells=SPELLS, **kw)


@pytest.mark.parametrize("line,npc", [
    ("Orla, who sold you the boat?", "Orla Venn"),
    ("Brother Caddock, will you take us across tonight?", "Brother Caddock"),
    ("I ask the ferryman how much for the crossing", "Brother Caddock"),
    ("I lean over to the friar and ask what he saw on the water", "Brother Caddock"),
    ('"We mean you no harm," I tell Orla.', "Orla Venn"),
    ("I question Orla about the missing nets", "Orla Venn"),
    ("Alright. Caddock, what's in the crates?", "Brother Caddock"),
])
def test_talk_is_put_to_the_npc_named(line, npc):
    intent = read(line)
    assert intent.kind == "talk" and intent.npc == npc


def test_quoted_words_are_kept_for_the_one_who_answers():
    intent = read('I say to Orla, "The tide turns at midnight, doesn\'t it?"')
    assert intent.kind == "talk" and intent.npc == "Orla Venn"
    assert intent.quoted == "The tide turns at midnight, doesn't it?" and intent.question


@pytest.mark.parametrize("line", ["What's carved over the doorway?", "How deep is the water here?", "Are there any boats tied up?",
                                  "Can I see the far bank from the jetty?", "Who else is in the tavern?"])
def test_a_question_to_no_one_is_asked_of_the_gm(line):
    intent = read(line)
    assert intent.kind == "ask" and intent.question and intent.npc is None


@pytest.mark.parametrize("line", ["(OOC) did we already search the chapel?", "[ooc] how many hit points do I have left?",
                                  "Out of character: can I still use my reaction?", "As a player, I'd like to know if Orla is lying",
                                  "GM, is there a map of the marsh we haven't found?", "DM: what's the trap's DC?"])
def test_out_of_character_lines_are_for_the_table(line):
    assert read(line).kind == "ooc"


@pytest.mark.parametrize("line", ["I head down the causeway toward the mill", "We climb the bell tower stairs",
                                  "I sneak around the back of the boathouse", "Orla's guest wades across the ford"])
def test_going_somewhere_is_a_move(line):
    assert read(line).kind == "move"


@pytest.mark.parametrize("line,item", [("I drink the potion", "Potion of healing"), ("I light my brass lantern", "Brass lantern"),
                                       ("I try the iron key in the lock", "Iron key"), ("I use the rope to lower myself", None)])
def test_using_a_thing_names_the_item(line, item):
    intent = read(line)
    assert intent.kind == "use" and intent.item == item


@pytest.mark.parametrize("line,spell,target", [("I cast Sleep on the wolves", "Sleep", "Marsh Wolf 1"),
                                               ("I fan my fingers and let burning hands wash over the troll", "Burning hands", "Bog Troll"),
                                               ("I cast a ward around the camp", None, None)])
def test_a_spell_is_cast_at_whom_the_line_names(line, spell, target):
    intent = read(line, foes=FOES)
    assert intent.kind == "cast" and intent.spell == spell and intent.target == target


@pytest.mark.parametrize("line", ["I search the drowned man's coat", "I wait by the window until dawn", "I pick the lock on the chest"])
def test_anything_else_is_an_act(line):
    assert read(line).kind == "act"


@pytest.mark.parametrize("line,target", [("I stab the troll", "Bog Troll"), ("I loose an arrow at wolf 2", "Marsh Wolf 2"),
                                         ("I swing my axe at the second wolf", "Marsh Wolf 2"), ("I shoot the wolf", "Marsh Wolf 1")])
def test_attacks_name_their_target(line, target):
    intent = read(line, foes=FOES, weapons=["Battleaxe", "Shortbow"], in_fight=True)
    assert intent.kind == "attack" and intent.target == target


def test_it_and_the_other_one_read_by_the_last_target():
    assert read("I hit it again", foes=FOES, in_fight=True, last_target="Marsh Wolf 2").target == "Marsh Wolf 2"
    assert read("I turn on the other wolf", foes=FOES, in_fight=True, last_target="Marsh Wolf 1").kind == "act"  # no attack verb
    assert read("I slash at the other wolf", foes=FOES, in_fight=True, last_target="Marsh Wolf 1").target == "Marsh Wolf 2"


def test_out_of_a_fight_an_attack_needs_someone_to_hit():
    assert read("I punch Orla").kind == "attack" and read("I punch Orla").target == "Orla Venn"
    assert read("I strike a bargain with Orla").kind != "attack"
    assert read("I hit the road at first light").kind not in {"attack", "use"}  # "light" here is the dawn


def test_an_unknown_target_in_a_fight_is_kept_to_ask_about():
    intent = read("I hurl my spear at the ogre", foes=FOES, in_fight=True)
    assert intent.kind == "attack" and intent.target is None and intent.unknown_target == "ogre"


# ---- properties

# any lowercase word but "ooc", which marks a line out of character wherever it stands
_word = st.text(alphabet=st.characters(whitelist_categories=("Ll",)), min_size=1, max_size=8).filter(lambda w: w != "ooc")
_said = st.lists(_word, min_size=1, max_size=6).map(" ".join)
_lead = st.lists(_said.map(lambda s: s.capitalize() + "."), max_size=2).map(" ".join)
_names = st.sampled_from(["Orla", "Orla Venn", "Brother Caddock", "Caddock", "the friar"])
_owner = {"Orla": "Orla Venn", "Orla Venn": "Orla Venn", "Brother Caddock": "Brother Caddock", "Caddock": "Brother Caddock",
          "the friar": "Brother Caddock"}


@settings(max_examples=200, deadline=None)
@given(lead=_lead, name=_names, asked=_said, wh=st.sampled_from(["what", "where", "why", "did", "can", "is", "who"]))
def test_a_name_a_comma_and_a_question_is_talk_to_that_npc(lead, name, asked, wh):
    line = f"{lead} {name}, {wh} {asked}?".strip()
    intent = read(line, foes=FOES, in_fight=True)
    assert intent.kind == "talk" and intent.npc == _owner[name], line


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.booleans())
def test_any_text_reads_without_raising(text, in_fight):
    intent = read(text, foes=FOES, pcs=["Ilya"], weapons=["Mace"], in_fight=in_fight, last_target="Bog Troll")
    assert intent.text == text and intent.kind in {"talk", "ask", "act", "attack", "move", "use", "cast", "ooc"}


@settings(max_examples=200, deadline=None)
@given(verb=st.sampled_from(["charge", "hack at", "stab", "slash", "smash", "punch", "fire at", "cut down", "strike", "bash",
                              "lunge at", "go for", "swing at", "throw a rock at", "shoot"]),
       foe=st.sampled_from(FOES), tail=st.sampled_from(["", " with everything I have", ", screaming", " and then duck back", "!"]))
def test_in_a_fight_any_attack_verb_at_a_foe_is_an_attack_on_that_foe(verb, foe, tail):
    intent = read(f"I {verb} {foe}{tail}", foes=FOES, in_fight=True)
    assert intent.kind == "attack" and intent.target == foe


@pytest.mark.parametrize("line", [
    "Excuse me, Maren - when did the bell first ring?", "Hey Maren, what is with the bell?", "Maren: when did the bell ring?",
    "What do you know about the reliquary, Maren?", "Keeper, when did the bell ring?", "I ask Maren about the bell.",
    "I turn to the keeper and ask when the bell rang.", '"When did the bell ring?" I ask Maren.',
])
def test_a_question_put_to_an_npc_however_phrased_is_talk_to_them_not_to_what_it_asks_about(line):
    from gm.world import Npc

    npcs = [Npc(name="Maren", role="the chapel's elderly keeper", aliases=["Old Maren"]), Npc(name="the Bell", role="a cracked bronze bell")]
    got = read_intent(line, npcs=npcs, pcs=["Brisa Tallowmere", "Brisa"])
    assert (got.kind, got.npc) == ("talk", "Maren")


def test_a_name_called_out_after_any_word_is_talk_to_them():
    npcs = [Npc(name="Tobiah Marsh"), Npc(name="Greta Vell")]
    assert read_intent("Pssst, Tobiah. You awake? Got any water?", npcs=npcs).npc == "Tobiah Marsh"
    assert read_intent("Ahoy, Greta! Is the boat ready?", npcs=npcs).npc == "Greta Vell"


def test_a_question_about_what_someone_said_is_for_the_gm():
    npcs = [Npc(name="Greta Vell")]
    assert read_intent("What was the password Greta told us?", npcs=npcs).kind == "ask"
    assert read_intent("Which road did Greta say was flooded?", npcs=npcs).kind == "ask"
    assert read_intent("Remind me what we pulled out of the well.", npcs=npcs).kind == "ask"  # no question mark, still a question


def test_you_is_said_to_the_only_npc_there_or_among_several_to_the_one_spoken_to_last():
    alone = [Npc(name="Greta Vell"), Npc(name="Old Haskel", alive=False)]
    assert read_intent("Where were you when the bell rang?", npcs=alone).npc == "Greta Vell"
    two = [Npc(name="Greta Vell"), Npc(name="Tobiah Marsh")]
    assert read_intent("Where were you when the bell rang?", npcs=two).npc is None
    assert read_intent("I tell you what, I open the door.", npcs=alone).npc is None
    assert read_intent("And where were you when the bell rang?", npcs=two, last_npc="Tobiah Marsh").npc == "Tobiah Marsh"


def test_what_someone_here_says_now_is_put_to_them_but_what_they_said_is_for_the_gm():
    npcs = [Npc(name="Sergeant Rufus Kell"), Npc(name="Greta Vell")]
    assert (read_intent("What does the sergeant say about the fire at the mill?", npcs=npcs).npc) == "Sergeant Rufus Kell"
    assert read_intent("What does Greta think of the new sheriff?", npcs=npcs).npc == "Greta Vell"
    assert read_intent("What did Greta say about the mill?", npcs=npcs).kind == "ask"


@pytest.mark.parametrize("line", [
    "I hammer on the shutters. Doc! Doc Orley, wake up, we need you!",
    "Dr. Orley? Doctor, a word about your patient.",
    "I ask Dr. Orley where he was last night.",
    "Tomás asks Dr. Orley what he saw.",
    "Evening, Dr. Orley. Busy night?",
])
def test_a_titled_npc_is_hailed_by_title_name_or_both_wherever_a_sentence_starts(line):
    got = read_intent(line, npcs=[Npc(name="Dr. Silas Orley"), Npc(name="Mrs. Penn")], pcs=["Tomás Reyes", "Tomás"], last_npc="Mrs. Penn")
    assert (got.kind, got.npc) == ("talk", "Dr. Silas Orley")


@pytest.mark.parametrize("line", [
    "Keeper, out of character, just tell me straight, is Whitcombe in on it?",
    "Real talk, out of character, where's the gold?",
    "Quick thing (OOC) - is the sheriff lying?",
])
def test_out_of_character_anywhere_in_the_line_is_out_of_character(line):
    assert read_intent(line, npcs=[Npc(name="Dr. Julius Whitcombe")]).kind == "ooc"


def test_a_question_after_an_aside_or_a_remark_still_asks_and_a_talk_planned_for_later_is_not_talk_now():
    assert read_intent("Ooh. Okay, what's in there, is it just coin?").kind == "ask"
    alone = [Npc(name="Sal Ruggiero", role="cab driver")]
    assert read_intent("You drove a professor last Tuesday, right? Nervous guy. Where'd you take him?", npcs=alone).npc == "Sal Ruggiero"
    clerk = [Npc(name="the clerk", role="clerk")]
    assert read_intent("What was the name of that ship? I want to ask the clerk about it.", npcs=clerk).kind != "talk"


def test_someone_greeted_by_trade_with_words_before_it_is_talked_to_not_the_one_greeting():
    npcs = [Npc(name="Brother Oten Marsh", role="keeper")]
    got = read_intent("Marisol greets the old shrine keeper and asks whether there's been any trouble.", npcs=npcs,
                      pcs=["Marisol Ardent", "Marisol"])
    assert (got.kind, got.npc) == ("talk", "Brother Oten Marsh")


def test_talk_that_names_no_one_present_goes_to_the_only_npc_here():
    """Table chat: a name said without a comma, a hail by a word that is no one's name, a question
    asked aloud while doing something else, a question reported: each is put to the one NPC there."""
    here = [Npc(name="Wenna Tolly", role="herbwife"), Npc(name="Old Haskel", alive=False)]
    for line in ("wenna how much for the feverfew??", "oi granny, how much for the feverfew?",
                 'Brisa flips the kid a copper. "Seen anyone odd round the mill, kid?"',
                 "Pip hums a tune, admires the bundles and finally asks how fresh the feverfew is."):
        reading = read_intent(line, npcs=here)
        assert (reading.kind, reading.npc) == ("talk", "Wenna Tolly"), line
    assert read_intent("GM, how far is the mill?", npcs=here).npc is None


def test_a_question_typed_without_its_question_mark_still_asks():
    for line in ("ok what room was the guy in again", "wait how much was the mayor paying us", "hey orla whens the ferry due"):
        assert read(line).question, line
    assert read("hey orla whens the ferry due").npc == "Orla Venn"
    assert not read("What a night it was.").question and read("What a night it was.").kind == "act"


def test_words_to_the_dead_go_to_them_and_a_name_closing_a_quote_is_who_is_spoken_to():
    dead = [Npc(name="Silas Marr", alive=False, present=False)]
    assert read_intent('I lean over the coffin. "Where did you hide it, old man?"', npcs=dead).npc == "Silas Marr"
    assert read_intent('Dutch crouches by the body. "Where is the gold, Silas?"', npcs=dead).npc == "Silas Marr"


@pytest.mark.parametrize("line, meant", [
    ("i sit down across from her and cut the deck. so yselde, where were you last night?", "Yselde Pennick"),
    ("hey mortimer. whatd you find on the body? anything in his pockets?", "Mortimer Slade"),
    ("uh hi, sorry to bother u. wenna is it? do you have a boat?", "Wenna Brightwater"),
    ("hosea leans on the counter. mornin horace, any telegrams come in today?", "Horace Pinkney"),
    ("hey yselde!! how many hands did you win and what night was it", "Yselde Pennick"),
])
def test_typed_lines_put_to_someone_after_a_deed_a_greeting_or_a_filler_word_reach_them(line, meant):
    npcs = [Npc(name=n) for n in ("Yselde Pennick", "Mortimer Slade", "Wenna Brightwater", "Horace Pinkney", "Hobb Tarrant")]
    got = read_intent(line, npcs=npcs, pcs=["Dutch"])
    assert (got.kind, got.npc, got.question) == ("talk", meant, True)


def test_a_title_inside_a_name_is_what_a_player_calls_them():
    npcs = [Npc(name="Coroner Dr. Ezekiel Thorne"), Npc(name="Watch-Sergeant Dalia Korvane"), Npc(name="Silas Wheelock", role="fisherman")]
    assert read_intent("hi doc, eddie here. so how'd wheelock die?", npcs=npcs).npc == "Coroner Dr. Ezekiel Thorne"
    assert read_intent("keth flashes his writ. sergeant, did anything leave thru the east gate?", npcs=npcs).npc == "Watch-Sergeant Dalia Korvane"


def test_a_term_of_address_reaches_the_one_npc_it_fits():
    """"Good afternoon maam!", "heyy old timer", "um, your radiance": no name said, yet one NPC here is meant."""
    house = [Npc(name="Agatha Pettibone", role="the landlady"), Npc(name="Harold Pettibone", role="her husband, a retired sailor")]
    assert read_intent("Good afternoon maam! when did you last see mr ashcombe?", npcs=house).npc == "Agatha Pettibone"
    assert read_intent("where's the privy, sir?", npcs=house).npc == "Harold Pettibone"
    mine = [Npc(name="Brannigan Sallowby", role="an old miner"), Npc(name="Tess Orrin", role="the young clerk")]
    assert read_intent("heyy old timer, hows it going. whats that key round your neck open?", npcs=mine).npc == "Brannigan Sallowby"
    temple = [Npc(name="Ysolde Ambervale", role="high priestess of the Dawn"), Npc(name="Garrick Hale", role="temple guard")]
    assert read_intent("um, your radiance, when did you last see the chalice?", npcs=temple).npc == "Ysolde Ambervale"
    # a term two people fit names no one; a word inside a question is no address
    assert read_intent("Thanks, friend. Where to now?", npcs=house).npc is None
    assert read_intent("Is the boy's father at home?", npcs=mine).npc is None


def test_a_question_after_going_up_to_one_npc_is_put_to_them():
    """"i crouch down next to calla by the tracks. how old are these?": the tracker just joined is asked."""
    trail = [Npc(name="Calla Winslow", role="tracker you hired"), Npc(name="Percival Doane", role="a surveyor")]
    assert read_intent("i crouch down next to calla by the tracks. how old are these? how many riders", npcs=trail).npc == "Calla Winslow"
    assert read_intent("I kneel by the tracks. How old are these?", npcs=trail).npc is None  # no one joined
    assert read_intent("I walk up to Calla. Is she lying?", npcs=trail).npc is None        # asked about her, of no one


def test_a_greeting_and_a_question_go_to_the_one_the_scene_is_about_or_the_one_a_term_of_address_fits():
    from gm.world import Npc
    npcs = [Npc(name="Gunnhild Brask", role="ferrywarden"), Npc(name="Arvid Brask", role="husband")]
    assert read_intent("morning! have u seen a tall man in a grey cloak come through here? he'd have wanted to cross", npcs=npcs).npc == "Gunnhild Brask"
    assert read_intent("I look at the river. Has it been this high long?", npcs=npcs).npc is None  # no greeting: put to no one


def test_a_greeting_after_walking_up_to_someone_goes_to_them_and_one_asked_about_is_not_spoken_to():
    from gm.world import Npc
    npcs = [Npc(name="Gareth Bole", role="miller"), Npc(name="Hesper Lowick", role="egg-seller")]
    assert read_intent("i walk over to hesper. hi! is the well water safe to drink?", npcs=npcs).npc == "Hesper Lowick"
    assert read_intent("evenin. did hesper have any kin in town?", npcs=npcs).npc == "Gareth Bole"  # asked of her, put to him
