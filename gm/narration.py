"""The GM's words after a decision: one short prompt, streamed, guarded, never a bare verdict.

A small model narrates well enough when it is told little and checked a lot. It gets the public
scene, the last few lines, the action and what the rules decided (a roll's outcome, no roll, or
an impossible act), plus only the secrets just revealed: GM-only notes never enter this prompt.
Each sentence it writes is checked before anyone sees it: an echo of the player's words, speech
put in a player character's mouth, prompt text, GM-only text and a contradiction of the dice are
cut, each with a note naming that cause. Too little left → one retry, then a descriptive
sentence built from the scene and the outcome.

    narration = await narrate(model, request, on_token=print)
    narration.text, narration.notes, narration.first_token_s
"""
from __future__ import annotations

import functools
import re
import time
from pathlib import Path
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from pipelines.llm import ModelError, stream_complete
from pipelines.speech import first_name, is_talk, speaks
from pipelines.steps.adjudicate import shot_messages, table_system

from . import language

from .facts_guard import contradicts_numbers, speaks_for_the_silent
from .outcome import ActPlan, degree_of, plan_act
from .retell import base_action, gist, third_person, told_by

__all__ = [
    "NarrationRequest", "Narration", "narrate", "split_sentences", "third_person", "fallback",
    "is_echo", "repeats_itself", "copies", "speaks_for", "acts_for_another", "prompt_leak", "contradicts", "MIN_WORDS",
    "new_things", "carries_plan", "act_plan",
]

MIN_WORDS = 8
MAX_SENTENCES = 4

# --- sentences --------------------------------------------------------------------------

# Words whose final period does not end a sentence ("Dr. Hale", "St. Brendan", "e.g. rope").
ABBREVIATIONS = {
    "dr", "mr", "mrs", "ms", "mx", "st", "mt", "ft", "jr", "sr", "prof", "rev", "fr", "capt", "cpt", "col",
    "gen", "lt", "sgt", "cmdr", "adm", "gov", "sen", "hon", "no", "vol", "vs", "e.g", "i.e", "etc", "approx",
}
_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s+|$)|[。！？]+[”’」』）)]*")  # Chinese ends need no space after


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``; a period after an abbreviation (Dr., St.) or an initial (J.) is not an end.

    Written here because the splitters in our dependencies either need a downloaded model
    (nltk punkt) or treat every ``Dr.`` as an end, which is how narration got cut at "Dr.".
    """
    text = " ".join((text or "").split())
    out, start = [], 0
    for m in _END.finditer(text):
        end = m.end()
        word = re.search(r"([\w.]+)[.]+[\"'”’)\]]*$", text[start:end])
        token = (word.group(1) if word else "").lower()
        if m.group(0).startswith(".") and not m.group(0).startswith("...") and (token in ABBREVIATIONS or re.fullmatch(r"[a-z]", token)):
            continue
        nxt = text[end:].lstrip()
        if nxt and nxt[0].islower():  # "he said. then" is rare; "Mt. rainier" style joins
            continue
        out.append(text[start:end].strip())
        start = end
    if text[start:].strip():
        out.append(text[start:].strip())
    return [s for s in out if s]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+|[\u3400-\u9fff]", text.lower())  # a Han character counts as a word (Chinese has no spaces)


_STOP = {"the", "a", "an", "to", "of", "and", "or", "in", "on", "at", "for", "with", "as", "is", "it", "its", "i", "my",
         "me", "you", "your", "he", "she", "they", "them", "their", "his", "her", "we", "our", "that", "this", "up", "into",
         "from", "by", "be", "was", "are", "s", "t", "so", "then", "there"}
_STOP |= set("的了是在着和与也都就而又把被之这那我你他她它们")  # Chinese function characters, as words above


def _content(text: str) -> list[str]:
    return [w for w in _words(text) if w not in _STOP]


def carries(text: str, answer: Any) -> bool:
    """The reply says the chosen answer: its key words (numbers as digits or words, names, rare words)."""
    low = " " + " ".join(_words(text)) + " "
    keys = [k.lower() for k in answer.keys]
    hits = sum(1 for k in keys if f" {k} " in low or (k.isdigit() and f" {_NUMBER_NAMES.get(k, '#')} " in low)
               or (k in _NUMBER_WORDS_BACK and f" {_NUMBER_WORDS_BACK[k]} " in low))
    return hits >= max(1, (len(keys) + 1) // 2)


def voiced(text: str, speaker: str) -> bool:
    """The reply has ``speaker`` say something in quotes: quoted words, and their first name outside them."""
    outside = re.sub(r"[\"“][^\"“”]*[\"”]?", " ", text)  # the name must be the speaker's tag, not words inside the quote
    called = {first_name(speaker), speaker.split()[-1]} if speaker.split() else {speaker}  # "Henry" or "Armitage"
    return bool(re.search(r"[\"“”]", text)) and any(re.search(rf"\b{re.escape(n)}\b", outside, re.I) for n in called)


# a speaker's label a small model copies from the prompt: "GM:", "The GM says:", "Keeper:"
_LABEL = re.compile(r"^\s*(?:the\s+)?(?:gm|dm|game master|keeper|narrator)(?:\s+(?:says|answers|replies))?\s*:\s*", re.I)
# dice told as dice ("The cashier's stealth roll is successful"): the roll is on screen already
_DICE_TALK = re.compile(r"\b(?:roll|check|saving throw|save)\b[^.]*\b(?:success(?:ful)?|succeeds?|fail(?:s|ed|ure)?|passes|passed)\b", re.I)

_MISSES = re.compile(r"\b(?:miss(?:es|ed)?|goes wide|went wide|glances? off|fails? to (?:hit|land|connect|wound)|whiffs?|falls? short|"
                     r"dodges?|dodged|sidesteps?|parr(?:y|ies|ied)|block(?:s|ed)?|ducks? (?:under|aside)|harmlessly)\b", re.I)
_HITS = re.compile(r"\b(?:hits?|strikes? (?:home|true)|lands?|landed|connects?|connected|bites? (?:into|deep)|cuts? (?:into|deep)|"
                   r"slams? into|smashes into|wounds?|wounded|finds? (?:its|their) mark|struck|draws? blood|sinks? into)\b", re.I)


def _against_the_dice(sentence: str, req: "NarrationRequest") -> bool:
    """A sentence about the acting character's attack (or its target) that tells the other outcome than the dice."""
    about = _names(sentence, req.name) or re.search(r"\byour?\b", sentence, re.I) or any(_names(sentence, t) for t in req.struck_at)
    if not about:
        return False
    return bool(_MISSES.search(sentence)) if req.struck else bool(_HITS.search(sentence) and not _MISSES.search(sentence))


