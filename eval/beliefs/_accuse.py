"""Whom a public speech accuses or vouches for: the one reading behind ``vgm mafia score`` and the viewer.

``stances(text, players, speaker)`` reads a speech sentence by sentence and returns, for each named
player (never the speaker), +1 when the speech accuses them and -1 when it vouches for them. The
vote/talk consistency score (``_speech.accused_in``) keeps the accusations; the viewer's deception
markers (``_viewer_data.public_claims``) keep both. English, Chinese (``--lang zh``) and Russian.

The reading, step by step:

* **Sentences** end after ``. ! ? ;`` and ``。！？；…`` (with or without a following space) and at
  line breaks (``sentences``).
* **Cues** (``ACCUSE_CUES``, ``VOUCH_CUES``): English and Russian cues are whole words or word stems
  (``suspect…`` matches "suspects", not "unsuspecting"; ``honest…`` does not match "dishonest",
  which accuses); Chinese cues are matched anywhere. "town", "clear(ed)" and "safe" vouch only
  after a verb such as "is", "looks", "reads" ("Alex is town", not "the town should vote"; not
  "it's clear"). 相信 ("believe") vouches on its own ("我相信Alex") but only frames what follows
  when its clause has another cue ("我相信Alex是狼" accuses Alex). "no doubt", "not only",
  "doubtless" are idioms, not cues or negations; nor is the Mafia as the side acting ("the Mafia
  killed Drew", "the Mafia will probably kill someone like Kennedy", "黑手党杀了Drew").
* **Negation** (``NEGATIONS``): a negation flips the first cue after it when at most three words
  (four tokens for Chinese, one per character) lie between them in the same clause: "I don't suspect
  Alex" and "我不怀疑Alex" vouch, "Alex is not Mafia" and "Gray不是狼" vouch, "I don't trust Alex"
  accuses, "I don't think Alex is lying" vouches. A comma, "but", 但 end a clause ("No, Alex is
  lying" accuses). Chinese words that only look negated (不过 however, 不错 good, 是不是 whether…) are
  not negations.
* **Targets**: each cue goes to the named player nearest to it in its sentence (distance in words,
  a clause break counting two; on a tie, the earlier name), and to players listed with that one
  ("Alex and Blair are lying", "Alex、Blair都很可疑"). A name's closest cue decides its stance: "The
  town should vote out Alex" accuses Alex; a cue reaching a player only through a list yields to
  a cue aimed at them. A player whose closest cues cancel gets no stance.

Where the score and the viewer used to differ, this reading takes:

* the viewer's vouch cues and negation *flip* ("Alex is not Mafia" vouches; the score only dropped
  the cue) — the score still counts only accusations, so its figures change only where below;
* the score's sentence splitting (Chinese punctuation, no space needed), name matching (a name
  next to Chinese characters counts; "Grayson" is not "Gray") and its wider cue list ("fishy",
  "lies", "doubt", "vote for", the Chinese cues);
* the viewer's per-cue target (a sentence naming a bystander does not accuse them: "Talking with
  Di earlier, I found Cy suspicious" accuses Cy only), where the score accused every name in the
  sentence; but several accused at once ("I suspect Alex and Blair") stay accused, where the
  viewer kept one;
* neither's negation window: the score missed "don't"/"doesn't" (it scored "I don't suspect Alex"
  as an accusation), the viewer looked three words back across commas ("No, Alex is lying" was
  a vouch) and matched cues inside words ("dishonest", "unclear", "unsafe" vouched).

A heuristic: it does not parse. "I'm not Mafia, but Alex is" reads as vouching for Alex, "Alex
suspects Blair" as the speaker accusing Alex, and Russian names are matched only as written
(not "Алекса" for "Алекс"). Read its markers as leads.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_LETTER = rf"[^\W{_CJK}]"  # a letter or digit of a spaced script (a word may not continue into it)

ACCUSE_CUES: dict[str, tuple[str, ...]] = {
    "en": (r"suspect\w*", r"suspicio\w*", r"sus", r"mafi\w*", r"accus\w*", r"lying", r"liars?", r"lies", r"lied",
           r"dishonest\w*", r"guilty", r"shady", r"fishy", r"sketchy", r"odd", r"scum\w*", r"wol(?:f|ves)\w*", r"evil",
           r"bad guys?", r"traitors?", r"killers?", r"assassins?", r"minions?", r"morgana", r"mordred", r"oberon",
           r"eliminat(?:e|ing)", r"vote\s+(?:for|against|out)", r"vote\s+\w+\s+out", r"doubt\w*", r"distrust\w*",
           r"mistrust\w*", r"untrustworth\w*"),
    "zh": ("怀疑", "可疑", "狼", "坏人", "黑手党", "杀手", "撒谎", "说谎", "骗子", "投(?:票)?给", "投出", "出局(?!了)", "放逐",
           "刺客", "爪牙", "莫甘娜", "莫德雷德", "奥伯伦", "邪恶"),
    "ru": (r"подозр\w*", r"мафи\w*", r"лж\w*", r"лгун\w*", r"вр(?:[её]т|ал|ут|ун)\w*", r"врать", r"обвин\w*",
           r"исключ(?:ить|им|аем)\w*", r"нечестн\w*", r"злоде\w*", r"голос\w*\s+(?:за|против)"),
}
"""What accuses, per language (regular expressions; English and Russian ones are whole words or stems)."""

VOUCH_CUES: dict[str, tuple[str, ...]] = {
    "en": (r"trust\w*", r"innocen\w*", r"honest\w*", r"villagers?", r"loyal\w*", r"good guys?",
           r"town\w*", r"clear(?:ed)?", r"safe"),
    "zh": ("信任", "相信", "信得过", "可信", "好人", "清白", "无辜", "诚实", "老实", "靠谱", "村民", "平民", "忠臣", "金水"),
    "ru": (r"довер\w*", r"мирн\w*", r"невинов\w*", r"честн\w*"),
}
"""What vouches, per language (as ``ACCUSE_CUES``)."""

NEGATIONS: dict[str, str] = {
    "en": r"not|never|no|hardly|cannot|nothing|\w+n['’]t|(?:do|does|did|is|are|was|were|ca|wo|would|should|could)nt",
    "ru": r"не|ни|нет",
    "zh": r"(?<!得)不(?!过|错|管|仅|但|少|久|然|论|如|断|同|停|得不)|没有?(?!错)|并非|从未|未必",
}
"""What flips the cue after it (English and Russian: whole words)."""

_PREDICATIVE = ("town", "clear", "safe")  # vouch only as a predicate: "Alex is town"
_COPULA = re.compile(r"(?<!\w)(?:is|are|was|were|be|been|looks?|seems?|reads?|feels?)\s+(?:(?:not|very|pretty|quite|so|probably"
                     r"|likely|definitely|totally|completely|confirmed|100%)\s+)*$|['’]s\s+$", re.IGNORECASE)
_IMPERSONAL = re.compile(r"(?<!\w)(?:it|that|this|what)\s*(?:is|was|['’]s)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_FRAMES = ("相信",)  # vouch alone, frame a following cue
_IDIOMS = re.compile(r"(?<!\w)(?:no doubt|without (?:a |any )?doubt|doubtless|undoubtedly|not only|no matter)(?!\w)|毫无疑问|不容置疑"
                     # the Mafia as the side acting, not a label: "the Mafia killed Drew", "黑手党昨晚杀了Drew", "мафия убила Drew"
                     r"|(?<!\w)the\s+(?:mafia|wolves)(?=\s+(?:will|would|might|may|could|can|must|killed|kills?|is going|are going"
                     r"|has|have|had|wants?|wanted|targets?|targeted|chose|chooses|tried|tries|probably|likely|team|members?)(?!\w)"
                     r"|['’]s\b)|(?:黑手党|狼人?)(?=(?:昨晚|今晚|晚上|可能|会|要|已经)?(?:杀|刀|袭击))|(?<!\w)мафи\w*(?=\s+(?:убил|убь|убива)\w*)",
                     re.IGNORECASE)
_BREAK = re.compile(r"[,，:：—–()（）](?!\s*(?:что|that|чтобы)(?!\w))|(?<!\w)(?:but|though|however|но|а)(?!\w)|但是?|可是|然而",
                    re.IGNORECASE)
_TOKEN = re.compile(rf"[{_CJK}]|{_LETTER}+")
_LIST = re.compile(r"(?:[\s,，、/&]|(?<!\w)(?:and|or|и|или)(?!\w)|和|与|跟|或者?|以及|还有)*", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?;。！？；…])(?![.!?;。！？；…])|\n+")
NEGATION_REACH = {"zh": 4, "en": 3, "ru": 3}
"""Tokens a negation may reach over to the cue it flips (a Chinese token is one character)."""


def _spaced(fragments: tuple[str, ...]) -> str:
    return "|".join(rf"(?<!\w)(?:{f})(?!\w)" for f in fragments)


_CUE_RES = [(re.compile(_spaced(ACCUSE_CUES["en"] + ACCUSE_CUES["ru"]) + "|" + "|".join(ACCUSE_CUES["zh"]), re.IGNORECASE), 1),
            (re.compile(_spaced(VOUCH_CUES["en"] + VOUCH_CUES["ru"]) + "|" + "|".join(VOUCH_CUES["zh"]), re.IGNORECASE), -1)]
_NEG_RE = re.compile(rf"(?<!\w)(?:{NEGATIONS['en']}|{NEGATIONS['ru']})(?!\w)|(?P<zh>{NEGATIONS['zh']})", re.IGNORECASE)


@dataclass(frozen=True)
class Cue:
    """A cue word in a sentence: where it is and which way it points (+1 accuses, -1 vouches), negation applied."""

    start: int
    end: int
    polarity: int
    word: str


@dataclass(frozen=True)
class Stance:
    """What one sentence of a speech says about one player: +1 accuses, -1 vouches."""

    sentence: str
    target: str
    polarity: int

    @property
    def kind(self) -> str:
        return "accuses" if self.polarity > 0 else "vouches"


def sentences(text: str) -> list[str]:
    """The speech cut into sentences (``. ! ? ;``, ``。！？；…``, line breaks), each stripped, none empty."""
    return [s.strip() for s in _SENTENCE.split(text or "") if s and s.strip()]


def _tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def _gap(text: str) -> int:
    """How far apart two spans are: the words between them, a clause break counting two."""
    return _tokens(text) + 2 * len(_BREAK.findall(text))


def _masked(sentence: str, names: list[tuple[int, int, str]]) -> str:
    """The sentence with idioms blanked and each name one neutral word, every position kept."""
    out = _IDIOMS.sub(lambda m: " " * len(m.group()), sentence)
    for start, end, _ in names:
        out = out[:start] + "N" + " " * (end - start - 1) + out[end:]
    return out


def _raw_cues(sentence: str, masked: str) -> list[Cue]:
    found = [Cue(h.start(), h.end(), sign, sentence[h.start():h.end()]) for rx, sign in _CUE_RES for h in rx.finditer(masked)]
    found.sort(key=lambda c: (c.start, -(c.end - c.start)))
    out: list[Cue] = []
    for c in found:  # overlapping cues ("可信任"): the longer, then the earlier, wins
        if out and c.start < out[-1].end:
            continue
        low = c.word.lower()
        if any(low.startswith(p) for p in _PREDICATIVE):
            before = masked[:c.start]
            if not _COPULA.search(before) or _IMPERSONAL.search(before):
                continue
        out.append(c)
    return out


def cues(sentence: str, players: list[str] = ()) -> list[Cue]:
    """The cues of one sentence in order, each negated cue flipped and each framing 相信 dropped.

    A player's name (of ``players``) counts as one word and holds no cue (a seat called "Wolf")."""
    masked = _masked(sentence, mentions(sentence, list(players)))
    raw = _raw_cues(sentence, masked)
    kept = []
    for i, c in enumerate(raw):
        nxt = raw[i + 1] if i + 1 < len(raw) else None
        if c.word in _FRAMES and nxt is not None and not _BREAK.search(masked[c.end:nxt.start]):
            continue  # 我相信Alex是狼: "believe" frames the accusation
        kept.append(c)
    flips = [0] * len(kept)
    for neg in _NEG_RE.finditer(masked):
        if neg.group("zh"):
            before, after = masked[neg.start() - 1:neg.start()], masked[neg.end():neg.end() + 1]
            if before and before == after:
                continue  # 是不是, 会不会: a question, not a negation
        i = next((k for k, c in enumerate(kept) if c.start >= neg.end()), None)
        if i is None:
            continue
        between = masked[neg.end():kept[i].start]
        reach = NEGATION_REACH["zh" if neg.group("zh") else "en"]
        if _tokens(between) <= reach and not _BREAK.search(between):
            flips[i] ^= 1
    return [Cue(c.start, c.end, -c.polarity if f else c.polarity, c.word) for c, f in zip(kept, flips)]


