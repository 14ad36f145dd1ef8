"""Outcomes change the world, and a saved session keeps the change."""
from gm.table import Session, load_scenario
from gm.world import World, foe_down, found, moved, opened, read_world, took


def test_finding_a_secret_gives_the_finder_the_thing_it_names_but_not_a_fixed_one():
    world = read_world(load_scenario("drowned_chapel"))
    text = "The broken bell-tower stair can be climbed; at the top, wrapped in oilcloth, is the silver reliquary."
    facts = found(world, text, by="Brisa", turn=5)
    assert world.holder_of("the reliquary") == "Brisa"
    assert "Brisa has silver reliquary" in [f.text for f in facts] and all(f.source == "outcome" for f in facts)
    found(world, "A glyph of warding scratched inside the bell's rim.", by="Oskar")
    assert world.holder_of("bell") is None and "found" in world.thing("bell").states


def test_finding_a_thing_by_name():
    world = World(things=[{"name": "rusty key", "where": "the well", "states": ["hidden"]}], places=[{"name": "the well"}])
    found(world, "rusty key", by="Ada")
    assert world.holder_of("key") == "Ada" and world.thing("key").states == ["found"]


def test_a_foe_killed_cannot_be_talked_to_and_a_foe_down_is_a_fact():
    world = World(npcs=[{"name": "Grub"}, {"name": "Snag"}])
    foe_down(world, "grub", dead=True)
    assert [f.text for f in foe_down(world, "Snag")] == ["Snag is down"]
    assert [n.name for n in world.npcs_present()] == ["Snag"]


def test_opened_took_and_moved():
    world = World(places=[{"name": "hall"}, {"name": "vault"}], things=[{"name": "strongbox", "where": "vault", "states": ["locked"]}])
    assert opened(world, "strongbox", by="Ada")[0].text == "strongbox is open, opened by Ada"
    took(world, "strongbox", by="Ada")
    moved(world, "Vault")
    assert (world.holder_of("strongbox"), world.thing("strongbox").states, world.here) == ("Ada", ["open", "taken"], "vault")


def test_a_session_saves_and_resumes_the_changed_world(tmp_path):
    scenario = load_scenario("lantern_house")
    world = read_world(scenario)
    opened(world, "chain", by="Tomás", turn=2)
    session = Session(ruleset="coc7e", scenario=scenario, world=world.model_dump())
    back = Session.load(session.save(tmp_path / "s.json"))
    assert "open" in World.model_validate(back.world).thing("padlock").states
    assert back.scenario.world == scenario.world


def test_an_act_that_worked_moves_or_opens_what_it_names_and_nothing_else():
    from gm.world import Thing, World, settle

    world = World(things=[Thing(name="brass lantern", where="the hall"), Thing(name="iron door", states=["locked", "fixed"]),
                          Thing(name="stone altar", states=["fixed"]), Thing(name="silver key", states=["hidden"])])
    settle(world, "I grab the brass lantern off its hook", "Brisa")
    assert world.holder_of("brass lantern") == "Brisa"
    settle(world, "I unlock the iron door with the warden's key", "Oskar")
    assert "open" in world.thing("iron door").states and "locked" not in world.thing("iron door").states
    assert settle(world, "I take a deep breath", "Brisa") == []
    assert settle(world, "I lift the stone altar", "Ilya") == [] and settle(world, "I pocket the silver key", "Ilya") == []


def test_a_thing_given_is_the_receivers_and_a_thing_used_up_is_gone():
    from gm.world import Thing, World
    from gm.world.state import gave, used_up

    world = World(things=[Thing(name="iron key", where="Brisa Tallowmere", states=["carried"])])
    facts = gave(world, "the key", "Brisa Tallowmere", "Maren")
    assert world.holder_of("iron key") == "Maren" and facts[0].text == "Maren has iron key, given by Brisa Tallowmere"
    world.things.append(Thing(name="Potion of Healing", where="Oskar Venn"))
    used_up(world, "Potion of Healing", "Oskar Venn", "Brisa Tallowmere")
    assert world.holder_of("Potion of Healing") is None and "used" in world.thing("Potion of Healing").states
    assert world.facts[-1].text == "Oskar Venn used Potion of Healing on Brisa Tallowmere"
