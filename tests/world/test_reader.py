"""The prose reader on scenes written here (none is a shipped scene): names, measures, exits, eras, the dead and the absent."""
import time

import pytest

from gm.table import NPC, Scenario
from gm.world import not_understood, read_world, understood
from gm.world.reader import era_of, exits_in, measures

FERRY = Scenario(
    id="ferry", ruleset="dnd5e", title="The Ferry Inn",
    scene=("Marrowgate, a river town in the Duchy of Vell, 1642. The widow Hester Crane keeps the Ferry Inn, twelve "
           "feet above the flood line. Her late husband, Josiah Crane, drowned two winters ago. A narrow stair leads "
           "down to the cellar, and a door to the north opens onto the quay. The toll road runs east to Brackmoor, "
           "three miles away. Her son Edmund has been missing for six days."),
    opening="Rain hammers the shutters at dusk. Dr. Pell looks up from his soup.",
    npcs=[NPC(name="Dr. Aldous Pell", description="the town physician, nervous and kind, never without his bag")],
    notes=["The ferryman Osric Dunn is across the river tonight.", "Pell owes the widow twenty crowns."],
)


def test_people_named_in_the_prose_are_npcs_with_their_role_and_whether_they_live():
    world = read_world(FERRY)
    hester, josiah, edmund = world.npc("Hester Crane"), world.npc("Josiah"), world.npc("Edmund")
    assert (hester.role, hester.alive, hester.present) == ("widow", True, True)
    assert (josiah.role, josiah.alive) == ("husband", False)
    assert (edmund.alive, edmund.present) == (True, False)  # missing, so he cannot answer
    assert world.npc("Osric Dunn").present is False  # the GM's notes speak of people elsewhere
    assert [n.name for n in world.npcs_present()] == ["Dr. Aldous Pell", "Hester Crane"]


def test_an_npc_description_gives_role_and_voice():
    pell = read_world(FERRY).npc("Pell")
    assert pell.role == "the town physician"
    assert pell.voice == "nervous and kind, never without his bag"


def test_exits_and_distances_of_the_scene():
    here = read_world(FERRY).place("The Ferry Inn")
    assert [(e.to, e.way, e.distance) for e in here.exits] == [
        ("the cellar", "stair down", ""), ("the quay", "door north", ""), ("Brackmoor", "road east", "three miles away")]


@pytest.mark.parametrize("text, found", [
    ("A rope ladder hangs 40 feet down the well.", ["40 feet"]),
    ("The wall is 12 feet high and the moat two yards wide.", ["12 feet high", "two yards wide"]),
    ("The abbey lies two miles downstream; the bells ring at 6:30.", ["two miles downstream", "6:30"]),
    ("She has waited twenty-one days.", ["twenty-one days"]),
    ("A hand's breadth from his face.", []),
])
def test_numbers_with_units(text, found):
    assert measures(text) == found


@pytest.mark.parametrize("text, era", [
    ("Boston, March 1923. Snow.", "March 1923"),
    ("It is the 1920s, and jazz is everywhere.", "the 1920s"),
    ("In the 14th century the abbey burned.", "the 14th century"),
    ("The vault holds 1500 gold coins.", ""),
    ("A long time ago, in a kingdom by the sea.", ""),
])
def test_eras(text, era):
    assert era_of(text) == era


@pytest.mark.parametrize("text, exits", [
    ("A ladder climbs into the hayloft.", [("the hayloft", "ladder")]),
    ("Steep steps lead up to the chapel of Saint Bree.", [("the chapel of Saint Bree", "steps up")]),
    ("The corridor runs south.", [("south", "corridor south")]),
    ("She slams the kitchen door behind her.", []),
])
def test_exits_in_other_wordings(text, exits):
    assert [(e.to, e.way) for e in exits_in(text)] == exits


def test_the_scene_sentences_are_facts_tagged_with_what_they_mention_and_notes_stay_gm_only():
    world = read_world(FERRY)
    tagged = {f.text: f.about for f in world.facts}
    assert tagged["The toll road runs east to Brackmoor, three miles away."] == ["Brackmoor", "three miles away"]
    assert "Dr. Aldous Pell" in tagged["Rain hammers the shutters at dusk."] + tagged["Dr. Pell looks up from his soup."]
    assert "Pell owes the widow twenty crowns." not in [f.text for f in world.public_facts()]
    assert (world.era, world.time, world.here) == ("1642", "dusk", "The Ferry Inn")