# a line of the cast list as prompts and scenarios write it: "Ruth Quist: the keeper's grown daughter, ..."
_CAST_LINE = re.compile(r"^\s*(?:NPC\s+)?[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,3}\s*:\s+(?:the|a|an)\b")

_NUMBER_NAMES = {str(i): w for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
_NUMBER_NAMES |= {"15": "fifteen", "20": "twenty", "30": "thirty", "40": "forty", "50": "fifty", "60": "sixty", "100": "hundred"}
_NUMBER_WORDS_BACK = {w: d for d, w in _NUMBER_NAMES.items()}


def tells(text: str, found: str, share: float = 0.4) -> bool:
    """The narration passes on what was found: at least ``share`` of its content words are in it."""
    wanted = set(_content(found))
    return not wanted or len(wanted & set(_content(text))) >= share * len(wanted)


# --- guards -----------------------------------------------------------------------------

# where one sentence joins two clauses: ", and the pews are loose", "; the wind rises", " and the rest"
_CLAUSE_JOIN = re.compile(r"(,\s+(?:and|but|while)\s+|;\s+|\s+and\s+(?=(?:the|a|an|his|her|their|its|your|you|it|they|he|she)\b))", re.I)


def is_echo(sentence: str, sources: list[str], overlap: float = 0.7) -> bool:
    """The sentence mostly repeats a source (the player's line, a recent line, the prompt's verdict)."""
    mine = _content(sentence)
    if len(mine) < 2:
        return False
    flat = " ".join(_words(sentence))
    for source in sources:
        theirs = set(_content(source)) | {_stem(w) for w in _content(source)}
        if not theirs:
            continue
        shared = sum(1 for w in mine if w in theirs or _stem(w) in theirs)
        if shared / len(mine) >= overlap or (len(flat) > 15 and flat in " ".join(_words(source))):
            return True
    return False


def _phrases(text: str, n: int = 4) -> list[tuple[str, ...]]:
    """Runs of ``n`` words with two content words, one of them long: "with a sharp click", not "the door of the"
    or "at the far end"."""
    words = _words(text)
    grams = (tuple(words[i:i + n]) for i in range(len(words) - n + 1))
    return [g for g in grams if len(content := [w for w in g if w not in _STOP]) >= 2 and max(map(len, content)) >= 5]


def repeats_itself(sentence: str) -> bool:
    """The sentence loops: a phrase comes back in it.

    A small model falls into such loops ("with a sharp click, ... with a sharp click"); prose at a
    table does not say the same thing twice in one breath, though it may say "the door of the" twice.
    """
    phrases = _phrases(sentence)
    return len(set(phrases)) < len(phrases)


def copies(sentence: str, borrowed: set[tuple[str, ...]]) -> bool:
    """The sentence lifts a phrase from ``borrowed`` (the worked replies' own, not this scene's)."""
    return not borrowed.isdisjoint(_phrases(sentence))


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)]
    return word


_SAY = r"(says?|said|asks?|asked|replies|replied|shouts?|whispers?|answers?|exclaims?|mutters?|tells)"


def speaks_for(sentence: str, names: list[str]) -> bool:
    """The sentence puts words in a player character's mouth ("Brisa says, ..." / '"Hi," Brisa says')."""
    names = [n for n in names if n and len(n) > 1]
    if not names:
        return False
    who = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    said = re.search(rf"\b({who})\b[\w\s,]{{0,20}}?\b{_SAY}\b", sentence, re.I)
    quoted = '"' in sentence or "“" in sentence
    leading = re.match(rf"^\s*[\"“]?({who})\s*:", sentence, re.I)
    return bool(leading or (said and (quoted or re.search(rf"{_SAY}\s*(,|:|that\b)", sentence, re.I))))


def acts_for_another(sentence: str, name: str, pc_names: list[str], line: str = "") -> str | None:
    """Another player character the sentence is about, on this character's turn, when it does not
    name the one acting and the player's line did not bring them in: the small model mixes up who
    acts ("Eddie's revolver is aimed at a nearby gunfight" when Tomás loads his)."""
    mine = first_name(name).lower() if name else ""
    if not mine or re.search(rf"\b{re.escape(mine)}\b|\byou\b", sentence, re.I):
        return None
    own = {w.lower().rstrip(".") for w in name.split()}  # "Hale" is Dr. Margaret Hale herself
    for other in pc_names:
        first = first_name(other)
        if first.lower() not in own and len(first) > 1 and re.search(rf"\b{re.escape(first)}\b", sentence) \
                and not re.search(rf"\b{re.escape(first)}\b", line, re.I):
            return first
    return None


# Prompt text a small model copies back; none of it belongs in what the players read.
PROMPT_TELLTALES = (
    "as the gm", "as the game master", "game master", "tell them what happens", "what happens next?", "narrate",
    "the options", "answer with", "no roll is needed", "the dice", "roll succeeded", "roll failed", "check succeeds",
    "check fails", "the scene:", "scene:", "the table so far", "in two or three sentences", "option", "the players",
    "json", "{", "}", "<|", "assistant", "system:", "result:", "they learn:", "no roll:", "impossible:",
    "describe how", "describe something", "answer from what", "it simply happens", "your last reply",
)


_SCREEN = re.compile(r"\bcamera (?:pans|zooms|cuts|follows|lingers|shows|tracks)\b|\b(?:cut|fade|fades) (?:to|in|out)\b|"
                     r"\bthe scene (?:shifts|cuts|changes|fades)\b|\bthe (?:viewer|audience|reader)s?\b|\bon screen\b", re.I)


