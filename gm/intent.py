"""What a player's line means, read once: talk to someone, a question for the GM, an attack, a move...

Every part of the GM that needs to know what a line is *for* (the fight, the answerer, the
narrator) reads the same ``Intent`` instead of keeping its own verb list. The reading is by
words, never by a model, and general: verbs are data (the lexicons below), names come from
the caller (the NPCs, foes, characters, weapons, spells and items in play).

    read_intent("Ruth, when did you last see him?", npcs=["Ruth Abernathy"])       # talk, npc Ruth Abernathy
    read_intent("I swing at goblin 2 with my mace", foes=["Goblin 1", "Goblin 2"],
                weapons=["Mace"], in_fight=True)                                    # attack Goblin 2 with Mace
    read_intent("I stab the wizard", foes=["Goblin 1"], in_fight=True).unknown_target  # "wizard": ask which one
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Literal, Sequence

from pydantic import BaseModel

from pipelines.decide import OUT_OF_CHARACTER
from pipelines.speech import addressed, first_name, is_talk, narrated, without_quotes

__all__ = ["Intent", "read_intent", "named_in", "ATTACK_VERBS"]

Kind = Literal["talk", "ask", "act", "attack", "move", "use", "cast", "ooc"]

# ---- lexicons: verbs as data. "*" stands for up to four words ("throw * at": throw a javelin at).
ATTACK_VERBS = (
    "attack", "hit", "strike", "stab", "slash", "hack", "hack at", "smash", "bash", "punch", "kick", "shoot", "shoot at",
    "charge", "charge at", "lunge at", "swing at", "swing * at", "go for", "fire at", "fire on", "fire * at", "open fire on",
    "loose * at", "throw * at", "hurl * at", "cut down", "cut at", "slice", "cleave", "skewer", "impale", "smite", "shank",
    "tackle", "clobber", "whack", "wallop", "strike at", "thrust at", "jab", "stab at", "pummel", "bludgeon", "gut", "take a swing at",
    "take a shot at", "aim at", "aim * at", "behead",
)
TALK_VERBS = ("ask", "tell", "say", "reply", "answer", "shout", "whisper", "call", "greet", "thank", "beg", "plead with",
              "question", "talk to", "speak to", "speak with", "chat with", "warn", "persuade", "convince", "promise", "inform")
MOVE_VERBS = ("go", "walk", "run", "head", "climb", "cross", "enter", "leave", "move", "step", "sneak", "creep", "travel",
              "return", "follow", "descend", "ascend", "approach", "jump", "swim", "ride", "drive", "wade", "crawl", "back away",
              "make my way", "make our way", "hurry", "dash", "sprint", "retreat", "flee")
USE_VERBS = ("use", "drink", "quaff", "apply", "read", "light", "pour", "uncork", "eat", "consume", "activate", "wave", "unlock",
             "put on", "wear", "ring", "play", "hold up", "pull out", "take out")
CAST_VERBS = ("cast", "invoke", "channel", "conjure", "pray for", "call upon")
# what a line says of the GM or the table rather than of the world
OOC = re.compile(r"^\s*(?:[(\[]\s*(?:ooc|gm|dm|meta)\b|as (?:a|the) player\b|(?:gm|dm|game ?master)\s*[,:]|"
                 r"(?:quick )?rules? question\b|out of game\b)|\bout[- ]of[- ]character\b|\booc\b", re.I)
# words that may stand between an attack verb and its target, or after it, without naming anyone
_FILLER = set("""the a an at on upon into onto toward towards to that this those these nearest closest next other another
    one ones my his her their our its again forward ahead in out across over through down up wildly hard fast fiercely
    straight right left quickly first back off away low high then now once twice fray all can""".split())
_GENERIC = set("""enemy enemies foe foes opponent opponents attacker attackers target targets thug thugs guard guards
    bandit bandits monster monsters creature creatures beast beasts someone somebody anyone nearest closest""".split())
_PRONOUNS = {"it", "him", "her", "them", "he", "she", "they"}
_STOP = re.compile(r"\b(?:with|using|and|but|then|while|before|after|as|so|until|because|if|from|for)\b|[,.;:!?\"“”]", re.I)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}
_QUOTES = re.compile(r"[\"“]([^\"”]*)[\"”]")
# where a sentence starts, past the filler a player types before a name ("... cut the deck. so yselde, where...")
_SENTENCE_END = r"(?:^|[.!?]\s+)(?:\s*(?:so|okay|ok|well|hey|now|wait|um|uh|alright|right|and|oh)[,\s]+)*"


class Intent(BaseModel):
    """One reading of a player's line: what kind of thing it is, and whom or what it names.

    ``target`` is a name from the caller's lists (a foe, else an NPC); ``unknown_target`` holds
    the words of a target that matched no one, so the caller can ask "which one?".
    """

    kind: Kind
    text: str
    npc: str | None = None  # the NPC spoken to (talk)
    target: str | None = None  # attack / cast / use
    unknown_target: str | None = None
    weapon: str | None = None
    item: str | None = None
    spell: str | None = None
    question: bool = False
    quoted: str = ""


def _verbs(words: Iterable[str]) -> re.Pattern:
    """A pattern for a verb list: each first word takes -s/-es/-ed/-ing, "*" stands for a few words."""
    forms = []
    for phrase in sorted(words, key=len, reverse=True):
        head, *rest = phrase.split()
        stem = head[:-1] if head.endswith("e") else head
        form = re.escape(stem) + (r"(?:e|es|ed|ing)" if stem != head else r"(?:s|es|ed|ing)?")
        for word in rest:
            form += r"(?:\s+[\w'’.-]+){1,4}?" if word == "*" else r"\s+" + re.escape(word)
        forms.append(form)
    return re.compile(r"\b(?:" + "|".join(forms) + r")\b", re.I)


_ATTACK, _TALK, _MOVE, _USE, _CAST = map(_verbs, (ATTACK_VERBS, TALK_VERBS, MOVE_VERBS, USE_VERBS, CAST_VERBS))
# a lexicon word after one of these is a noun, not the act: "at first light", "the long walk", "his call"
_NOUN_AFTER = set("the a an my his her their our your its this that some any first last of at in on by for".split())


def _does(pattern: re.Pattern, text: str) -> re.Match | None:
    """The first use of a verb of ``pattern`` as a verb (not a noun after "the", "first"...)."""
    for found in pattern.finditer(text):
        before = re.findall(r"[\w'’]+", text[:found.start()])
        if not before or before[-1].lower() not in _NOUN_AFTER:
            return found
    return None


def _aliases(entry: Any) -> tuple[str, list[str]]:
    """A name and what a line may call it by: itself, its aliases, its first name, its role."""
    if isinstance(entry, str):
        name, extra = entry, []
    else:
        name, extra = entry.name, [*getattr(entry, "aliases", []), getattr(entry, "role", "") or ""]
    base = re.sub(r"\s+#?\d+$", "", name)
    role = extra[-1] if extra else ""
    # "the chapel's elderly keeper" → keeper, "captain of the town watch" → captain
    head = re.findall(r"[a-z][\w-]+", role.lower().split(" of ")[0])[-1:] if role and not isinstance(entry, str) else []
    out = [name, base, first_name(base), *extra, *head, *(a[4:] for a in [name, *extra] if a.lower().startswith("the "))]
    out += [w for w in base.split()[1:] if len(w) > 2 and w[0].isupper()]
    # "Sheriff, when does the coach get in?" is put to Sheriff Tull; "doc" to Coroner Dr. Ezekiel Thorne, "sergeant"
    # to Watch-Sergeant Dalia Korvane: any title among the words before the last name
    for head in (p for w in base.split()[:-1] for p in w.split("-")):
        if head.lower().rstrip(".") in _TITLES:
            out.append(head)
            same = _SAME_TITLE.get(head.lower().rstrip("."), ())  # "Doctor, a word": Dr. Ambrose
            out += [*same, *(f"{t} {base.split()[-1]}" for t in same)]
    return name, [a for a in dict.fromkeys(a.strip() for a in out)
                  if len(a) > 1 and not _ATTACK.fullmatch(a) and a.lower() not in {"the", "a", "an", "old", "young"}]


def _number_of(name: str) -> str | None:
    found = re.search(r"\s#?(\d+)$", name)
    return found.group(1) if found else None


def _plural(word: str) -> str:
    """A pattern for a noun and its plural: wolf/wolves, harpy/harpies, goblin/goblins."""
    stem, last = re.escape(word[:-1]), word[-1:]
    irregular = {"f": f"|{stem}ves", "y": f"|{stem}ies"}.get(last.lower(), "")
    return rf"(?:{re.escape(word)}(?:s|es)?{irregular})"


def _score(text: str, entry: Any) -> int:
    """How much of the line names this one (the longest alias found; 0 when it is not named).

    A numbered name ("Goblin 2") is named by its number or by its kind alone, never by another number.
    """
    name, aliases = _aliases(entry)
    number, best = _number_of(name), 0
    for alias in aliases:
        kind = re.sub(r"\s+#?\d+$", "", alias)
        if number and re.search(rf"\b{re.escape(kind)}\s*#?{number}\b", text, re.I):
            best = max(best, len(alias) + 2)
        elif re.search(rf"\b{_plural(kind)}\b(?!\s*#?\d)", text, re.I):
            best = max(best, len(alias))
    return best


def _ordinals(text: str) -> str:
    """ "the second goblin" → "goblin 2": one way to write a number."""
    return re.sub(r"\b(first|second|third|fourth|fifth)\s+([a-z][\w'’-]*)", lambda m: f"{m.group(2)} {_ORDINALS[m.group(1).lower()]}",
                  text, flags=re.I)


def named_in(text: str, people: Sequence[Any], last: str | None = None) -> str | None:
    """The one the line names among ``people`` (the best-named; ties go to the earlier, e.g. the nearest).

    "the other goblin" skips the last one targeted when another fits.
    """
    text = _ordinals(text)
    scored = [(_score(text, p), i, _aliases(p)[0]) for i, p in enumerate(people)]
    named = sorted((s for s in scored if s[0]), key=lambda s: (-s[0], s[1]))
    if re.search(r"\b(?:other|another)\b", text, re.I):
        others = [n for _, _, n in named if n != last] or [n for _, _, n in scored if n != last and not named]
        return others[0] if others else None
    return named[0][2] if named else None


def _named(text: str, names: Sequence[str]) -> str | None:
    """The longest of ``names`` the line mentions, else one whose head noun it mentions ("crossbow" for
    "Light crossbow", "potion" for "Potion of healing")."""
    for name in sorted(names, key=len, reverse=True):
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.I):
            return name
    for name in names:
        tail = re.split(r"\s+of\s+", name)[0].split()[-1].lstrip(".0123456789")  # its head noun
        if len(tail) > 2 and re.search(rf"\b{re.escape(tail)}s?\b", text, re.I):
            return name
    return None


def _addressed(text: str, people: Sequence[Any]) -> str | None:
    """The one a line puts a question or words to by name: "Ruth, where...?" anywhere a sentence starts."""
    for entry in people:
        name, aliases = _aliases(entry)
        for alias in sorted(aliases, key=len, reverse=True):
            if re.search(rf"{_SENTENCE_END}{re.escape(alias)}\s*,\s*[^?]*\?", text, re.I | re.M):
                return name
    return None


def _attack(said: str, foes, npcs, weapons, last_target, in_fight) -> Intent | None:
    """An attack: a violent verb at someone. Out of a fight, the words it acts on must name someone."""
    verb = _ATTACK.search(said)
    if verb is None:
        return None
    weapon = _named(said, weapons)
    aimed = _STOP.split(said[verb.end():], maxsplit=1)[0]
    words = [w for w in re.findall(r"[\w'’-]+", aimed) if w.lower() not in _FILLER]
    target = named_in(aimed, foes, last_target) or (named_in(said, foes, last_target) if in_fight else named_in(aimed, npcs))
    if target is None and last_target and {w.lower() for w in words} & _PRONOUNS:
        target = last_target
    held = {w.lower() for w in (weapon or "").split()}
    loose = [w for w in words if w.lower() not in _GENERIC | _PRONOUNS | held]
    if not in_fight and target is None and len(loose) == len(words):
        return None  # "I hit the road", "strike a deal": no one to fight
    return Intent(kind="attack", text=said, target=target, unknown_target=" ".join(loose) if target is None and loose else None,
                  weapon=weapon)


_TITLES = {"doc", "sheriff", "captain", "doctor", "dr", "brother", "sister", "father", "mother", "professor", "deputy", "sergeant",
           "mayor", "marshal", "judge", "reverend", "lord", "lady", "sir", "old", "mr", "mrs", "ms", "miss", "master", "mistress"}
# a question about words already said: "What was the riddle Nettlejaw asked?", "what Gus told us"
_SAID_BY = re.compile(r"\b(?:said|told|asked|mentioned|answered|replied|whispered|promised|claimed|warned)\b", re.I)
_REMIND = re.compile(r"\bremind (?:me|us)\b|\b(?:tell|say) (?:me|us|it|that) again\b|\bwhat (?:was|were) (?:it|that|the \w+)\b.*\bagain\b", re.I)
_YOU = re.compile(r"\b(?:you|your|yours|yourself|u|ya|y'all|yer)\b", re.I)  # typed fast: "did u see", "ya seen"
_TITLED = rf"(?:(?:{'|'.join(sorted(_TITLES))})\.?\s+)?"  # "Captain Marrow!", "asks Mrs. Bellweather": a title before a name
# a question of what someone here says or knows now (not what they said before)
_SAYS_NOW = re.compile(r"\b(?:does|do|would|can)\s+(?:[\w'’.-]+\s+){1,4}?(?:say|think|know|tell us|reckon|make of|have to say)\b", re.I)
_SAME_TITLE = {"dr": ("Doctor", "Doc"), "doctor": ("Doc", "Dr."), "doc": ("Doctor", "Dr."), "capt": ("Captain",), "captain": ("Capt.",),
               "sgt": ("Sergeant",), "sergeant": ("Sgt.",), "prof": ("Professor",), "professor": ("Prof.",)}
_REPORTED = re.compile(r"\b(?:did|does|has|had)\s+(?:[\w'’-]+\s+){0,3}?(?:say|said|tell|told|mention|mentioned|call|called|ask|asked)\b", re.I)


def _talked_to(text: str, listeners: Sequence[Any]) -> tuple[bool, str | None]:
    """Whether the line talks ("ask", "tell", quoted words) and to whom: a name after the verb, else in the line."""
    plain = without_quotes(text)
    opened_to = addressed(text)  # "Abner, come down!": words put to someone by name are talk, questions or not
    if opened_to and (who := named_in(opened_to, listeners)):
        return True, who
    hailed = re.match(rf"^\s*(?:{_HAIL})?(?:(?:the|old|young)\s+)?([\w'’-]+)\s*,[^?]*\?", text, re.I)
    called = opened_to or (hailed.group(1) if hailed else None)
    if called and called.lower() not in _NOT_A_LISTENER | _INTERJECTION_WORDS and "?" in text:
        return True, named_in(called, listeners)  # "oi granny, how much for the bloodmoss?": put to someone, by a word that is no one's name
    verb = _does(_TALK, plain)
    asked_aloud = any(q.rstrip().endswith("?") for q in _QUOTES.findall(text))  # flips the boy a coin: "Seen anybody, kid?"
    if verb is None and not (is_talk(text) or asked_aloud):
        return False, None
    if verb is not None and re.search(r"\b(?:he|she|they|it)(?:\s+(?:is|was|are|were)|['’]s)?\s+$", plain[:verb.start()], re.I):
        return False, None  # "is he telling the truth?": someone else's words, asked about
    if verb is None:
        return True, _first_named(plain, listeners)
    if re.search(r"\b(?:want|wants|going|need|needs|plan|plans|mean|means|have) to\s+$|\b(?:will|'ll|gonna|shall)\s+$", plain[:verb.start()], re.I):
        return False, None  # "I want to ask the clerk about it": what the player means to do next, not words said now
    # "ask Maren about the bell": the one right after the verb; "turn to the keeper and ask when the bell
    # rang": the one before it; else whoever the line names first
    after = plain[verb.end():]
    topic = re.search(r"\b(?:about|what|when|where|why|how|if|whether|that)\b", after, re.I)
    before = plain[:verb.start()]
    before = "" if _named_at_start(before, listeners) else before  # "Marisol greets the keeper": Marisol is who talks
    return True, (_named_at_start(after, listeners) or _first_named(before, listeners)
                  or _first_named(after[:topic.start()] if topic else after, listeners))


def _named_at_start(text: str, people: Sequence[Any]) -> str | None:
    """The listener the words open with ("ask Maren about...", "tell the keeper that..."), or None."""
    for entry in people:
        name, aliases = _aliases(entry)
        # "ask Maren", "tell the keeper", "greets the old shrine keeper", "asks Mrs. Bellweather"
        if any(re.match(rf"\s*(?:to\s+)?(?:(?:the|an?|old|young|that|this)\s+)*(?:(?!(?:when|where|what|why|how|who|whom|whether|if|about|that|to|for|of|and)\b)(?-i:[a-z-]+)\s+)?{_TITLED}{re.escape(a)}\b", text, re.I) for a in aliases):
            return name
    return None


def _first_named(text: str, people: Sequence[Any]) -> str | None:
    """The one named first in ``text`` ("I ask Maren about the bell" is put to Maren, not the bell)."""
    found = []
    for entry in people:
        name, aliases = _aliases(entry)
        for alias in aliases:
            hit = re.search(rf"\b{re.escape(alias)}\b", text, re.I)
            if hit:
                found.append((hit.start(), -len(alias), name))
    return min(found)[2] if found else None


_OF_THEM = re.compile(r"\b(?:is|was|does|did|has|can|will|would)\s+(?:he|she|they)\b[^.!]*\?", re.I)
_OWN_PAST = re.compile(r"\b(?:was|were|did|am|are|should)\s+(?:i|we)\b", re.I)
_ASKS_SOMETHING = re.compile(r"\b(?:asks?|asked|asking|inquires?|enquires?|wonders? aloud)\b", re.I)
_INTERJECTION_WORDS = {"oh", "ah", "uh", "um", "hmm", "well", "yes", "yeah", "no", "wait", "hey", "hi", "hello", "sorry", "please", "right", "alright", "sure"}
# words an opening address uses for the table or the GM, not for someone in the scene
_NOT_A_LISTENER = {"gm", "dm", "keeper", "marshal", "narrator", "guys", "everyone", "everybody", "folks", "team", "all", "y'all", "okay", "ok", "so"}
# a question's first words, after a name said without a comma: "zibzab how much for the fireworks?"
_ASKING = (r"(?:how|hows|what|what's|whats|where|where's|wheres|when|whens|who|who's|whos|why|whys|which|is|are|was|were|do|does|did|"
           r"can|could|would|will|have|has|got|any|anything|seen)\b")  # typed fast, the apostrophe goes: "whens", "wheres"
# a name put to someone: "Excuse me, Maren - ...", "Hey Maren, ...", "Maren: ...", "..., Maren?"
_HAIL = (r"(?:excuse me|pardon me|hey+|hi|hiya|heya|hello|howdy|oi|yo|ahoy|greetings|listen|look|please|sorry|"
         r"good\s+(?:morning|evening|afternoon|day|morrow)|morning|mornin['’]?|evening|evenin['’]?|afternoon)[,!]?\s+")
_GREETED = re.compile(r"(?:^|[.!?]\s+)\s*(?:hey+|hi|hiya|heya|hello|howdy|ahoy|greetings|good\s+(?:morning|evening|afternoon|day|morrow)|"
                      r"morning|mornin['’]?|evening|evenin['’]?|afternoon|g['’]day|well met)\b[,!.]?\s+", re.I)  # a sentence opening with a greeting
_CALL = r"[A-Za-z]{2,8}[,!]\s+"  # any one word called out before the name: "Psst, Snik", "Ahoy, Jeb"


def _hailed(text: str, people: Sequence[Any]) -> str | None:
    """The listener a line hails by name at its start (after a greeting, or with a colon) or at its end."""
    for entry in people:
        name, aliases = _aliases(entry)
        for alias in sorted(aliases, key=len, reverse=True):
            a = re.escape(alias)
            # at the line's start or a sentence's: "I pound on the door. Doc Ellery, open up!"
            if re.search(rf"(?:^|[.!?]\s+|[\"“])\s*(?:{_HAIL}|{_CALL})?(?:{_TITLED}|(?-i:[A-Z][a-z]+\s+)){a}\s*(?:[,:!?—–-]|\s-)\s*\S|,\s*{a}\s*[?!.]*\s*[\"”]?\s*$",
                         text, re.I):
                return name
            if re.search(rf"^\s*(?:{_HAIL}|{_CALL})?(?i:{_TITLED}){a}\s*[.!]\s+\S", text):  # "Psst, Snik. Wake up.", "Evening, Mr. Vane. ..." (as written)
                return name
            if re.search(rf"(?:^|[.!?]\s+)\s*{_HAIL}{_TITLED}{a}\s*[.!,]+\s+\S", text, re.I):  # "hey mortimer. whatd you find?": hailed, any case
                return name
            if "?" in text and re.search(rf"^\s*(?:{_HAIL})?{a}\s+{_ASKING}", text, re.I):  # "zibzab how mcuh for the bag??"
                return name
            if re.search(rf"^\s*{_HAIL}{a}\s+{_ASKING}", text, re.I):  # "hey corky whens the stage due in": hailed, asked, no "?"
                return name
    return None


def _sharper(text: str, chosen: str | None, people: Sequence[Any]) -> str | None:
    """Of two people a line could mean by a name they share ("Mr. Quist? Abner?" of Ruth and Abner
    Quist), the one it also names by a name of their own."""
    if chosen is None:
        return None
    def said(alias: str) -> bool:
        return re.search(rf"(?<![\w'’]){re.escape(alias)}(?![\w'’])", text, re.I) is not None

    def names(entry: Any) -> set[str]:  # names, not roles ("daughter")
        return {a for a in _aliases(entry)[1] if a[:1].isupper()}

    mine = next((names(p) for p in people if _aliases(p)[0] == chosen), set())
    for entry in people:
        name, aliases = _aliases(entry)[0], names(entry)
        own = set(aliases) - mine
        if name != chosen and any(said(a) for a in set(aliases) & mine) and any(said(a) for a in own if len(a) > 2):
            if not any(said(a) for a in mine - set(aliases)):
                return name
    return chosen


def _asks_you(text: str) -> bool:
    """The line's last sentence is a question put to "you" ("Nervous guy with a satchel. Where'd you take him?")."""
    last = re.split(r"(?<=[.!?])\s+", without_quotes(text).strip())[-1]
    return last.endswith("?") and bool(_YOU.search(last))


