"""Content first: what a reply to a question must say, chosen from the world before any model speaks.

A small model asked "Ruth, when did you last see your father?" invents ("she was not alive");
given the answer to word, it words it. So the GM picks the content here, from data, and the
model only says it (``gm.narration`` checks the reply carries it, else says it plainly):

- **talk** to an NPC: what that NPC knows on the topic (``Knowledge``), told freely, only after a
  check of its family, or never; else what the scene says on it, in their voice; else "I don't
  know". Nobody dead or gone answers.
- **ask** the GM: the world's facts (the scene's sentences, what was found or decided since),
  or, for "what did we find earlier?", what this table said and found.
- **ooc**: a request for hidden facts out of character is "for your characters to find out".

A question the world has no answer for gets none here: the narration decides it once and
``remember_decided`` stores it as a fact, so the same question gets the same answer later.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from pipelines.speech import first_name

__all__ = ["Answer", "choose_answer", "content_keys", "remember_decided", "OOC_REFUSAL", "is_recall"]

Embed = Callable[[list[str]], np.ndarray]

OOC_REFUSAL = "That's for your characters to find out in the game; ask or look in character."
# cosine similarity (MiniLM) a knowledge topic or a fact must reach to answer the question
TOPIC_MATCH = 0.42
FACT_MATCH = 0.38
NPC_FACT_MATCH = 0.5  # a scene sentence an NPC says for want of knowledge must be plainly on the question
_RECALL = re.compile(r"\b(?:earlier|before|again|remind|remember|recall|did (?:i|we|you|they|he|she) (?:find|get|take|see|say|learn|hear|pick)|"
                     r"(?:found|took|picked up|learned|heard) (?:earlier|before|back)|what was it|what did .{1,30} (?:say|tell|find))\b", re.I)
# what an out-of-character line asks about that is the player's own business, not the world's hidden facts
_RULES_TALK = re.compile(r"\b(?:hp|hit points?|ac|armou?r class|spell slots?|slots?|rules?|modifier|bonus|sheet|level|dice|roll|"
                         r"initiative|turn order|whose turn|save|saving throw|proficien\w*|skill list|inventory|break|snack|pizza|bathroom)\b", re.I)
_HOW_MUCH = re.compile(r"\b(?:how (?:far|high|tall|deep|long|wide|many|much|old|big|heavy|close|near)|what year|which year|how many)\b", re.I)
# what a "how far is the lighthouse" asks about: the noun after the verb
_SUBJECT = re.compile(r"\bhow \w+(?: away| off| down| up)? (?:is|are|was|were|does|do|did)\s+(?:the|a|an|that|this|those|these|it|we|i)?\s*(\w+)", re.I)
_HAS_NUMBER = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
                         r"sixty|seventy|eighty|ninety|hundred|thousand|dozen|half|a few|several)\b", re.I)
_STOP = set("""a an the of to in on at by for with and or but is are was were be been it its this that these those i you he she
    we they me him her us them my your his our their what who whom whose where when why how which do does did can could would
    should will shall may might must have has had there here then than so if not no yes any some all as from into about up
    down out over under again very just also too tell say said ask know""".split())


@dataclass
class Answer:
    """What a reply must carry. ``content`` is a plain sentence (the fallback says it as is);
    ``quote`` the NPC's own words for it; ``final`` means no model: said exactly so."""

    kind: str  # npc | npc_unknown | npc_refuses | npc_gated | npc_gone | fact | recall | ooc
    content: str
    speaker: str = ""
    quote: str = ""
    keys: list[str] = field(default_factory=list)
    gated_checks: list[str] = field(default_factory=list)  # a check of this family must succeed before it is told
    final: bool = False
    voice: str = ""  # who the speaker is and how they talk (role; voice notes), for the words

    @property
    def guide(self) -> str:
        """The line the narration prompt gets instead of "answer from the scene"."""
        if self.kind == "npc" or self.kind == "npc_unknown" or self.kind == "npc_refuses":
            return f'{self.speaker} answers in their own voice, in quotes, saying: "{self.quote}"'
        if self.kind == "npc_gated":
            return f'{self.speaker} is not ready to say; they answer in quotes, guarded: "{self.quote}"'
        if self.kind == "npc_gone":
            return f"No answer comes: {self.content} Say so; nobody speaks for them."
        return f"Answer the question with this, in your own words: {self.content}"

    def spoken(self) -> str:
        """The reply when the model's words are unusable: the content, in the NPC's voice where there is one."""
        if self.quote and self.speaker:
            quote = self.quote.strip()
            quote = quote[0].upper() + quote[1:] if quote else quote
            quote = quote if quote.endswith((".", "!", "?")) else quote + "."
            return f'{self.speaker} says, "{quote}"'
        return self.content