def prompt_leak(sentence: str, hidden: list[str] | None = None) -> str | None:
    """Why the sentence must not be shown: "prompt text" or "GM-only text"; None when it is fine."""
    low = sentence.lower()
    if any(t in low for t in PROMPT_TELLTALES) or re.match(r"^\s*(gm|dm|keeper)\s*:", low):
        return "prompt text"
    if _SCREEN.search(low):
        return "film talk"  # "The camera pans to the doorway": the story told as a screen, not a table
    for secret in hidden or []:
        if is_echo(sentence, [secret], overlap=0.6):
            return "GM-only text"
    return None


_SEGMENT = re.compile(r"[\"“”‘’:;—(]|\s-\s|'(?=[A-Z])")
_NAMEISH = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def known_words(*texts: str) -> set[str]:
    """Every word the narration was given, lower-cased: the names it may use."""
    return {w.lower().removesuffix("'s").removesuffix("’s") for text in texts for w in _NAMEISH.findall(text)}


def strangers(sentence: str, known: set[str]) -> list[str]:
    """Capitalised words mid-sentence that nothing the GM was given mentions: a name the small
    model made up ("his wife, Sarah") or a rules word it picked up ("Dutch's Strength roll").
    The first word of a sentence, of a quote or after a colon is capitalised anyway; ``I``,
    its contractions and all-capital abbreviations (AM) are not names."""
    found = []
    for segment in _SEGMENT.split(sentence):
        for i, word in enumerate(_NAMEISH.findall(segment)):
            bare = word.lower().removesuffix("'s").removesuffix("’s")
            if i == 0 or not word[0].isupper() or word.isupper() or bare.split("'")[0].split("’")[0] == "i":
                continue
            if bare not in known:
                found.append(word)
    return found


_FAIL = re.compile(r"\b(fail|fails|failed|failure|misses?|missed|can't|cannot|couldn't|unable|no sign|nothing)\b", re.I)
_REFUSES = re.compile(r"\b(not|no|never|too|cannot|unable|impossible|fails?|failed|nothing|stays?|remains?)\b|n't\b", re.I)  # the reply says it does not work
_WIN = re.compile(r"\b(succeed|succeeds|succeeded|success|successfully|manages?|managed|finds?|found|discovers?|spots?|notices?|uncovers?)\b", re.I)


def contradicts(sentence: str, success: bool | None) -> bool:
    """Speaks only of success when the roll failed, or only of failure when it succeeded."""
    if success is None:
        return False
    won, lost = bool(_WIN.search(sentence)), bool(_FAIL.search(sentence))
    return (success is False and won and not lost) or (success is True and lost and not won)


_DOWN = re.compile(r"\b(defeated|dead|dies|died|killed|slain|falls? dead|is down|are down|collapses?|lifeless)\b", re.I)
# a death told as fact: "The father is dead." Only the rules (a fight) or the scene may kill anyone
_DEATH = re.compile(r"\b(?:dead|died|dies|killed|murdered|slain|drowned|corpses?|bod(?:y|ies)|grave|buried|death|deceased)\b", re.I)


def _names(sentence: str, name: str) -> bool:
    """The sentence names this combatant (full name, first word, or its kind in the plural: "the goblins")."""
    low, first = sentence.lower(), name.lower().split()[0]
    return name.lower() in low or bool(re.search(rf"\b{re.escape(first)}s?\b", low))


# --- the fallback sentence ---------------------------------------------------------------

def fallback(name: str, line: str, decision: str, success: bool | None, found: str = "", scene_line: str = "", why: str = "",
             recall: bool = False, implausible: bool = False) -> str:
    """A descriptive sentence or two from the action, the outcome and the scene, never "check succeeds"."""
    action = gist(base_action(line, name))
    question = line.strip().rstrip("\"'”’ ").endswith("?")
    if decision == "no_roll" and is_talk(line):  # words spoken are answered in the fiction; don't retell them as an act
        return " ".join(p for p in (f"{name} waits for an answer." if question else f"{name} waits to see how that lands.", scene_line) if p).strip()
    if decision == "impossible":
        reason = why or "nothing in this world allows it, however hard they try"
        return f"{name} cannot {action or 'do that'}: {reason}. {scene_line}".strip()
    if decision == "no_roll" or success is None:
        lead = f"{name} takes in the scene." if question or not action else f"{told_by(name, action)}."
        return " ".join(p for p in (lead, scene_line or found) if p).strip()
    if not action and speaks(line):  # a plea, a lie or a threat rolled: say how the words were taken
        lead = f"{name} makes their case, and the words land." if success else f"{name} makes their case, but the words fall flat."
        return " ".join(p for p in (lead, found or scene_line) if p).strip()
    if success and implausible:  # the hardest roll made: as far as anyone could get, not the impossible part
        return " ".join(p for p in (f"{name} tries to {action or 'do it'} and gets further than anyone could expect, but not all the way.", scene_line) if p).strip()
    if success:
        return " ".join(p for p in (f"{name} sets out to {action or 'do it'}, and it works.", found or scene_line) if p).strip()
    if recall:  # what they do not know stays unknown; the scene is still there to look at
        return " ".join(p for p in (f"{name} searches their memory, but nothing useful comes back.", scene_line) if p).strip()
    return " ".join(p for p in (f"{name} tries to {action or 'do it'}, but it does not go their way.", found or scene_line) if p).strip()


# --- the call ----------------------------------------------------------------------------