def _only_asks(text: str) -> bool:
    """Every sentence outside quotes is a question: "How deep is it? Can I wade across?"."""
    # a title's period ends no sentence: "What did Gus say Mrs. Beaumont pays?" is one question
    sentences = [s for s in re.split(r"(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<=[.!?])\s+", without_quotes(text).strip()) if s]
    sentences = [s for s in sentences if not _ASIDE.fullmatch(s)] or sentences  # "Ooh. Okay, what's in there?"
    return bool(sentences) and all(s.endswith("?") or _ASKS_PLAINLY.match(s) for s in sentences)


# a question typed without its "?": "ok what room was the guy in again", "wait how much was the mayor paying us"
# (a word or two before it that is no one acting: "ok", "wait", "guys", typos and all; "I wonder what time it is" says)
_ASKS_PLAINLY = re.compile(r"^(?:(?!(?:i|we|you|he|she|they|it)\b)[a-z']{1,6}[,.]?\s+){0,2}"
                           r"(?:(?:what|how|where|when|who|which|why|whats|wheres|hows|whens)\b(?!\s+(?:a|an)\b)(?:\s+[\w'’]+){0,3}?\s+"
                           r"(?:is|was|were|are|did|does|do|had|has|can|could|should|would|will)\b"
                           # ... or its verb run into it: "and whats the name of whoever first heard the bell ring"
                           r"|(?:whats|wheres|hows|whens|whos|what['’]s|where['’]s|how['’]s|who['’]s|when['’]s)\s+(?:the|a|an|his|her|your|their|that|this|our|my)\b)"
                           r"[^!.]*$", re.I)


