"""The product noun of a title: the one rule, shared by the taxonomy mapping and the scope's title match.

A title names the product first and then decorates it: "Patio Chair Cover - Grey | Waterproof",
"Hoodie | New Taylor Swift Album", "Covers for Sofas and Chairs". The words that decide what the product
*is* come before the first separator (` | `, ` - `, ` – `, ` — `, `: `, `(`, `,`) and before a linking
word (`for`, `with`, `w/`, `by`, `featuring`, `from`, `inspired by`); in English the noun is the last
word of that head ("Patio Chair **Cover**"). Artists, albums and films usually stand after a separator
or a linking word, so they never decide a category.
"""

from __future__ import annotations

import re
from typing import Callable

_SEPARATORS = re.compile(r"\s+[|–—-]+\s+|\s*\|\s*|:\s+|\s*\(|\s*\[|,\s+|\s+/\s+")
_LINKS = re.compile(r"\s+(?:for|with|w/|by|featuring|feat\.?|from|inspired\s+by|compatible\s+with|fits)\s+", re.I)


def title_head(title: str | None) -> str:
    """The leading product phrase of a title ("" for none), case kept as written."""
    if not title:
        return ""
    text = " ".join(str(title).split())
    head = _SEPARATORS.split(text, maxsplit=1)[0]
    head = _LINKS.split(head, maxsplit=1)[0]
    return head.strip(" -–—|:,.")


_HAS_DIGIT = re.compile(r"\d")
# Words that grade, size or colour a product after its noun ("Pond Pump Mini", "Patio Chair Black"):
# never the product noun.
_NEVER_NOUN = frozenset(
    "mini maxi micro pro plus max premium deluxe classic eco lite ultra super xs xl xxl xxxl large small "
    "medium big little new original edition series version model style type black white red blue green grey gray "
    "silver gold brown beige pink yellow orange purple navy cream natural clear piece pieces pcs pc pack packs "
    "count".split())


def head_noun(title: str | None, known: Callable[[str], bool] | None = None) -> str:
    """The product noun: the last word of the title's head that is no model number or size
    ("Pond Pump 3000" → "Pump", "Pump Filter Bag" → "Bag"); "" for none.

    With `known` (is this word a product word, e.g. of the taxonomy's names?), trailing model and
    brand words are passed over: "Oase Pond Pump Eco 6000" → "Pump"; a head with no known word
    keeps its last word."""
    words = [w.strip(".,;:!?\"'()[]") for w in re.split(r"[\s/]+", title_head(title))]
    words = [w for w in words if w and not _HAS_DIGIT.search(w)]
    while len(words) > 1 and words[-1].lower() in _NEVER_NOUN:
        words.pop()
    if known is not None:
        for w in reversed(words):
            if known(w):
                return w
    return words[-1] if words else ""