@dataclass
class NarrationRequest:
    """Everything the narration may draw on. Nothing here is GM-only except ``hidden``,
    which is used to check the output and never sent."""

    pack: Any
    scene: str  # public scene text (no secrets, no NPC agendas)
    name: str  # the acting character
    line: str  # what the player said
    decision: str  # roll / no_roll / impossible
    verdict: str = ""  # "Brisa's Stealth roll: success." (roll only)
    success: bool | None = None
    found: str = ""  # the secret just revealed, or what a failure meets
    recent: list[str] = field(default_factory=list)  # "Speaker: text" lines, newest last
    pc_names: list[str] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)  # GM-only texts the output must not repeat
    scene_line: str = ""  # the public scene sentence nearest the action, for the fallback
    standing: list[str] = field(default_factory=list)  # in a fight: who is still up (not to be told dead)
    max_tokens: int = 90
    lang: str = "en"  # the table's language: another one's prompts and fixed sentences come from gm.language
    why: str = ""  # why an impossible act cannot work, when the rules could tell
    recall: bool = False  # the roll was for what the character knows (History, Occult...): a failure learns nothing
    implausible: bool = False  # rolled at the hardest difficulty: even a success stops short of the impossible part
    said_before: list[str] = field(default_factory=list)  # the GM's earlier narrations this session, never to be said again
    answer: Any = None  # gm.answer.Answer: the content a reply to a question must carry, chosen from the world
    silent: list[str] = field(default_factory=list)  # NPCs dead or gone: nobody makes them speak
    facts: list[str] = field(default_factory=list)  # the world's stated facts: no sentence gives other numbers for them
    struck: bool | None = None  # in a fight: whether the acting character's attack hit (None: no attack this turn)
    struck_at: list[str] = field(default_factory=list)  # whom that attack was at
    world: Any = None  # gm.world.World: given, an act's reply is planned from it first (gm.outcome) and only worded by the model
    plan: Any = None  # gm.outcome.ActPlan, set by narrate: the content the reply to an act must carry


@dataclass
class Narration:
    text: str
    notes: list[str] = field(default_factory=list)
    first_token_s: float | None = None
    usage: Any = None
    attempts: int = 0
    fell_back: bool = False


SHOTS = Path(__file__).parent / "data" / "prompts" / "narrate_shots.yaml"


@functools.cache
def _example_phrases() -> frozenset[tuple[str, ...]]:
    """The worked replies' phrases, the narration's and the answers' alike: a reply lifting one copied it."""
    shots = [*shot_messages(SHOTS), *_ANSWER_SHOTS, *_PLAN_SHOTS]
    return frozenset(g for m in shots if m["role"] == "assistant" for g in _phrases(m["content"]))


def guide(req: NarrationRequest) -> str:
    """What the rules decided, in the few words the worked examples use."""
    if req.lang != "en":
        return language.guide(req)
    if req.answer is not None and req.decision == "no_roll":
        return answer_task(req)  # what the model was given to word: a reply that only repeats it is an echo
    if req.decision == "impossible":
        return f"Impossible: it cannot work ({req.why}); say why." if req.why else "Impossible: it cannot work; say why."
    if req.decision == "no_roll":
        return "No roll: answer from what the scene shows." if req.line.strip().endswith("?") else "No roll: it simply happens; describe it."
    if req.recall and req.success is False:
        return f"Result: {req.verdict} Nothing comes to mind.".strip()  # a failed recall tells no lore
    if req.implausible and req.success:
        return f"Result: {req.verdict} They get as far as anyone could, but the impossible part does not happen; say where it stops.".strip()
    return f"Result: {req.verdict}".strip()


ANSWER_SYSTEM = ("You word one short reply at a tabletop game. You are given what to say; say that, in one or two "
                 "sentences, and nothing else: no new facts, names or numbers, no lists, no labels.")


def answer_task(req: NarrationRequest) -> str:
    """The turn's part of the answer prompt: the question, who answers, the content to word."""
    a = req.answer
    asked = f'Asked: "{" ".join(req.line.split())}"'
    if a.speaker and a.quote:
        return f"{asked}\nSpeaker: {a.speaker} ({a.voice or 'an NPC'})\nSays: {a.quote}"
    return f"{asked}\nThe GM says: {a.content}"


def answer_messages(req: NarrationRequest) -> list[dict[str, str]]:
    """A question answered from the world: the model only words the content chosen (``gm.answer``),
    in the NPC's voice where one speaks; no worked narrations, which pull a small model into telling the scene."""
    if req.lang != "en":
        return language.answer_messages(req)
    return [{"role": "system", "content": ANSWER_SYSTEM}, *_ANSWER_SHOTS, {"role": "user", "content": answer_task(req)}]


# worked answers, written for this prompt (the same for every turn, so the server's prefix cache keeps them)
_ANSWER_SHOTS = [
    {"role": "user", "content": 'Asked: "Hald, where does this path go?"\nSpeaker: Hald (a ferryman; gruff, few words)\nSays: to the old mill, two miles north'},
    {"role": "assistant", "content": '"To the old mill," Hald grunts. "Two miles north, if your legs hold."'},
    {"role": "user", "content": 'Asked: "How deep is the well?"\nThe GM says: the well drops sixty feet to black water'},
    {"role": "assistant", "content": "The well drops sixty feet to black water."},
    {"role": "user", "content": 'Asked: "Sella, who took the key?"\nSpeaker: Sella (an innkeeper; warm, talkative)\nSays: I don\'t know'},
    {"role": "assistant", "content": 'Sella spreads her hands. "I don\'t know, love. I never saw it go."'},
]


def messages_for(req: NarrationRequest, retry_cause: str | None = None) -> list[dict[str, str]]:
    """System and worked replies (the same for every scene, so the server's prompt cache keeps
    them), then this turn: the scene, recent lines, the act, the rules' word."""
    if req.lang != "en":
        return language.narration_messages(req, retry_cause)
    ask = "\n".join([f"Scene: {' '.join(req.scene.split())}", *req.recent[-4:], f"{req.name}: \"{' '.join(req.line.split())}\"", guide(req)])
    if req.found:
        ask += f"\nThey learn: {req.found}"
    if retry_cause:
        ask += f"\n(Your last reply {retry_cause}. Describe something new that {req.name} sees or meets.)"
    return [{"role": "system", "content": table_system(req.pack)}, *shot_messages(SHOTS), {"role": "user", "content": ask}]


class _Stop(Exception):
    """Raised from inside the stream to end it early: the reply is spoilt before anything was
    shown (the plain content will be said), or it already says all it must."""