def mentions(sentence: str, players: list[str]) -> list[tuple[int, int, str]]:
    """Where each player is named, as written (case aside), not inside a longer word; in order."""
    hits = []
    for p in players:
        if p:
            rx = rf"(?<!{_LETTER}){re.escape(p)}(?!{_LETTER})"
            hits += [(h.start(), h.end(), p) for h in re.finditer(rx, sentence, re.IGNORECASE)]
    hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
    out: list[tuple[int, int, str]] = []
    for h in hits:  # "Al" inside "Al Green": the longer name
        if not out or h[0] >= out[-1][1]:
            out.append(h)
    return out


def _between(sentence: str, a: tuple[int, int], b: tuple[int, int]) -> str:
    lo, hi = (a, b) if a[0] <= b[0] else (b, a)
    return sentence[lo[1]:hi[0]] if lo[1] <= hi[0] else ""


def read_sentence(sentence: str, players: list[str], speaker: str | None = None) -> list[Stance]:
    """The stances one sentence takes, in the order the players are first named (the speaker left out)."""
    named, found = mentions(sentence, players), cues(sentence, players)
    if not named or not found:
        return []
    direct: dict[str, list[tuple[int, int]]] = {}
    listed: dict[str, list[tuple[int, int]]] = {}
    for c in found:
        gaps = [(_gap(_between(sentence, (c.start, c.end), (m[0], m[1]))), k) for k, m in enumerate(named)]
        gap, k = min(gaps)
        direct.setdefault(named[k][2], []).append((gap, c.polarity))
        for step in (-1, 1):  # the players listed with it: "Alex, Blair and Casey"
            j = k
            while 0 <= j + step < len(named) and _LIST.fullmatch(_between(sentence, named[j][:2], named[j + step][:2])):
                j += step
                listed.setdefault(named[j][2], []).append((gap, c.polarity))
    out = []
    for p in dict.fromkeys(m[2] for m in named):
        reach = direct.get(p) or listed.get(p)
        if not reach or p == speaker:
            continue
        closest = min(g for g, _ in reach)
        total = sum(s for g, s in reach if g == closest)
        if total:
            out.append(Stance(sentence, p, 1 if total > 0 else -1))
    return out


def stances(text: str, players: list[str], speaker: str | None = None) -> list[Stance]:
    """Every stance a speech takes toward a player other than ``speaker``, sentence by sentence."""
    return [s for sentence in sentences(text) for s in read_sentence(sentence, players, speaker)]


def accused(text: str, players: list[str], speaker: str | None = None) -> set[str]:
    """The players a speech accuses in at least one sentence."""
    return {s.target for s in stances(text, players, speaker) if s.polarity > 0}