def test_a_written_world_wins_and_the_prose_fills_what_it_leaves_out():
    scenario = FERRY.model_copy(update={"world": {"era": "the age of sail", "npcs": [
        {"name": "Hester Crane", "role": "innkeeper", "knows": [{"topic": "her son", "answer": "he went to Brackmoor to sell eels"}]}]}})
    world = read_world(scenario)
    hester = world.npc("Hester")
    assert (world.era, hester.role, hester.knows[0].answer) == ("the age of sail", "innkeeper", "he went to Brackmoor to sell eels")
    assert world.npc("Dr. Aldous Pell").voice.startswith("nervous")
    assert scenario.world["npcs"][0]["role"] == "innkeeper"  # the scenario itself is never changed


def test_prose_the_reader_cannot_use_still_gives_a_world_and_says_what_is_missing():
    world = read_world(Scenario(id="x", ruleset="dnd5e", title="Fog", scene="Grey.", opening="..."))
    warnings = not_understood(world)
    assert world.places[0].name == "Fog"
    assert any("no NPC named" in w for w in warnings) and any("no era" in w for w in warnings)
    assert understood(world)[0].startswith("era: —")


def test_two_scenarios_read_in_turn_do_not_mix_and_reading_is_fast():
    other = Scenario(id="y", ruleset="coc7e", title="Dock 9", scene="Dock 9, Boston, 1931. A crate lies open.",
                     opening="Gulls scream.", npcs=[NPC(name="Mack Lowry", description="a dock foreman, surly")])
    start = time.perf_counter()
    first, second, again = read_world(FERRY), read_world(other), read_world(FERRY)
    assert time.perf_counter() - start < 0.5
    assert first == again and second.npc("Hester") is None and first.npc("Mack") is None
    assert second.era == "1931"


def test_people_named_without_a_role_are_told_from_places_by_what_follows_their_name():
    scene = ("The tannery yard of Gorsedd, below Crowfoot Hill. Wenna, a stooped dyer with blue hands, rinses hides "
             "by the vat. Master Idris Penhale, who owned the yard, drowned in the millrace a month ago. A stone by the "
             "gate reads \"Elen Penhale, 1790-1841\". Cadoc tips his cap and goes back to his barrow.")
    world = read_world(Scenario(id="t", ruleset="dnd5e", title="Tannery", scene=scene, opening="Steam rises."))
    wenna, idris, elen, cadoc = (world.npc(n) for n in ("Wenna", "Idris", "Elen", "Cadoc"))
    assert wenna.present and wenna.alive and wenna.role.endswith("dyer")
    assert not idris.alive and not elen.alive and cadoc.present
    assert world.npc("Crowfoot Hill") is None and world.npc("Gorsedd") is None


def test_someone_the_scene_gives_only_a_trade_is_met_by_that_trade():
    from gm.intent import read_intent

    scene = ("A smoky dockside tavern. The innkeeper wipes the bar with a grey rag, and an old fisherman mends his net "
             "by the fire. The priest died last spring. The ferryman, Jeb Hollis, waits by the door.")
    world = read_world(Scenario(id="t", ruleset="dnd5e", title="Tavern", scene=scene, opening="Rain."))
    assert world.npc("the innkeeper").present and world.npc("the fisherman").present
    assert not world.npc("the priest").alive and world.npc("the ferryman") is None  # Jeb Hollis is the ferryman
    assert read_intent("Innkeeper, what's the news tonight?", npcs=world.npcs).npc == "the innkeeper"


def test_a_full_name_that_acts_is_someone_and_a_sentence_opening_word_or_a_pronoun_is_not():
    scene = ("Last night the wind dropped. Bo Lindqvist, red-eyed, mends a net by the slip. Mrs. Ada Quill's bakery "
             "is shut. He said nothing.")
    world = read_world(Scenario(id="t", ruleset="dnd5e", title="Slip", scene=scene, opening="Gulls."))
    assert world.npc("Bo Lindqvist").present and world.npc("Ada").name == "Mrs. Ada Quill"
    assert world.npc("Last") is None and world.npc("He") is None