class _Gate:
    """Sentence by sentence: guard, keep, and pass kept text on to the listener as it comes.

    The first sentence is held until it is whole and has passed the guards (an echo or a label
    usually comes first); after that, text is streamed as written, and a later sentence that
    fails a guard is left out of the final text.

    Wording chosen content (an answer, an act's plan), ``ready`` says when the kept sentences
    carry enough of it to be shown: they are held until then, and later ones follow as each
    passes. ``strict``: a sentence cut before that spoils the reply (``_Stop``), since what
    follows a bad start rarely mends it. ``enough``: the shown text says all it must, so the
    model is stopped rather than left to add what nobody asked for.
    """

    def __init__(self, req: NarrationRequest, on_token: Callable[[str], None] | None, *,
                 ready: Callable[[str], bool] | None = None, strict: bool = False,
                 enough: Callable[[str], bool] | None = None) -> None:
        self.req, self.on_token = req, on_token
        self.ready, self.strict, self.enough = ready, strict, enough
        self.released = ready is None
        self.buffer = ""
        self.kept: list[str] = []
        self.causes: list[str] = []
        self.trimmed = 0  # clauses dropped for repeating what the table heard
        self.death_known = bool(_DEATH.search(" ".join([req.scene, req.line, req.found, *req.recent])))
        self.shown = False
        self.first_token_at: float | None = None
        title = getattr(req.pack, "title", "") or ""
        self.known = known_words(req.scene, req.line, req.found, req.name, title, *req.recent, *req.pc_names, *req.standing)
        # the scene's sentences and the GM's earlier narrations, split once: a reply saying them again is cut
        self.said_sentences = [*split_sentences(req.scene), *(x for t in req.said_before for x in split_sentences(t))]
        self.heard = [*req.recent[-3:], *self.said_sentences]  # what the table already heard, for the repeat guards
        # words only the impossible act brings (its fireball, its flight), not the scene's or anyone's name
        names = {w for n in req.pc_names for w in _words(n)} | set(_words(req.name))
        # the worked replies' phrases, less any this turn's own text uses: those come from the example, not the scene
        self.borrowed = _example_phrases() - set(_phrases(" ".join([req.scene, req.line, req.found, *req.recent])))
        self.act_words = ({w for w in _content(req.line) if len(w) >= 4} - set(_content(req.scene)) - names
                          if req.decision == "impossible" else set())
        # an answer chosen from the world may say again what the scene said: that is its point
        self.answering = req.answer is not None and req.decision == "no_roll"
        if self.answering:
            self.known |= known_words(req.answer.content, req.answer.quote, req.answer.speaker)
        # wording a planned outcome: saying the act again is the point, and a search that found nothing is no win
        self.planned = req.plan is not None
        if self.planned:
            self.known |= known_words(req.plan.said(), *_world_words(req.world))
            self.borrowed -= set(_phrases(req.plan.said()))

    def _verdict(self, sentence: str) -> str | None:
        req = self.req
        clean = _LABEL.sub("", sentence).strip()
        if len(_words(clean)) == 0:
            return "empty"
        if not self.planned and is_echo(clean, [req.line, req.verdict, guide(req)]) and not self._answers_question(clean):
            return "echoed the player's line" if is_echo(clean, [req.line]) else "repeated the prompt"
        if _CAST_LINE.match(clean):
            return "recited the cast list"  # "Ruth Quist: the keeper's grown daughter, frightened..."
        if not (self.answering or self.planned and any(tells(clean, f, 0.5) for f in [req.plan.said(), *req.plan.facts])) and len(_content(clean)) >= 4 \
                and is_echo(clean, self.heard, overlap=0.9):
            return "repeated earlier lines"
        if repeats_itself(clean):
            return "repeated itself"
        if speaks_for(clean, req.pc_names):
            return f"put words in {req.name}'s mouth" if req.name in clean else "spoke for a player character"
        if (other := acts_for_another(clean, req.name, req.pc_names, req.line)):
            return f"told {other}'s doings on {first_name(req.name)}'s turn"  # "Eddie's revolver is aimed..." when Tomás loads his
        leak = prompt_leak(clean, req.hidden) or (language.leak(clean) if req.lang != "en" else None)
        if leak:
            return f"leaked {leak}"
        invented = strangers(clean, self.known)
        if invented:
            return f"named {', '.join(invented[:2])}, who is nowhere in the scene"
        if self.planned and (things := new_things(clean, self.known)):
            return f"brought in {', '.join(things[:2])}, which the scene does not hold"
        if req.decision == "roll" and contradicts(clean, req.success) and not (self.planned and req.plan.kind == "nothing"):
            return "contradicted the dice"
        if req.recall and req.success is False and not (_REFUSES.search(clean) or _FAIL.search(clean)):
            return "told lore a failed recall did not earn"  # "a common crest in some ancient societies"
        if req.decision == "impossible" and not _FAIL.search(clean) and (_WIN.search(clean) or is_echo(clean, [req.line], overlap=0.4)):
            return "let the impossible succeed"  # "The lighthouse falls over": the act told as done
        if req.decision == "impossible" and not _REFUSES.search(clean) and set(_content(clean)) & self.act_words:
            return "let the impossible succeed"  # "The fireball strikes the bell tower": what the act makes, told as there
        if re.search(r"\bHP\b|\bhit points?\b|\b\d+\s*(damage|points?)\b", clean, re.I) or _DICE_TALK.search(clean):
            return "recited the numbers"
        if (gone := speaks_for_the_silent(clean, req.silent)):
            return f"made {gone} speak, who is dead or gone"
        if contradicts_numbers(clean, [req.answer.content] if req.answer is not None and req.answer.keys else req.facts):
            return "gave numbers the scene does not"  # "about two miles" for a forty-foot drop
        if req.struck is not None and _against_the_dice(clean, req):
            return "contradicted the fight"  # "Brisa's attack misses" after a 23 against AC 15 that killed the goblin
        if req.standing and _DOWN.search(clean) and any(_names(clean, name) for name in req.standing):
            return "contradicted the fight"
        if not req.standing and _DEATH.search(clean) and not self.death_known:
            return "told of a death nothing in the scene holds"  # "The father is dead." of a keeper the scene calls missing
        if copies(clean, self.borrowed):
            return "copied a worked example"  # "your pick slips with a sharp click" at a river crossing
        return None

    def _answers_question(self, sentence: str) -> bool:
        """An answer to a question shares its words ("How far is the drop?" → "The drop is forty feet"):
        it is no echo when it adds a number or two words of its own, or says the answer chosen from the world."""
        if not self.req.line.rstrip(" \"'”’").endswith("?"):
            return False
        new = set(_content(sentence)) - set(_content(self.req.line))
        return len(new) >= 2 or any(w.isdigit() or w in _NUMBER_WORDS_BACK for w in new) or (
            self.answering and self.req.answer.keys and carries(sentence, self.req.answer))

    def _without_heard_clauses(self, sentence: str) -> str:
        """The sentence less its clauses the table already heard: "The altar is cracked and the pews
        are loose." after "...and the pews are loose." keeps "The altar is cracked." A sentence
        that is all heard is left whole, for the verdict to cut."""
        parts = _CLAUSE_JOIN.split(sentence.strip())
        clauses, joins = parts[0::2], parts[1::2]
        if len(clauses) < 2:
            return sentence
        keep = [not (len(_content(c)) >= 2 and is_echo(c, self.heard, overlap=0.9)) for c in clauses]
        if all(keep) or not any(keep):
            return sentence
        out = ""
        for i, (clause, kept) in enumerate(zip(clauses, keep)):
            if kept:
                out += (joins[i - 1] if out and i > 0 else "") + clause
        out = out.strip().rstrip(",;")
        self.trimmed += 1
        return out[0].upper() + out[1:] + ("" if out[-1] in ".!?\"”" else ".")

    def _accept(self, sentence: str) -> None:
        sentence = sentence if self.answering or self.planned else self._without_heard_clauses(sentence)
        cause = self._verdict(sentence)
        if cause is not None:
            self.causes.append(cause)
            if self.strict and not self.released:
                raise _Stop(cause)
            return
        sentence = _LABEL.sub("", sentence).strip()
        if any(is_echo(sentence, [k], overlap=0.8) for k in self.kept) or len(self.kept) >= MAX_SENTENCES:
            return  # a small model loops; a GM says it once, and briefly
        self.kept.append(sentence)
        if self.released:
            self.show(sentence)
        elif self.ready is not None and self.ready(" ".join(self.kept)):
            self.released = True
            self.show(" ".join(self.kept))
        if self.released and self.enough is not None and self.enough(" ".join(self.kept)):
            raise _Stop("said all it must")

    def show(self, words: str) -> None:
        """Pass ``words`` on to the listener, after a space when something is on screen already."""
        if self.on_token is not None:
            if self.first_token_at is None:
                self.first_token_at = time.perf_counter()
            self.on_token((" " if self.shown else "") + words)
            self.shown = True

    def feed(self, delta: str) -> None:
        self.buffer += delta
        parts = split_sentences(self.buffer)
        # every part but the last is complete (the last may still grow)
        while len(parts) > 1:
            self._accept(parts.pop(0))
            self.buffer = " ".join(parts)

    def close(self) -> str:
        tail = self.buffer.strip()
        if tail and re.search(r"[.!?…。！？][\"'”’)\]」』）]*$", tail):
            self._accept(tail)
        elif tail and not self.kept:  # a cut-off only sentence is still better than nothing if it is clean
            if self._verdict(tail) is None and len(_words(tail)) >= MIN_WORDS:
                self._accept(tail.rstrip(",;:") + ".")
        self.buffer = ""
        return " ".join(self.kept)


