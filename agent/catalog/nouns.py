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


def head_noun(title: str | None) -> str:
    """The product noun: the last word of the title's head that is no model number or size
    ("Pond Pump 3000" → "Pump", "Pump Filter Bag" → "Bag"); "" for none."""
    words = [w for w in re.split(r"[\s/]+", title_head(title)) if w]
    while words and _HAS_DIGIT.search(words[-1]):
        words.pop()
    return words[-1].strip(".,;:!?\"'()[]") if words else ""