def test_people_are_read_by_their_trade_their_nickname_an_apposition_or_what_others_call_them():
    from gm.intent import read_intent

    scene = ("The Gilded Pike is a low taproom by the canal. Rosa Bellamy, grey-eyed and patient, tends bar under a "
             "row of copper pots. The lock-keeper, Anders Voll, smokes by the window. A stable girl, Pim, sits on the "
             "step. A tinker everyone calls Magpie dozes in the corner. Captain \"Rook\" Hallam lies dead on the towpath. "
             "Across the lane, at Quarles & Son, Chandlers, Edwin Quarles, stooped and grey, counts candles.")
    world = read_world(Scenario(id="t", ruleset="dnd5e", title="Taproom", scene=scene, opening="Rain."))
    names = dict(npcs=world.npcs)
    assert read_intent("I ask the bartender what's on tonight.", **names).npc == "Rosa Bellamy"
    assert read_intent("I ask the lock-keeper when the lock opens.", **names).npc == "Anders Voll"
    assert read_intent("I ask the chandler what lamp oil costs.", **names).npc == "Edwin Quarles"
    assert world.npc("Pim").present and world.npc("Magpie").present
    rook = world.npc("Rook")
    assert rook is not None and not rook.alive and rook.name == "Captain Hallam"
    assert world.npc("Gilded Pike") is None


@pytest.mark.parametrize("said", [
    "rode for the capital at dawn and is not expected back for a week",
    "has gone downriver to plead for soldiers",
    "left for Boston on the morning train and won't return until Monday",
    "has been away since Friday",
])
def test_someone_the_scene_sends_away_is_not_here(said):
    scene = f"The front hall of the manor. Lady Orsolya Varga {said}. Her steward, Tamas, waits by the stair."
    world = read_world(Scenario(id="t", ruleset="dnd5e", title="Manor", scene=scene, opening="Dusk."))
    assert world.npc("Orsolya").present is False and world.npc("Orsolya").alive
    assert world.npc("Tamas").present


def test_a_title_alone_later_in_the_scene_still_names_its_bearer():
    scene = ("Doc Hartigan's office is a narrow room over the feed store. The doc drove out to the Lenz farm at noon "
             "and won't be back before dark. A note is pinned to the door.")
    world = read_world(Scenario(id="t", ruleset="swade", title="Office", scene=scene, opening="Dust."))
    assert world.npc("Hartigan").present is False


@pytest.mark.parametrize("scene, who", [
    ("Mayor Aldous Penn sits slumped over his desk, a quill in his fingers. He has been dead for hours.", "Penn"),
    ("Old Eli Tuck, the prospector, lies face down in the water, shot twice in the back.", "Eli"),
    ("The attendant has slid out drawer six: the body of Professor Ezra Albright, pulled from the marsh.", "Albright"),
])
def test_the_dead_are_read_from_the_next_sentence_a_body_or_how_they_lie(scene, who):
    assert read_world(Scenario(id="t", ruleset="coc7e", title="T", scene=scene, opening="Rain.")).npc(who).alive is False


@pytest.mark.parametrize("scene, who", [
    ("The round tower of Magister Elsabeth Morrow. The magister herself is away until the new moon.", "Morrow"),
    ("Abigail Crane's third-floor apartment. The door was unlocked. Abigail vanished eight days ago.", "Abigail"),
    ("The ferryman, Jory Teal, poled across at dawn to take his eels to market and will not be back before tomorrow.", "Jory"),
])
def test_the_absent_are_read_by_a_title_the_scene_uses_alone_a_first_name_or_the_rest_of_their_sentence(scene, who):
    npc = read_world(Scenario(id="t", ruleset="pf2e", title="T", scene=scene, opening="Rain.")).npc(who)
    assert npc is not None and npc.alive and npc.present is False


@pytest.mark.parametrize("scene, name, role", [
    ("Under a leaking awning sits the ropemaker, old Hild Varrow, twisting hemp.", "Hild Varrow", "ropemaker"),
    ("Quenby Sparkwhistle, the clockmaker, has oil to his elbows and a loupe in one eye.", "Quenby Sparkwhistle", "clockmaker"),
    ("Desk sergeant Arthur Penhallow, pale and yawning, sorts the room keys.", "Arthur Penhallow", "desk sergeant"),
    ("Its keeper, the gnome astronomer Tilda Brassbell, is alone under the dome.", "Tilda Brassbell", "gnome astronomer"),
    ("Marek Dunn, captain of the river watch, leans on his halberd.", "Marek Dunn", "captain of river watch"),
])
def test_the_parser_finds_people_the_patterns_miss_and_what_they_do(scene, name, role):
    """A name with a noun set beside or before it (spaCy's parse) is someone, by that role; the
    GM can then be asked "the clockmaker, ...?" and know who answers."""
    world = read_world(Scenario(id="p", ruleset="dnd5e", title="Somewhere", scene=scene, opening=""))
    npc = world.npc(name)
    assert npc is not None and npc.role == role and npc.present and npc.alive