async def _worded(model: Any, req: NarrationRequest, messages: list[dict[str, str]], max_tokens: int, gate: "_Gate") -> tuple[str, Any, str]:
    """Stream one wording through ``gate``: the kept text, the usage and why nothing could be kept
    ("" when the gate released words). Ended early by the gate, the stream's usage is unknown."""
    usage, cause = None, ""
    try:
        reply = await stream_complete(model, messages, gate.feed, step="narrate", max_tokens=max_tokens, temperature=0.3)
        usage = reply.usage
        gate.close()
    except _Stop:
        pass
    except ModelError as exc:
        cause = f"did not come ({exc})"
    text = " ".join(gate.kept) if gate.released else ""
    if not gate.released and not cause:
        cause = gate.causes[-1] if gate.causes else ""
    return text, usage, cause


async def _word_answer(model: Any, req: NarrationRequest, on_token: Callable[[str], None] | None, started: float) -> Narration:
    """One call to word the chosen answer. Its sentences are shown as they pass the guards, once
    those kept carry the answer (and, for an NPC, have them speak); a sentence cut before that
    stops the model and the answer is said as it stands, a later one is left out."""
    answer = req.answer

    def carried(text: str) -> bool:
        return (len(_words(text)) >= 3 and (not answer.keys or carries(text, answer) or tells(text, answer.content, 0.5))
                and (not answer.quote or (voiced if req.lang == "en" else language.voiced)(text, answer.speaker)))

    gate = _Gate(req, on_token, ready=carried, strict=True)
    text, usage, cause = await _worded(model, req, answer_messages(req), min(req.max_tokens, 56), gate)
    notes = [f"narration: cut a sentence that {c}" for c in dict.fromkeys(gate.causes)] if text else []
    if not text:
        text = answer.spoken() if req.lang == "en" else language.spoken(answer, req.lang)
        gate.show(text)
        notes = [f"narration said the answer plainly (the model's words {cause or 'left the answer out'})"]
    return Narration(text=text, notes=notes, first_token_s=_since(gate, started), usage=usage, attempts=1, fell_back=not gate.released)


def _since(gate: "_Gate", started: float) -> float:
    return (gate.first_token_at or time.perf_counter()) - started


# --- an act's planned outcome, worded -------------------------------------------------------

PLAN_SYSTEM = ("You narrate one moment at a tabletop game, as the GM. You are told what happens; tell exactly that, "
               "in one to three short sentences, in the present tense. Add nothing: no new people, objects, places or "
               "numbers, and no dice or rolls.")

