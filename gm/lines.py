"""What a player types, before the GM looks at it: who is speaking, and whether a table can take the line."""
from __future__ import annotations

import re

from rulesets import VgmError

__all__ = ["EmptyInput", "MAX_LINE", "checked_line", "split_speaker", "with_apostrophes", "with_double_quotes"]

MAX_LINE = 1000  # characters: a table line, not a document


class EmptyInput(VgmError):
    """The player pressed Enter without saying anything."""


# what opens a line said to the table, not a character's name ("OOC: ...", "GM: ...")
_TO_THE_TABLE = {"ooc", "gm", "dm", "keeper", "meta", "out of character", "rules question", "question"}
_NAME_LIKE = re.compile(r"^[A-Z][\w'.-]*( [A-Z][\w'.-]*){0,2}$")


def split_speaker(line: str, names: list[str]) -> tuple[str | None, str]:
    """``"Jester: I search the altar"`` → ("Jester", "I search the altar").

    A known name, or anything that looks like a name ("Zed:"), is split off — so an unknown
    name becomes an "unknown character" error rather than words spoken by someone else.
    """
    m = re.match(r"^\s*([^:]{1,40}?)\s*:\s*(.*)$", line, re.S)
    if not m:
        return None, line.strip()
    who, known = m.group(1).strip(), {n.lower() for n in names}
    if who.lower() in _TO_THE_TABLE and who.lower() not in known:
        return None, line.strip()  # "OOC: what's my Notice die?" is said to the table, by whoever is playing
    if who.lower() in known or _NAME_LIKE.match(who):
        return who, m.group(2).strip()
    return None, line.strip()


def checked_line(text: str | None) -> str:
    """The player's line, or a one-line ``VgmError`` for what a table cannot take."""
    text = (text or "").strip()
    if not text:
        raise EmptyInput("nothing was said; type what your character does (or /roll 1d20, /quit)")
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise VgmError("that line has bytes that are not UTF-8 text; retype it (the game is saved)")
    if len(text) > MAX_LINE:
        raise VgmError(f"that line is {len(text):,} characters; say it in under {MAX_LINE} (the game is saved)")
    return text




# contractions typed without their apostrophe, restored where the bare word is no other word ("whats inside??",
# "whered he go"): every reading of the line (questions, "don't", who is asked) is written for the real form.
# Written here because the packages that handle contractions expand them ("what is"); none puts the mark back.
_BARE = {"whats": "what's", "wheres": "where's", "whos": "who's", "hows": "how's", "whens": "when's", "whys": "why's",
         "thats": "that's", "theres": "there's", "heres": "here's", "whatd": "what'd", "whered": "where'd", "howd": "how'd",
         "whod": "who'd", "whyd": "why'd", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "cant": "can't",
         "isnt": "isn't", "arent": "aren't", "wasnt": "wasn't", "werent": "weren't", "havent": "haven't", "hasnt": "hasn't",
         "hadnt": "hadn't", "couldnt": "couldn't", "wouldnt": "wouldn't", "shouldnt": "shouldn't", "aint": "ain't",
         "im": "I'm", "ive": "I've", "youre": "you're", "youve": "you've", "youll": "you'll", "theyre": "they're",
         "theyve": "they've", "shes": "she's", "hes": "he's", "weve": "we've"}
_BARE_WORD = re.compile(r"\b(" + "|".join(_BARE) + r")\b", re.I)


def with_apostrophes(text: str) -> str:
    """The line with its bare contractions written out as contractions ("whats inside??" → "what's inside??")."""
    def restored(m: re.Match) -> str:
        typed, word = m.group(1), _BARE[m.group(1).lower()]
        if typed[:1].isupper() and not re.search(r"(?:^|[.!?]\s+|[\"“]\s*)$", text[:m.start()]):
            return typed  # a capital mid-sentence is a name: "Thieves' Cant" (every firing on CRD3's real lines was one)
        return word[:1].upper() + word[1:] if typed[:1].isupper() else word
    return _BARE_WORD.sub(restored, text)


# words said in single quotes: "Keth raises a hand. 'Morning, Chief. What's this riddle then?'" (an apostrophe inside a
# word is none of its marks: "What's", "don't"; a quote closes before a space, a stop or the line's end)
_SINGLE_QUOTED = re.compile(r"(?:(?<=^)|(?<=[\s(:,]))'(?=\S)(?P<said>(?:[^']|'(?=[A-Za-z]))+?\s(?:[^']|'(?=[A-Za-z]))*?)(?<=\S)'(?=$|[\s.,!?;:)\-])")


def with_double_quotes(text: str) -> str:
    """The line with speech in single quotes put in double quotes, as every reader of a line expects what is said to be
    marked: 'Morning, Chief.' was read as the player's own act, and no one was spoken to."""
    return _SINGLE_QUOTED.sub(lambda m: f'"{m.group("said")}"', text)