def content_keys(text: str, limit: int = 4) -> list[str]:
    """The words a reply must share with the content to carry it: numbers first, then names, then rare words."""
    words = re.findall(r"[A-Za-z][\w'’-]*|\d+(?:[.,]\d+)?", text)
    numbers = [w for w in words if w[0].isdigit()]
    numbers += [w for w in words if w.lower() in _NUMBER_WORDS]
    names = [w for i, w in enumerate(words) if w[0].isupper() and i > 0 and w.lower() not in _STOP]
    rare = sorted({w.lower() for w in words if w.lower() not in _STOP and len(w) >= 5}, key=len, reverse=True)
    out: list[str] = []
    for w in [*numbers, *names, *rare]:
        if w.lower() not in {o.lower() for o in out}:
            out.append(w)
    return out[:limit]


_NUMBER_WORDS = set("""one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty sixty
    hundred thousand dozen half""".split())


def is_recall(line: str) -> bool:
    """A question about what happened at this table before ("what did we find earlier?")."""
    return bool(_RECALL.search(line))


def _content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9']+", text.lower()) if w not in _STOP and len(w) > 2}


def _best(question: str, texts: Sequence[str], embed: Embed) -> tuple[int, float]:
    """The text nearest the question: MiniLM cosine, plus a little for the content words they share."""
    if not texts:
        return -1, 0.0
    vectors = embed([question, *texts])
    scores = vectors[1:] @ vectors[0]
    asked = _content_words(question)
    bonus = np.array([0.05 * min(2, len(asked & _content_words(t))) for t in texts])
    total = scores + bonus
    best = int(total.argmax())
    return best, float(total[best])


def _npc_answer(npc: Any, question: str, world: Any, found_checks: Sequence[str], embed: Embed) -> Answer:
    """What an NPC says to the question: what they know, what the scene says near them, or that they don't know."""
    name = npc.name
    if not getattr(npc, "alive", True):
        return Answer("npc_gone", f"No answer comes: {name} is dead.", speaker=name, final=True)
    if not getattr(npc, "present", True):
        return Answer("npc_gone", f"No answer comes: {name} is not here.", speaker=name, final=True)
    voice = "; ".join(x for x in (getattr(npc, "role", ""), getattr(npc, "voice", "")) if x)
    told = _npc_knowledge(npc, question, world, found_checks, embed)
    told.voice = voice
    return told


def _npc_knowledge(npc: Any, question: str, world: Any, found_checks: Sequence[str], embed: Embed) -> Answer:
    name = npc.name
    knows = list(getattr(npc, "knows", []) or [])
    if knows:
        topics = [" ".join([k.topic, *k.keywords]) for k in knows]
        at, score = _best(question, topics, embed)
        if at >= 0 and score >= TOPIC_MATCH:
            item = knows[at]
            if item.never:
                return Answer("npc_refuses", f"{name} will not speak of that.", speaker=name, quote="That is not something I will talk about.")
            if item.checks and not set(item.checks) & set(found_checks):
                return Answer("npc_gated", f"{name} is not ready to tell that.", speaker=name,
                              quote="I'd rather not say. Not to strangers.", gated_checks=list(item.checks))
            return Answer("npc", item.answer, speaker=name, quote=item.answer, keys=content_keys(item.answer))
    facts = [f.text for f in _facts(world)]
    at, score = _best(question, _fact_keys(world), embed)
    if at >= 0 and score >= NPC_FACT_MATCH:
        return Answer("npc", facts[at], speaker=name, quote=facts[at], keys=content_keys(facts[at]))
    return Answer("npc_unknown", f"{name} does not know.", speaker=name, quote="I don't know. I couldn't tell you that.")


