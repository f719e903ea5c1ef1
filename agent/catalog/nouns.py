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


def without_brand(title: str, brand: str | None) -> str:
    """The title with a leading brand (the row's own brand/vendor) removed: "LUMINIX's - Premium
    Streetwear Hoodie" by LUMINIX is a hoodie; a brand never decides. A title that is only the brand
    stays as it is."""
    text = " ".join(str(title).split())
    b = " ".join(str(brand).split()) if brand else ""
    if not b or not text.casefold().startswith(b.casefold()):
        return text
    rest = text[len(b):]
    if rest[:2] in ("'s", "’s"):
        rest = rest[2:]
    if rest and rest[0].isalnum():  # "Nikon" in "Nikonos": not the brand
        return text
    rest = rest.lstrip(" -–—|:,.")
    return rest or text


def title_phrase(title: str | None, brand: str | None = None) -> str:
    """The title's first segment, linking words kept ("Covers for Sofas and Chairs"): the head plus
    what it is for, which may tell two places of the same noun apart but never decides alone."""
    if not title:
        return ""
    text = without_brand(title, brand)
    return _SEPARATORS.split(text, maxsplit=1)[0].strip(" -–—|:,.")


def title_head(title: str | None, brand: str | None = None) -> str:
    """The leading product phrase of a title ("" for none), case kept as written; a leading brand
    (when the caller knows it) is no part of it."""
    if not title:
        return ""
    text = without_brand(title, brand)
    head = _SEPARATORS.split(text, maxsplit=1)[0]
    head = _LINKS.split(head, maxsplit=1)[0]
    return head.strip(" -–—|:,.")