def test_a_place_set_beside_its_name_is_no_one_and_a_preposition_is_no_trade():
    world = read_world(Scenario(id="p", ruleset="dnd5e", title="Gorsedd", opening="", scene=(
        "Gorsedd, a river town, sleeps under fog. Desk sergeant Oona Blake works through a plate of eggs. "
        "Ruby Sollis deals cards at the back table.")))
    assert world.npc("Gorsedd") is None
    assert all("through" not in a for n in world.npcs for a in [n.role, *n.aliases])
    assert {"card dealer", "dealer"} <= set(world.npc("Ruby Sollis").aliases)  # "I ask the card dealer ..." is put to her


def test_an_initial_does_not_end_a_sentence():
    from gm.world.reader import sentences
    assert sentences('It was signed by "J. Carrow" in March. Nobody saw him.') == ['It was signed by "J. Carrow" in March.', "Nobody saw him."]


@pytest.mark.parametrize("scene, name, nick", [
    ('The archivist, Miss Odile Varga, known as "Dilly" to the staff, guards the ledger.', "Miss Odile Varga", "Dilly"),
    ('The lock keeper is Bertram Shale, whom every boatman calls "Uncle Bert".', "Bertram Shale", "Uncle Bert"),
    ('The cook is Ansel Brine, "Pots" to the crew, a wiry man with burn scars.', "Ansel Brine", "Pots"),
])
def test_a_nickname_given_after_the_name_calls_them_too(scene, name, nick):
    world = read_world(Scenario(id="n", ruleset="dnd5e", title="N", scene=scene, opening=scene))
    npc = world.npc(name)
    assert npc is not None and nick in npc.aliases and world.npc(nick) is npc


def test_a_hyphenated_surname_is_one_name_and_an_article_makes_no_one_of_a_book():
    scene = ("In the corner, signing a manifest, is the night supervisor, Juno Abara-Lind. The dead abbot lies with his "
             "hands folded over a Bible.")
    names = [n.name for n in read_world(Scenario(id="h", ruleset="swade", title="H", scene=scene, opening=scene)).npcs]
    assert "Juno Abara-Lind" in names and "Lind" not in names and "Bible" not in names


def test_someone_taken_away_is_not_here_and_watching_you_is_no_trade():
    scene = ("Professor Aldo Kessler was kidnapped from his study last night; his valet, Rupert Crail, sweeps up the glass. "
             "A tailor named Fenwick watches you from his doorway.")
    world = read_world(Scenario(id="k", ruleset="coc7e", title="K", scene=scene, opening=scene))
    assert world.npc("Professor Aldo Kessler").present is False and world.npc("Rupert Crail").present is True
    assert not any(a.startswith("you") for a in world.npc("Fenwick").aliases)


def test_an_npc_is_found_by_what_the_scene_says_of_them():
    scene = ("A grocer named Pelham sweeps his step. Out on the pier, mending nets alone, sits Ezra Coombe, who lost "
             "his boat in the storm.")
    world = read_world(Scenario(id="d", ruleset="coc7e", title="D", scene=scene, opening=scene))
    assert world.described("I walk out and ask the old guy mending nets how the storm took his boat") == "Ezra Coombe"
    assert world.described("I ask someone about the weather") is None


@pytest.mark.parametrize("scene, who", [
    ("The cooperage of Tobias Venn is dark. Chalked on the door: GONE TO MARKET AT KELLSBY. BACK FRIDAY. - T.V.", "Tobias Venn"),
    ('Mother Agathe Roux keeps the herb shop. A card in the window reads "Out gathering until the new moon. - Agathe"', "Mother Agathe Roux"),
])
def test_whoever_signs_a_note_saying_they_are_gone_is_not_here(scene, who):
    world = read_world(Scenario(id="a", ruleset="dnd5e", title="A", scene=scene, opening=scene))
    assert world.npc(who) is not None and world.npc(who).present is False