# a sentence that says nothing: "Ooh.", "Okay.", "Wait!", "Hmm, right."
_ASIDE = re.compile(r"(?:\s*(?:oh|ooh|okay|ok|wait|hmm+|huh|well|right|alright|so|sorry|yes|no|hey|wow|damn|great|fine|uh|um)[,.!]*)+\s*", re.I)


def _here(npcs: Sequence[Any]) -> list[Any]:
    """The NPCs (objects, not bare names) in the scene now and alive: the ones a line can be put to."""
    return [n for n in npcs if not isinstance(n, str) and getattr(n, "present", True) and getattr(n, "alive", True)]


def _the_one_here(text: str, npcs: Sequence[Any], last_npc: str | None = None, anyone: bool = False) -> str | None:
    """Whom a line says "you" to when it names no one (``anyone``: whom talk that names no one is put to):
    the only NPC in the scene, alive and there, or among several the one this character spoke to last."""
    if not anyone and not _YOU.search(without_quotes(text)):
        return None
    here = _here(npcs)
    if len(here) == 1:
        return here[0].name
    people = [n for n in npcs if not isinstance(n, str)]
    if not here and len(people) == 1 and _YOU.search(" ".join(_QUOTES.findall(text))):
        return people[0].name  # "Where'd you hide the key, old man?" over the coffin: put to the one dead man, who cannot answer
    return last_npc if last_npc in {n.name for n in here} else None


