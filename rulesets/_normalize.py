"""Turn a name as people write it into a lookup key.

Two keys exist because a table says both "Dex save" and "roll a DEX saving throw":

- ``raw_key``: the letters and digits only, casefolded (case, spaces, punctuation and
  hyphens vanish). An alias written in a pack matches itself in any spelling.
- ``loose_key``: the words after dropping filler ("make a ... check", numbers, "DC 15") and
  rewriting phrasing ("saving throw" → "save"), then joined like ``raw_key``. Used only when
  the raw key finds nothing.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# Filler a table wraps around a check name. Never words that occur inside a check name
# ("throw" is a CoC skill, "of" is in "Sleight of Hand"), and never "save".
DEFAULT_FILLER: frozenset[str] = frozenset(
    """
    a an the make makes making made roll rolls rolling rolled give gimme me us check checks
    test tests skill skills ability please do your my for lets let i need want you to go
    ahead and just quick quickly with another one more now then it that this dc can could
    would should everyone everybody all both you guys again of okay ok alright so well from each
    who wants whoever here there real actually also first yeah um uh yourself yourselves
    """.split()
)
# Chinese tables glue the filler to the name ("侦查检定", "过一个聆听"): strip it at the ends.
CJK_FILLER_SUFFIXES: tuple[str, ...] = ("检定", "鉴定", "判定", "检查", "技能", "骰")
CJK_FILLER_PREFIXES: tuple[str, ...] = ("过一个", "过一下", "过个", "来一个", "来个", "进行", "投一个", "投个", "过")
_CJK_FILLER_WORDS = frozenset(CJK_FILLER_SUFFIXES + CJK_FILLER_PREFIXES)

# Multi-word phrasings that mean one word, applied to the word list before filler is dropped.
_REWRITES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("saving", "throws"), ("save",)),
    (("saving", "throw"), ("save",)),
    (("saves",), ("save",)),
    (("sv",), ("save",)),
)
_NUMBERISH = re.compile(r"^(dc)?\d+$|^\d*d\d+([+-]?\d+)?$")
_APOSTROPHES = str.maketrans("", "", "'’`")
# A boundary between Chinese and other letters or digits separates words: ".ra侦查60" → ra 侦查 60.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_EDGE = re.compile(rf"(?<=[{_CJK}])(?=[^{_CJK}\s])|(?<=[^{_CJK}\s])(?=[{_CJK}])")


def is_cjk(word: str) -> bool:
    """True when the word is written in Chinese characters (filler is then stripped at its ends)."""
    return bool(word) and all(re.match(rf"[{_CJK}]", ch) for ch in word)


def _is_word_char(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LN"


def words(text: str) -> list[str]:
    """Split into casefolded words: punctuation, hyphens and underscores separate words."""
    text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).casefold()
    cleaned = "".join(ch if _is_word_char(ch) else " " for ch in text)
    return _CJK_EDGE.sub(" ", cleaned).split()


def raw_key(text: str) -> str:
    """Letters and digits only, casefolded: "Wisdom (Perception)" → "wisdomperception"."""
    return "".join(words(text))


def _rewrite(tokens: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(tokens):
        for pattern, replacement in _REWRITES:
            if tuple(tokens[i : i + len(pattern)]) == pattern:
                out.extend(replacement)
                i += len(pattern)
                break
        else:
            out.append(tokens[i])
            i += 1
    return out


def _strip_cjk(token: str, extra: tuple[str, ...] = ()) -> str:
    if not is_cjk(token) or token in _CJK_FILLER_WORDS or token in extra:
        return token
    changed = True
    while changed and token:
        changed = False
        for suffix in (*CJK_FILLER_SUFFIXES, *extra):
            if token.endswith(suffix) and len(token) > len(suffix):
                token, changed = token[: -len(suffix)], True
        for prefix in (*CJK_FILLER_PREFIXES, *extra):
            if token.startswith(prefix) and len(token) > len(prefix):
                token, changed = token[len(prefix) :], True
    return token


def loose_words(text: str, filler: Iterable[str] = DEFAULT_FILLER) -> list[str]:
    """The words that name the thing: rewrites applied, filler and numbers ("DC 15") dropped."""
    filler = frozenset(filler)
    cjk_filler = tuple(sorted((w for w in filler if is_cjk(w)), key=len, reverse=True))
    tokens = [_strip_cjk(t, cjk_filler) for t in _rewrite(words(text))]
    drop = filler | _CJK_FILLER_WORDS
    return [t for t in tokens if t and t not in drop and not _NUMBERISH.match(t)]


def loose_key(text: str, filler: Iterable[str] = DEFAULT_FILLER) -> str:
    """``raw_key`` of the words left after ``loose_words``: "make a DC 15 Dex saving throw" → "dexsave"."""
    return "".join(loose_words(text, filler))