# worked wordings, written for this prompt (the same every turn, so the server's prefix cache keeps them)
_PLAN_SHOTS = [
    {"role": "user", "content": "What happens: Hald tries to force the rusted hatch, but the hatch holds."},
    {"role": "assistant", "content": "Hald sets his shoulder to the rusted hatch and heaves, but the hatch holds fast."},
    {"role": "user", "content": "What happens: Sella searches the stable but finds no saddle."},
    {"role": "assistant", "content": "Sella looks in every corner of the stable, but there is no saddle to be found."},
    {"role": "user", "content": "What happens: Corin sits by the fire and warms their hands."},
    {"role": "assistant", "content": "Corin sinks down by the fire and holds their hands to its warmth."},
    {"role": "user", "content": "What happens: Ilse reads the ledger closely. The last entry is signed with a false name."},
    {"role": "assistant", "content": "Ilse runs a finger down the ledger, line by line. The last entry is signed with a false name."},
    {"role": "user", "content": "What happens: Sella makes their case to the guards, but the guards are not swayed."},
    {"role": "assistant", "content": "Sella makes her case, but the guards only fold their arms, unmoved."},
]

# words a narration may bring in without bringing a new thing into the scene: the body, time, light and sound
_FLAVOUR = set("""moment moments breath hand hands finger fingers fingertips eye eyes face head arm arms shoulder shoulders knee knees
foot feet heart time while minute minutes second seconds effort care attention way side sides edge edges bit sound sounds silence
noise light shadow shadows air nothing something anything everything one ones sigh shrug nod grin smile glance gaze voice word words
luck patience throat brow lip lips palm palms grip inch inches sign signs trace traces look turn step steps try attempt last
sort kind lot thing things none place spot tension weight strength balance footing hold stillness""".split())


def _world_words(world: Any) -> list[str]:
    """Every name and description the world holds: what a reply may mention without inventing it."""
    if world is None:
        return []
    out = [world.era, world.time, world.here]
    for item in [*world.npcs, *world.things, *world.places]:
        out += [item.name, *item.aliases, getattr(item, "description", ""), getattr(item, "role", "")]
    return [t for t in out if t]


_DETERMINERS = {"the", "a", "an", "with", "of", "some", "no", "any", "his", "her", "their", "its", "my", "your", "this", "that",
                "these", "those", "every", "each", "another", "by", "in", "on", "under", "into", "from"}
_PRONOUNS = {"she", "he", "her", "him", "hers", "himself", "herself", "itself", "themselves", "who", "whom", "whose", "what",
             "which", "someone", "somebody", "nobody", "noone", "everyone", "anyone", "none", "other", "others", "where", "when"}


def new_things(text: str, known: set[str]) -> list[str]:
    """Nouns in ``text`` nothing the GM was given mentions: a thing the model brought into the
    scene ("locked with a chainsaw", "the glass is thick with dark blood", "the keeper's desk").

    A word counts when it can only be a noun, or can be a noun or a verb and stands where a noun
    does (after an article, a possessive, a preposition or an adjective); words that can be
    adjectives or adverbs, function words and the body, time, light and sound a telling needs are
    not things."""
    from lemminflect import getAllLemmas

    seen = known | {_stem(w) for w in known}
    words = [w.removesuffix("'s").removesuffix("’s") for w in _words(re.sub(r"[\"“][^\"“”]*[\"”]", " ", text))]  # quotes are speech
    out = []
    for i, word in enumerate(words):
        if word in _STOP or word in _FLAVOUR or word in _PRONOUNS or word in seen or _stem(word) in seen or len(word) < 3 or word.isdigit():
            continue
        lemmas = getAllLemmas(word)
        if "NOUN" not in lemmas or {"ADJ", "ADV"} & set(lemmas):
            continue  # a function word, an adjective or adverb ("dark", "hard"), or a verb only
        if lemmas["NOUN"][0] in seen | _FLAVOUR:
            continue
        before = words[i - 1] if i else ""
        if "VERB" in lemmas and not (before in _DETERMINERS or "ADJ" in getAllLemmas(before)):
            continue  # "her fingers work": a verb where a verb stands
        out.append(word)
    return out


def carries_plan(text: str, plan: ActPlan) -> bool:
    """The reply says the planned outcome: most of its words, what was found, and a failure as a failure;
    a refusal says that it fails, and the decision's reason when it gave one."""
    if plan.kind == "done" and plan.success is None:
        return True  # an act no roll was needed for simply happens: any telling the guards pass will do
    if plan.kind == "refused":
        return bool(_REFUSES.search(text)) and (not plan.why or tells(text, plan.why, 0.5))
    if not tells(text, plan.facts[0], 0.5):  # the outcome itself; a fumble's "could hardly have gone worse" may be worded freely
        return False
    if plan.found and not tells(text, plan.found, 0.6):
        return False
    return plan.success is not False and plan.kind != "refused" or bool(_REFUSES.search(text) or _FAIL.search(text))


def act_plan(req: NarrationRequest) -> ActPlan | None:
    """The outcome a reply to this act must carry (``gm.outcome``), or None: a question, words
    spoken, a fight's round and a request without a world keep the open narration."""
    if req.world is None or req.answer is not None or req.struck is not None or req.standing:
        return None
    plan = plan_act(req.name, req.line, req.decision, req.success, found=req.found, why=req.why, world=req.world,
                    recall=req.recall, implausible=req.implausible, degree=degree_of(req.verdict))
    if plan is not None and len(plan.facts) == 1 and plan.kind != "refused" and req.scene_line and req.scene_line not in plan.facts[0]:
        plan.facts.append(req.scene_line)  # the act retold alone parrots the player's line: the scene it happens in goes with it
    return plan


def plan_messages(req: NarrationRequest) -> list[dict[str, str]]:
    return [{"role": "system", "content": PLAN_SYSTEM}, *_PLAN_SHOTS, {"role": "user", "content": f"What happens: {req.plan.said()}"}]