def _the_one_named(text: str, npcs: Sequence[Any]) -> str | None:
    """Whom a question with "you" goes to when the line names one NPC here and no one else, by name, title or
    role: "i pull out the chair and sit down across from her. so, miss mercer. where were you last night?"."""
    here = _here(npcs)
    plain = without_quotes(text)
    named = [n.name for n in here if _score(plain, n)]
    return named[0] if len(named) == 1 else None


# what players call someone whose name they do not use, and what the one so called is: a man or a woman,
# old or young, or what they do ("officer", "your radiance"), read from their name and role
_MEN = r"(?:sir|mister|my lord|milord|lad|laddie|sonny|son|boy|old man|grandpa|gramps|grand-?dad|pops|fella|fellow|young man|guv|guvnor|big guy|little guy)"
_WOMEN = r"(?:ma['’]?am|mam|madam|madame|missus|missy|my lady|milady|lass|lassie|girl|old woman|granny|grandma|gran|young lady|auntie)"
_RANKED = r"(?:your\s+(?:grace|honou?r|majesty|highness|radiance|eminence|excellency|lordship|ladyship|worship|holiness|reverence))"
_OTHERS = r"(?:old timer|old-timer|officer|constable|chief|boss|brother|sister|father|mother|padre|friend|stranger|kid|buddy|pal|mate)"
_CALLED = re.compile(rf"(?:^|[.!?,;:]\s*|\b(?:hey+|hi|hello|oi|ok|okay|um+|uh+|well|good (?:morning|evening|afternoon|day)|evening|morning|"
                     rf"afternoon|howdy|excuse me|pardon me|please|thanks|thank you|sorry)[,!]?\s+)({_MEN}|{_WOMEN}|{_RANKED}|{_OTHERS})"
                     rf"(?=\s*(?:[,!?.]|$)|\s+{_ASKING})", re.I)
