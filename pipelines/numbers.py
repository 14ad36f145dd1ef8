"""Numbers said in digits or words ("two hundred", "a 60-foot gap", "forty-five", "half a mile"):
one reader for every part that weighs what a line or a reply says against what a scene states.
Kept by hand (a few lines): it must also read "a", "half" and digits beside words, as scenes write them."""
from __future__ import annotations

import re

__all__ = ["SMALL", "NUMBER", "number_value"]

SMALL = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                                    "fifteen sixteen seventeen eighteen nineteen".split())}
SMALL.update({"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90})
NUMBER = r"(?:\d[\d,]*(?:\.\d+)?|a|an|half|and|hundred|thousand|" + "|".join(SMALL) + r")"  # one word of a number phrase


def number_value(number: str) -> float:
    """The value of a number phrase: "two hundred" → 200, "a" → 1, "forty-five" → 45, "3,000" → 3000 (0 for none)."""
    total, current = 0.0, 0.0
    said = [w for w in re.split(r"[\s-]+", number.lower().replace(",", "").strip()) if w]
    if set(said) - {"a", "an", "and", "half"}:  # "a 60-foot gap": the article is no number
        said = [w for w in said if w not in ("a", "an")] if not set(said) & {"hundred", "thousand"} else said
    for w in said:
        if re.fullmatch(r"\d+(?:\.\d+)?", w):
            current += float(w)
        elif w in SMALL:
            current += SMALL[w]
        elif w == "hundred":
            current = (current or 1) * 100
        elif w == "thousand":
            total, current = total + (current or 1) * 1000, 0.0
        elif w in ("a", "an") and not current:
            current = 1
        elif w == "half":
            current = 0.5
    return total + current
