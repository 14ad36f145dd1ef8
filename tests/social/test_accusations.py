"""One reading of who accuses whom (eval/beliefs/_accuse.py): the score's vote/talk consistency and the
viewer's deception markers read every speech alike, in English, Chinese and Russian."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval.beliefs import BeliefGame, Vote, public_claims
from eval.beliefs._accuse import sentences, stances
from eval.beliefs._speech import accused_in, consistency_rows, speeches_of

NAMES = ["Alex", "Blair", "Casey", "Drew", "3号"]

# what a sentence says about each player it names: +1 accuses, -1 vouches (absent: neither)
READINGS = [
    # English: the clear cases read as before
    ("I suspect Alex.", {"Alex": 1}),
    ("Alex is Mafia, I'm sure.", {"Alex": 1}),
    ("We should vote out Alex today.", {"Alex": 1}),
    ("I trust Alex.", {"Alex": -1}),
    ("Blair was quiet.", {}),
    # negation flips the cue after it
    ("I don't suspect Alex.", {"Alex": -1}),
    ("Alex is not Mafia.", {"Alex": -1}),
    ("I don't trust Alex.", {"Alex": 1}),
    ("I don't think Alex is lying.", {"Alex": -1}),
    ("Alex isn’t lying.", {"Alex": -1}),
    ("No, Alex is lying.", {"Alex": 1}),  # the comma ends the negation's reach
    ("There is no doubt Alex is lying.", {"Alex": 1}),  # an idiom, not a negation
    # a cue inside a longer word is not that cue
    ("Alex is dishonest.", {"Alex": 1}),
    ("Alex is unsafe.", {}),
    ("Grayson is suspicious.", {}),
    # targets: the player next to the cue, and those listed with it; not bystanders
    ("Talking with Drew earlier, I found Casey suspicious.", {"Casey": 1}),
    ("I suspect Alex and Blair.", {"Alex": 1, "Blair": 1}),
    ("I trust Alex, but Blair is lying.", {"Alex": -1, "Blair": 1}),
    ("The town should vote out Alex.", {"Alex": 1}),
    ("Alex is town.", {"Alex": -1}),
    ("It's clear Alex is lying.", {"Alex": 1}),
    # the Mafia as the side acting is no label
    ("The Mafia killed Drew last night.", {}),
    ("The Mafia will probably kill someone like Casey.", {}),
    ("I think the Mafia is Alex.", {"Alex": 1}),
    # Chinese
    ("我怀疑Alex是狼。", {"Alex": 1}),
    ("我不怀疑3号。", {"3号": -1}),
    ("我怀疑3号。", {"3号": 1}),
    ("Alex不是狼。", {"Alex": -1}),
    ("我信任Alex。", {"Alex": -1}),
    ("我不信任Alex。", {"Alex": 1}),
    ("我相信Alex。", {"Alex": -1}),
    ("我相信Alex是狼。", {"Alex": 1}),  # "believe" frames the accusation
    ("我不相信Alex是好人。", {"Alex": 1}),
    ("Alex是好人，Blair很清白。", {"Alex": -1, "Blair": -1}),
    ("Alex、Blair都很可疑。", {"Alex": 1, "Blair": 1}),
    ("不过Alex很可疑。", {"Alex": 1}),  # 不过 "however" is no negation
    ("Alex非常可疑。", {"Alex": 1}),
    ("我不觉得Alex是狼。", {"Alex": -1}),
    ("黑手党昨晚杀了Drew。", {}),
    # Russian
    ("Я подозреваю Alex.", {"Alex": 1}),
    ("Я не подозреваю Alex.", {"Alex": -1}),
    ("Alex не мафия.", {"Alex": -1}),
    ("Я доверяю Alex, но Blair врёт.", {"Alex": -1, "Blair": 1}),
    ("Мафия убила Drew.", {}),
]


@pytest.mark.parametrize("sentence, reading", READINGS, ids=[r[0] for r in READINGS])
def test_each_sentence_reads_as_written(sentence, reading):
    assert {s.target: s.polarity for s in stances(sentence, NAMES)} == reading
    assert accused_in(sentence, NAMES) == {p for p, sign in reading.items() if sign > 0}


def test_chinese_sentences_end_without_a_space():
    assert sentences("Alex是好人。Blair是狼！Casey呢？\n我没意见") == ["Alex是好人。", "Blair是狼！", "Casey呢？", "我没意见"]
    assert {s.target: s.polarity for s in stances("Alex是好人。Blair是狼。", NAMES)} == {"Alex": -1, "Blair": 1}


# -- the score and the viewer agree --------------------------------------------------------
ACCUSE = ["I suspect {}.", "{} is Mafia, I'm sure.", "We should vote out {} today.", "{} is lying!", "I don't trust {}.",
          "我怀疑{}是狼。", "{}很可疑。", "我不信任{}。", "我相信{}是坏人。", "Я подозреваю {}.", "{} — мафия.", "{} врёт!"]
VOUCH = ["I trust {}.", "{} is not Mafia.", "I don't suspect {}.", "{} is town.", "I don't think {} is lying.",
         "我不怀疑{}。", "{}不是狼。", "我信任{}。", "{}是好人。", "我相信{}。", "Я доверяю {}.", "{} не мафия.", "Я не подозреваю {}."]
NEUTRAL = ["{} was quiet today.", "{}今天很安静。", "{} молчал весь день."]
PAIRS = [("I suspect {} and {}.", 1, 1), ("I trust {}, but {} is lying.", -1, 1), ("{}和{}都很可疑。", 1, 1),
         ("Я доверяю {}, но {} врёт.", -1, 1)]


@st.composite
def speech_with_truth(draw):
    """A speech of one to four sentences from the templates, with what it says about each player."""
    parts, truth = [], []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["accuse", "vouch", "neutral", "pair"]))
        a, b = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True))
        if kind == "pair":
            template, sa, sb = draw(st.sampled_from(PAIRS))
            parts.append(template.format(a, b))
            truth += [(a, sa), (b, sb)]
        else:
            parts.append(draw(st.sampled_from({"accuse": ACCUSE, "vouch": VOUCH, "neutral": NEUTRAL}[kind])).format(a))
            truth += [(a, {"accuse": 1, "vouch": -1, "neutral": 0}[kind])]
    glue = draw(st.sampled_from([" ", "", "\n"]))
    return glue.join(parts), truth


@settings(max_examples=150, deadline=None)
@given(speech_with_truth(), st.sampled_from(NAMES), st.sampled_from(NAMES))
def test_score_and_viewer_read_the_same_accusations(said, speaker, voted):
    text, truth = said
    accused = {p for p, sign in truth if sign > 0} - {speaker}
    vouched = {p for p, sign in truth if sign < 0} - {speaker}
    game = BeliefGame("g", NAMES, {n: "villager" for n in NAMES}, votes=[Vote(1, 9.0, speaker, voted)] if voted != speaker else [])
    events = [{"round": 1, "public_msg_seq": 1, "kind": "speech", "player": speaker, "text": text}]
    claims = [c for c in public_claims(game, events) if c["seat"] == speaker]
    assert {c["target"] for c in claims if c["kind"] == "accuses"} == accused == accused_in(text, NAMES, speaker)
    assert {c["target"] for c in claims if c["kind"] == "vouches"} == vouched
    if voted != speaker:  # the score's own path: the vote is consistent exactly when the viewer saw an accusation
        [row] = consistency_rows(game, speeches_of(events))
        assert row[1] == float(voted in accused)
        assert row[2] == len(accused) / (len(NAMES) - 1)


@given(st.sampled_from(NAMES), st.sampled_from([("I suspect {}.", "I don't suspect {}."), ("{} is Mafia.", "{} is not Mafia."),
                                                ("{} is lying.", "{} is not lying."), ("I trust {}.", "I don't trust {}."),
                                                ("我怀疑{}。", "我不怀疑{}。"), ("{}是狼。", "{}不是狼。"), ("我信任{}。", "我不信任{}。"),
                                                ("Я подозреваю {}.", "Я не подозреваю {}."), ("{} мафия.", "{} не мафия.")]))
def test_a_negation_flips_the_reading(name, pair):
    plain, negated = ({s.target: s.polarity for s in stances(t.format(name), NAMES)} for t in pair)
    assert plain and negated == {p: -sign for p, sign in plain.items()}
    assert (name in accused_in(pair[0].format(name), NAMES)) != (name in accused_in(pair[1].format(name), NAMES))


def test_the_viewer_reads_the_speeches_the_score_reads():
    """A private note or a night action with text is no public claim (the old viewer read any event with text)."""
    game = BeliefGame("g", NAMES, {n: "villager" for n in NAMES})
    events = [{"round": 1, "public_msg_seq": 1, "kind": "speech", "player": "Alex", "text": "Blair is lying.\nCasey is honest"},
              {"round": 1, "public_msg_seq": 1, "kind": "reasoning", "private": True, "player": "Alex", "text": "Drew is Mafia."},
              {"round": 1, "kind": "night_mafia", "player": "Drew", "response": "Kill Casey, she suspects us."}]
    assert [(c["seat"], c["kind"], c["target"], c["text"]) for c in public_claims(game, events)] == [
        ("Alex", "accuses", "Blair", "Blair is lying."), ("Alex", "vouches", "Casey", "Casey is honest")]
    assert [s.text for s in speeches_of(events)] == ["Blair is lying.\nCasey is honest"]