_WOMAN_WORDS = re.compile(r"\b(?:woman|women|lady|widow|wife|daughter|mother|sister|girl|landlady|matron|queen|duchess|countess|priestess|"
                          r"mistress|mrs|miss|ms|madam|madame|granny|grandmother|aunt|nun|abbess|maid|barmaid|waitress|seamstress|"
                          r"actress|hostess|heiress|baroness|empress|princess|witch)\b", re.I)  # not "her": "her husband" is a man
_MAN_WORDS = re.compile(r"\b(?:man|men|gentleman|husband|son|father|brother|boy|king|duke|count|baron|prince|priest|mr|sir|lord|uncle|"
                        r"monk|friar|abbot|barman|fellow|grandfather|nephew|widower|emperor)\b", re.I)
_CALLED_AS = {  # a term that says what the one called is, by their role
    "old": re.compile(r"\b(?:old|elderly|aged|ancient|grey|gray|white-haired|silver-haired|grizzled|wizened|veteran)\b", re.I),
    "young": re.compile(r"\b(?:boy|girl|child|kid|young|youth|lad|lass|urchin|orphan|apprentice|novice)\b", re.I),
    "holy": re.compile(r"\b(?:priest|priestess|cleric|abbot|abbess|bishop|cardinal|monk|nun|friar|brother|sister|reverend|holy|high)\b", re.I),
    "high": re.compile(r"\b(?:high|bishop|archbishop|cardinal|abbot|abbess|matriarch|patriarch|oracle|pontiff|prelate)\b|\bhigh\s+priest(?:ess)?\b", re.I),
    "noble": re.compile(r"\b(?:lord|lady|duke|duchess|count|countess|baron|baroness|king|queen|prince|princess|noble|magistrate|judge|mayor)\b", re.I),
    "law": re.compile(r"\b(?:officer|constable|deputy|guard|sergeant|watch|watchman|police|policeman|cop|marshal|sheriff)\b", re.I),
    "leader": re.compile(r"\b(?:chief|boss|leader|foreman|captain|headman|master|owner|overseer)\b", re.I),
}
_LOWLY = re.compile(r"\b(?:brother|sister|acolyte|novice|monk|nun|friar|lay)\b", re.I)
_TERM_AS = [(re.compile(r"^(?:old timer|old-timer|old man|old woman|granny|grandma|gran|grandpa|gramps|grand-?dad|pops)$", re.I), "old"),
            (re.compile(r"^(?:kid|boy|girl|lad|laddie|lass|lassie|sonny|son|missy|young man|young lady)$", re.I), "young"),
            (re.compile(r"^your\s+(?:radiance|eminence|holiness|reverence)$", re.I), "high"),
            (re.compile(r"^(?:brother|sister|father|mother|padre)$", re.I), "holy"),
            (re.compile(r"^(?:my lord|milord|my lady|milady|your\s+(?:grace|honou?r|majesty|highness|excellency|lordship|ladyship|worship))$", re.I), "noble"),
            (re.compile(r"^(?:officer|constable)$", re.I), "law"),
            (re.compile(r"^(?:chief|boss)$", re.I), "leader")]