async def _word_plan(model: Any, req: NarrationRequest, on_token: Callable[[str], None] | None, started: float) -> Narration:
    """One call to word the planned outcome. The first words are shown once the kept sentences tell
    the outcome itself (the plan's first sentence: what the act did, a failure as a failure); later
    ones follow as each passes the guards, and the model is stopped once all the plan is told. A
    sentence cut before anything is shown (a guard, a thing the scene lacks) means the plan is said
    as it stands; a find the reply left out or had cut is added word for word."""
    plan = req.plan
    head = ActPlan(facts=plan.facts[:1], kind=plan.kind, success=plan.success, why=plan.why)
    told = len(split_sentences(plan.said()))
    gate = _Gate(req, on_token, ready=lambda text: carries_plan(text, head), strict=True,
                 enough=lambda text: carries_plan(text, plan) and len(gate.kept) >= told)
    text, usage, cause = await _worded(model, req, plan_messages(req), min(req.max_tokens, 64), gate)
    notes = [f"narration: cut a sentence that {c}" for c in dict.fromkeys(gate.causes)] if text else []
    if text and plan.found and not tells(text, plan.found, 0.6):  # the find must reach the table: word for word, if lost
        text = f"{text} {plan.found}"
        gate.show(plan.found)
        notes.append("narration: added what was found, which the reply left out")
    if text:
        notes.insert(0, f"narration worded the planned outcome ({plan.kind})")
    else:
        text = plan.said()
        gate.show(text)
        notes = [f"narration said the planned outcome plainly (the model's words {cause or 'left the outcome out'})"]
    return Narration(text=text, notes=notes, first_token_s=_since(gate, started), usage=usage, attempts=1, fell_back=not gate.released)


async def narrate(model: Any, req: NarrationRequest, *, on_token: Callable[[str], None] | None = None,
                  temperature: float = 0.3) -> Narration:
    """Stream the GM's words through the guards; retry once; else the descriptive fallback.

    0.3, not 0.7: with `local:small` the share of a narration's words that the scene or the line
    holds rose from 0.52 to 0.66 (`fresh22`) and 0.50 to 0.59 (`fresh21`), narration ok unchanged;
    the retry after a rejected reply still samples at 0.9 to say something new."""
    started = time.perf_counter()
    notes: list[str] = []
    if req.lang != "en":  # the GM's fixed words in the table's language; an act keeps the open narration (plans are English)
        req.answer, req.world = language.localized_answer(req.answer, req.lang), None
    if req.answer is not None and req.answer.final:  # said exactly so (an out-of-character request): no model
        if on_token is not None:
            on_token(req.answer.content)
        said = Narration(text=req.answer.content, notes=[f"answered without the model ({req.answer.kind})"], first_token_s=time.perf_counter() - started)
        if not req.answer.rest:
            return said
        # the questions the world left open, answered by the model alone, after what the world holds
        heard: list[str] = []

        def after(words: str) -> None:  # the model's words follow the world's, a space between, up to its first sentence's end
            if on_token is not None and not re.search(r"[.!?][\"”]?\s", "".join(heard)):
                on_token(words if heard else " " + words.lstrip())
            heard.append(words)
        rest = await narrate(model, replace(req, line=req.answer.rest, answer=None), on_token=after, temperature=temperature)
        # one sentence of it: past that the small model drifts ("the gold spur is packed with silver ...")
        more = (split_sentences(rest.text) or [rest.text])[0]
        return Narration(text=f"{said.text} {more}".strip(), notes=[*said.notes, *rest.notes], first_token_s=said.first_token_s,
                         usage=rest.usage, attempts=rest.attempts, fell_back=rest.fell_back)
    if req.answer is not None and req.decision == "no_roll":
        return await _word_answer(model, req, on_token, started)
    if req.plan is None:
        req.plan = act_plan(req)
    if req.plan is not None:  # an act: its outcome decided from data, the model only words it
        return await _word_plan(model, req, on_token, started)
    usage = None
    retry_cause = None
    text = ""
    for attempt in range(2):
        gate = _Gate(req, on_token)  # a retry only follows a reply of which nothing was shown
        try:
            reply = await stream_complete(model, messages_for(req, retry_cause), gate.feed, step="narrate",
                                          max_tokens=req.max_tokens, temperature=temperature if attempt == 0 else 0.9)
        except ModelError as exc:  # the dice have spoken: the turn still ends in words
            retry_cause = f"did not come ({exc})"
            break
        usage = reply.usage if usage is None else usage + reply.usage
        text = gate.close()
        for cause in dict.fromkeys(gate.causes):
            notes.append(f"narration: cut a sentence that {cause}")
        if gate.trimmed:
            notes.append("narration: dropped a clause that repeated earlier lines")
        if len(_words(text)) >= MIN_WORDS:
            def add(words: str, what: str) -> None:
                nonlocal text  # what the player must hear and the reply left out, streamed like the rest
                text = f"{text} {words}"
                notes.append(f"narration: added {what}, which the reply left out")
                if on_token is not None:
                    on_token(" " + words)

            if req.found and req.success and not tells(text, req.found):  # a clue the dice earned must reach the table
                add(req.found, "what was found")
            # it must say the act fails, and why if the rules know: "the far edge is 200 feet away" only repeats the scene
            if req.decision == "impossible" and not ((_REFUSES.search(text) or language.refuses(text)) and (tells(text, req.why) if req.why else True)):
                add(fallback(req.name, req.line, "impossible", None, why=req.why) if req.lang == "en" else
                    language.fallback(req.lang, req.name, req.line, "impossible", None, why=req.why), "why the act cannot work")
            first = gate.first_token_at
            return Narration(text=text, notes=notes, first_token_s=(first - started) if first else None, usage=usage, attempts=attempt + 1)
        retry_cause = gate.causes[-1] if gate.causes else "was too short"
        if gate.shown:  # something is already on screen: finish with the fallback rather than repeat
            break
    words = fallback(req.name, req.line, req.decision, req.success, req.found, req.scene_line, req.why, req.recall, req.implausible) \
        if req.lang == "en" else language.fallback(req.lang, req.name, req.line, req.decision, req.success, req.found, req.scene_line,
                                                   req.why, req.recall, req.implausible, talk=is_talk(req.line))
    if text and req.decision == "no_roll" and is_talk(req.line) and req.scene_line:
        words = req.scene_line  # the words on screen already answer: "...waits for an answer" would unsay them
    text = (text + " " + words).strip() if text else words
    notes.append(f"narration fell back to a plain description (the model's reply {retry_cause})")
    if on_token is not None:
        if gate.first_token_at is None:
            gate.first_token_at = time.perf_counter()
        on_token((" " if gate.shown else "") + words)
    first = gate.first_token_at
    return Narration(text=text, notes=notes, first_token_s=(first - started) if first else None, usage=usage, attempts=2, fell_back=True)