def test_a_sign_s_lettering_cut_by_a_full_stop_stays_one_fact():
    scene = "A notice on the gate: REWARD FOR THE WOLF. 40 SILVER FOR ITS PELT. The gate is shut."
    texts = [f.text for f in read_world(Scenario(id="s", ruleset="dnd5e", title="S", scene=scene, opening=scene)).facts]
    assert "A notice on the gate: REWARD FOR THE WOLF. 40 SILVER FOR ITS PELT." in texts


def _names(scene: str) -> dict[str, tuple[bool, bool]]:
    world = read_world(Scenario(id="s", ruleset="dnd5e", title="Somewhere", scene=scene, opening="", npcs=[]))
    return {n.name: (n.alive, n.present) for n in world.npcs}


def test_a_person_named_in_full_with_no_role_beside_the_name_is_met_but_a_place_so_tagged_is_not():
    """A tagger's person counts when the name means someone: not a heading ("Deadwater Crossing, Nebraska, 1868.")."""
    people = _names("Deadwater Crossing, Nebraska, 1868. A rope ferry crosses the river. Wenna Brightwater, broad-shouldered "
                    "and barefoot, is milking one of her three goats on the landing.")
    assert "Wenna Brightwater" in people and "Deadwater Crossing" not in people


def test_a_fuller_name_found_later_renames_the_one_found_and_kin_who_share_a_surname_stay_two():
    people = _names("Keeper Maud Ellery, silver-haired and straight-backed, trims the wick. Her grandson, Tobin Ellery, "
                    "a boy of nine, watches from the stair.")
    assert {"Keeper Maud Ellery", "Tobin Ellery"} <= set(people)
    world = read_world(Scenario(id="s", ruleset="dnd5e", title="x", scene="Tobin Ellery watches from the stair.", opening="", npcs=[]))
    assert not any(a.startswith("from") for n in world.npcs for a in n.aliases)  # "watches from" names no trade


def test_a_sentence_opening_word_is_no_part_of_a_name_and_lying_dead_is_dead():
    people = _names("Mortimer Slade, gaunt, measures the body. What Mortimer took from his pockets is in a cigar box.")
    assert "What Mortimer" not in people and "Mortimer Slade" in people
    farmer = _names("In the cellar lantern light falls on the farmer, Edric Blackwell, lying dead across a sack of turnips.")
    assert farmer.get("Edric Blackwell", (False, False)) == (False, False)


def test_a_title_that_is_a_calling_or_a_workplace_under_a_name_gives_the_role_and_one_person_is_kept_once():
    scene = ("Water stop at Cutter's Tank. - Stationmaster Ingrid Halvorsen, spectacles, a pencil behind her ear. "
             "- Her boy, Nils Halvorsen, works the pump. Caravan-master Zahra paces the gallery; Zahra Ventillo is three days "
             "from home. Stokes' smithy: Hiram Stokes, arms like hams, hammers a shoe.")
    world = read_world(Scenario(id="t", ruleset="swade", title="Tank", scene=scene, opening="Heat."))
    assert world.npc("Stationmaster Ingrid Halvorsen").role == "stationmaster" and world.npc("Hiram Stokes").role == "smith"
    assert [n.name for n in world.npcs if "Zahra" in n.name] == ["Zahra Ventillo"]  # "Caravan-master Zahra" is her
    assert world.npcs[0].name.endswith("Ingrid Halvorsen")  # in the order the prose names them
    assert not any(f.text.startswith("- ") for f in world.facts)  # a list's marks are no words of it


def test_kin_who_share_a_surname_are_not_one_another_and_a_body_named_after_a_colon_is_dead():
    scene = ("A sod house on the Kessler claim. Greta Kessler stands in the door with a rifle. No rider has come by since her "
             "husband, Karl Kessler, went to Fort Redd for seed. Dockmaster Benedek Haroun, heavyset, an abacus on his belt, "
             "holds court. Cornelius Abernathy measures the corpse on the table: Jed Harlan, shot twice.")
    world = read_world(Scenario(id="t", ruleset="swade", title="Claim", scene=scene, opening="Wind."))
    assert world.npc("Greta Kessler").present and not world.npc("Karl Kessler").present  # his going is not hers
    assert world.npc("Dockmaster Benedek Haroun").role == "dockmaster"
    assert not world.npc("Jed Harlan").alive