def _the_one_called(text: str, npcs: Sequence[Any]) -> str | None:
    """Whom a line calls by a term of address and not by name ("Good afternoon maam! when did you last see..."),
    when one NPC here fits it: a woman for "ma'am", the old one for "old timer", the priestess for "your radiance"."""
    called = _CALLED.search(without_quotes(text)) or _CALLED.search(text)
    if called is None:
        return None
    term = " ".join(called.group(1).lower().split())
    if re.search(rf"\b(?:oh|boy),?\s+{re.escape(term)}\b", text, re.I):
        return None  # "Oh, boy." is no one called
    here = _here(npcs)

    def about(n: Any) -> str:
        return " ".join([n.name, *getattr(n, "aliases", []), getattr(n, "role", "")])

    titled = [n for n in here if re.search(rf"\b{re.escape(term)}\b", about(n), re.I)]  # "Brother," to Brother Teodric
    if len(titled) == 1:
        return titled[0].name
    fits = here
    for sex, other in ((_MEN, (_MAN_WORDS, _WOMAN_WORDS)), (_WOMEN, (_WOMAN_WORDS, _MAN_WORDS))):
        if re.fullmatch(sex, term, re.I):
            same, differs = other
            plainly = [n for n in fits if same.search(about(n)) and not differs.search(about(n))]
            if len(plainly) == 1:
                return plainly[0].name  # "maam" of the landlady, among a man and two of no stated sex
            fits = [n for n in fits if not (differs.search(about(n)) and not same.search(about(n)))]
    kind = next((k for pattern, k in _TERM_AS if pattern.match(term)), None)
    if kind == "high" and len(fits) > 1 and not any(_CALLED_AS["high"].search(about(n)) for n in fits):
        # no prelate here: "your radiance" is for the priestess, not the brother or the acolyte
        fits = [n for n in fits if _CALLED_AS["holy"].search(about(n)) and not _LOWLY.search(about(n))] or fits
    elif kind is not None and len(fits) > 1:
        fits = [n for n in fits if _CALLED_AS[kind].search(about(n))] or fits
    return fits[0].name if len(fits) == 1 else None