def _facts(world: Any) -> list[Any]:
    return [f for f in getattr(world, "facts", []) or [] if getattr(f, "text", "").strip() and getattr(f, "public", True)]


def _fact_keys(world: Any) -> list[str]:
    """What each fact is matched on: its text and what it is about (a decided fact keeps the question it answered)."""
    return [" ".join([f.text, *(getattr(f, "about", []) or [])]) for f in _facts(world)]


def choose_answer(intent: Any, world: Any, *, table_said: Sequence[str] = (), found_checks: Sequence[str] = (),
                  embed: Embed | None = None) -> Answer | None:
    """The content of the reply to a question, or None when the line is no question the world can answer.

    Args:
        intent: the line's reading (``gm.intent.Intent``): its kind, the NPC addressed, whether it asks.
        world: the scene's ``gm.world.World`` (its NPCs and facts, revealed secrets and outcomes included).
        table_said: what was said and found at this table, oldest first (recall answers from it).
        found_checks: the checks that succeeded this turn (a gated knowledge item opens to its family).
    """
    from pipelines.embeddings import embed as minilm

    embed = embed or minilm
    kind, text = getattr(intent, "kind", "act"), getattr(intent, "text", "")
    if kind == "ooc":
        return None if _RULES_TALK.search(text) else Answer("ooc", OOC_REFUSAL, final=True)
    if kind == "talk" and getattr(intent, "npc", None):
        npc = world.npc(intent.npc) if world is not None else None
        if npc is not None and (getattr(intent, "question", False) or text.rstrip().endswith("?")):
            return _npc_answer(npc, text, world, found_checks, embed)
        if npc is not None and not (getattr(npc, "alive", True) and getattr(npc, "present", True)):
            return _npc_answer(npc, text, world, found_checks, embed)
        return None
    if kind != "ask":
        return None
    if is_recall(text) and table_said:
        said = [s for s in table_said if s.strip()]
        at, score = _best(text, said, embed)
        if at >= 0 and score >= FACT_MATCH - 0.1:
            return Answer("recall", said[at], keys=content_keys(said[at]))
    facts, keys = [f.text for f in _facts(world)], _fact_keys(world)
    if _HOW_MUCH.search(text):  # "how far is the lighthouse?" is answered by a fact with a number about it, or decided
        subject = _SUBJECT.search(text)
        about = subject.group(1).lower().rstrip("s") if subject and subject.group(1).lower() not in _STOP else ""
        numbered = [i for i, f in enumerate(facts) if _HAS_NUMBER.search(f) and (not about or about in keys[i].lower())]
        facts, keys = [facts[i] for i in numbered], [keys[i] for i in numbered]
    at, score = _best(text, keys, embed)
    if at >= 0 and score >= FACT_MATCH:
        return Answer("fact", facts[at], keys=content_keys(facts[at]))
    return None


def remember_decided(world: Any, question: str, reply: str, turn: int) -> Any:
    """A fact the world lacked, decided by the narration: stored, so asking again gets the same answer.
    For "how far / how many" the sentence that gives a number; else the one sharing most of the question's words."""
    said = [x for x in re.split(r"(?<=[.!?])\s+", reply.strip()) if len(x.split()) >= 4]
    if _HOW_MUCH.search(question):
        said = [x for x in said if _HAS_NUMBER.search(x)]
    asked = _content_words(question)
    sentence = max(said, key=lambda x: len(asked & _content_words(x)), default="")
    if sentence and world is not None and hasattr(world, "add_fact"):
        return world.add_fact(sentence, about=[question.strip()], source="decided", turn=turn)
    return None