def _the_one_beside(text: str, npcs: Sequence[Any]) -> str | None:
    """Whom a question after a deed goes to when the deed goes up to one NPC here by name ("kneels beside Calla. how
    old are these tracks?"): the one the character has just joined, who knows what they look at together."""
    parts = [p for p in re.split(r"(?<=[.!?])\s+", without_quotes(text).strip()) if p]
    if len(parts) < 2 or not parts[-1].rstrip().endswith("?") and not re.match(_ASKING, parts[-1], re.I):
        return None
    deed = " ".join(parts[:-1])
    here = _here(npcs)
    beside = [n.name for n in here if any(re.search(rf"\b(?:next to|beside|alongside|up to|over to|across to|near|with)\s+{_TITLED}{re.escape(a)}\b",
                                                    deed, re.I) for a in _aliases(n)[1])]
    return beside[0] if len(beside) == 1 and not re.search(r"\b(?:is|was|does|did|has|will)\s+(?:he|she|they)\b", parts[-1], re.I) else None


def read_intent(text: str, *, npcs: Sequence[Any] = (), foes: Sequence[Any] = (), pcs: Sequence[Any] = (),
                weapons: Sequence[str] = (), spells: Sequence[str] = (), items: Sequence[str] = (),
                in_fight: bool = False, last_target: str | None = None, last_npc: str | None = None) -> Intent:
    """Read a player's line into one ``Intent``; never raises.

    Args:
        npcs, foes, pcs: names (or objects with ``name`` and optional ``aliases``/``role``) in play;
            ``foes`` nearest first, so "the goblin" among two is the nearer one.
        weapons, spells, items: what the acting character has, by name.
        in_fight: attack wording is then always an attack (at the nearest foe when it names none).
        last_target: whom the character last attacked: "it", "him" and "the other one" read by it.
        last_npc: whom the character last spoke to: a question with "you" that names no one goes on to them.
    """
    text = str(text or "")
    said = narrated(text)
    # "hey corky whens the stage due in": a hail, a name and a question word ask, "?" or not
    asks = "?" in text or re.search(rf"^\s*{_HAIL}(?:[\w'’-]+[,.!]*\s+){{1,2}}{_ASKING}", text, re.I) is not None or _ASKS_PLAINLY.match(text.strip()) is not None
    base = {"text": text, "quoted": " ".join(q.strip() for q in _QUOTES.findall(text)), "question": asks}
    npc_names = {_aliases(n)[0] for n in npcs}
    if OUT_OF_CHARACTER.match(text) or OOC.search(without_quotes(text)):  # "Keeper, out of character, ...": anywhere outside quotes
        return Intent(kind="ooc", **base)
    listeners = [*npcs, *pcs, *foes]
    spoken_to = _sharper(text, _addressed(text, listeners) or _hailed(text, listeners), listeners)
    if spoken_to is not None:
        return Intent(kind="talk", npc=spoken_to if spoken_to in npc_names else None, **base)
    spell = _named(said, spells)
    if spell or _does(_CAST, said):
        return Intent(kind="cast", spell=spell, target=named_in(said, [*foes, *npcs, *pcs]), **base)
    fight = _attack(said, foes, npcs, weapons, last_target, in_fight)
    if fight is not None:
        return fight.model_copy(update=base)
    now = _SAYS_NOW.search(without_quotes(text))
    asked_of = named_in(without_quotes(text)[now.start():now.end()], npcs) if now else None
    if asked_of is not None:
        return Intent(kind="talk", npc=asked_of, **base)  # "What does the sergeant say about the raid?" is put to him
    if _only_asks(text) and (_REPORTED.search(without_quotes(text)) or _SAID_BY.search(without_quotes(text))):
        return Intent(kind="ask", **base)  # "what did Hilda say Tobin looks like?" asks the GM what was said
    if _REMIND.search(without_quotes(text)) and not _addressed(text, npcs):
        return Intent(kind="ask", **base)  # "Remind me what we found in the chest.", "Lottie asking: remind me what I won?"
    talks, spoken_to = _talked_to(text, listeners)
    if spoken_to is None and "?" in text and (talks or _only_asks(text) or _asks_you(text)):
        spoken_to = (_the_one_here(text, npcs, last_npc) or (_the_one_named(text, npcs) if _asks_you(text) else None)
                     or _the_one_called(text, npcs))
        talks = talks or spoken_to is not None
    if spoken_to is None and not talks and "?" in text:
        spoken_to = _the_one_beside(text, npcs)  # "i crouch down next to calla by the tracks. how old are these?"
        talks = spoken_to is not None
    greeted = _GREETED.search(without_quotes(text))
    if spoken_to is None and not talks and "?" in text and greeted and _here(npcs):
        # "morning! have u seen a tall man in a grey cloak?": a greeting and a question go to the one the scene is about
        # (the first it names, still here), unless a term of address fits another ("howdy ma'am") or the line names one
        # ("i walk over to the egg seller. hi! is the well water safe?")
        before = without_quotes(text)[:greeted.start()]  # named in the act before the greeting, not in what is asked of
        spoken_to, talks = _the_one_called(text, npcs) or (_the_one_named(before, npcs) if before.strip() else None) or _here(npcs)[0].name, True
    # "watches her face - is she telling the truth?" asks of her, not her; "who was I supposed to ask for?" asks the GM
    about_them = _OF_THEM.search(without_quotes(text)) or _OWN_PAST.search(without_quotes(text))
    if talks and spoken_to is None and not about_them and ("?" in text or _ASKS_SOMETHING.search(without_quotes(text))):
        spoken_to = _the_one_here(text, npcs, last_npc, anyone=True)  # "finally asks how far it is to the ruins": the one here
    if talks:
        return Intent(kind="talk", npc=spoken_to if spoken_to in npc_names else None, **base)
    if _only_asks(text):
        return Intent(kind="ask", **base)
    item = _named(said, items)
    if item or _does(_USE, said):
        return Intent(kind="use", item=item, target=named_in(said, [*foes, *npcs, *pcs]), **base)
    if _does(_MOVE, said):
        return Intent(kind="move", **base)
    return Intent(kind="act", **base)
