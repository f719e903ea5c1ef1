"""The product noun of a title: the one rule, shared by the taxonomy mapping and the scope's title match.

A title names the product first and then decorates it: "Patio Chair Cover - Grey | Waterproof",
"Hoodie | New Taylor Swift Album", "Covers for Sofas and Chairs". The words that decide what the product
*is* come before the first separator (` | `, ` - `, ` – `, ` — `, `: `, `(`, `,`) and before a linking
word (`for`, `with`, `w/`, `by`, `featuring`, `from`, `inspired by`; `in` before a size, colour or
material: `_IN_DECOR`); in English the noun is the last
word of that head ("Patio Chair **Cover**"). Artists, albums and films usually stand after a separator
or a linking word, so they never decide a category.
"""

from __future__ import annotations

import re
from typing import Callable

# A tag in brackets before the title ("[S] Captain | Natural", "[W] Denim Trucker Jacket", "(2 Pack) Socks"):
# a shop's marker, not the product's first segment. Without this the bracket, a separator, cut the whole
# title away and left no head (a held-out boot maker's 56 "[S] …" boots and its "[W]" jacket).
_LEADING_TAG = re.compile(r"^\s*(?:\[[^\[\]]{0,24}\]|\([^()]{0,24}\))\s*")
_SEPARATORS = re.compile(r"\s+[|–—-]+\s+|\s*\|\s*|:\s+|\s*\(|\s*\[|,\s+|\s+/\s+")
_LINKS = re.compile(
    r"\s+(?:for|with|w/|by|featuring|feat\.?|from|inspired\s+by|compatible\s+with|fits)\s+"
    # what the listing is offered in, after the noun ("Crewneck Sweatshirt in 15 Colors", "Tee Available
    # in Many Sizes", "Bodysuit Sizes Newborn", "Sweatshirt Size 2XL"): print-on-demand titles list
    # their variants there, and "Colors" or "Size" is no product noun. A size word before a noun ("King
    # Size Duvet", "Plus Size Dress") is no such list: only a size token after it cuts.
    r"|\s+in\s+(?:\d+|many|multiple|various|several|all|assorted|different)\s+"
    r"(?:colou?rs?|sizes?|styles?|designs?|finishes|patterns?|prints?|shades?|variants?|options?|flavou?rs?|scents?)\b"
    r"|\s+available\s+(?:in|on)\s+"
    r"|\s+sizes?\s+(?:\d|x{0,3}[sl]\b|m\b|x{1,3}l\b|small|medium|large|extra|newborn|one\s+size)",
    re.I,
)
# "in" before a size, a count, a colour, a metal or a material decorates the product named before it:
# "Cocktail Ring in 22ct Gold", "Crop Hoodie in White and Peach", "Tee in 12 Colors" are a ring, a
# hoodie, a tee. Any other "in" stays part of the name ("Walk In Shower", "Plug In Heater").
_IN_DECOR = re.compile(
    r"\s+in\s+(?:\d|(?:many|assorted|various|multiple|black|white|red|blue|green|grey|gray|brown|beige|pink|"
    r"yellow|purple|navy|gold|silver|rose|platinum|sterling|brass|copper|bronze|chrome|steel|stainless|leather|"
    r"suede|wood|oak|walnut|pine|bamboo|cotton|wool|linen|velvet|satin|silk|denim|cream|ivory|natural)\b)",
    re.I,
)
# ...but "set in", "mounted in", "plated in" say what holds the product named after them: "Topaz Round
# Cut Set in 925 Sterling Silver Jewelry" is jewelry
_HELD_IN = re.compile(r"\b(?:set|mounted|encased|plated|dipped|cast|made|finished|crafted|handcrafted)\s+in\s", re.I)


def without_brand(title: str, brand: str | None) -> str:
    """The title with a leading brand (the row's own brand/vendor) removed: "LUMINIX's - Premium
    Streetwear Hoodie" by LUMINIX is a hoodie; a brand never decides. A title that is only the brand
    stays as it is."""
    text = " ".join(str(title).split())
    brand_text = " ".join(str(brand).split()) if brand else ""
    if not brand_text or not text.casefold().startswith(brand_text.casefold()):
        return text
    rest = text[len(brand_text) :]
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
    text = without_brand(_LEADING_TAG.sub("", str(title)), brand)
    return _SEPARATORS.split(text, maxsplit=1)[0].strip(" -–—|:,.")


def title_head(title: str | None, brand: str | None = None) -> str:
    """The leading product phrase of a title ("" for none), case kept as written; a leading brand
    (when the caller knows it) is no part of it."""
    if not title:
        return ""
    text = without_brand(_LEADING_TAG.sub("", str(title)), brand)
    head = _SEPARATORS.split(text, maxsplit=1)[0]
    head = _LINKS.split(head, maxsplit=1)[0]
    if not _HELD_IN.search(head):
        head = _IN_DECOR.split(head, maxsplit=1)[0]
    return head.strip(" -–—|:,.")


def title_heads(titles):
    """`title_head` over an Arrow string array at once (the same separators and linking words, as RE2
    patterns): what a scope's title match scans before the exact rule runs on the few candidates."""
    import pyarrow.compute as pc

    heads = pc.replace_substring_regex(titles, _LEADING_TAG.pattern, "")
    heads = pc.replace_substring_regex(heads, r"(?s)(?:" + _SEPARATORS.pattern + r").*$", "")
    heads = pc.replace_substring_regex(heads, r"(?is)(?:" + _LINKS.pattern + r").*$", "")
    # The "in" rules (`_IN_DECOR`, `_HELD_IN`) only touch heads holding a whitespace-bounded "in", which
    # few titles do: run their two patterns over those heads alone and put the results back in place
    # (a quarter off the whole call over the 1M bench catalog's distinct titles, same heads).
    has_in = pc.fill_null(pc.match_substring_regex(heads, r"(?i)\sin\s"), False)
    if not pc.any(has_in).as_py():
        return heads
    some = pc.filter(heads, has_in)
    held = pc.fill_null(pc.match_substring_regex(some, "(?i)" + _HELD_IN.pattern), False)
    cut = pc.replace_substring_regex(some, r"(?is)(?:" + _IN_DECOR.pattern + r").*$", "")
    return pc.replace_with_mask(heads, has_in, pc.if_else(held, some, cut))


_HAS_DIGIT = re.compile(r"\d")
# Colours that name no product of their own (not "cream", "gold", "silver", "orange"): a title ending in
# one ends in its colourway ("Jordan 5 green", "Honeycomb Blanket White").
_COLOURS = frozenset("black white red blue green grey gray brown beige pink yellow purple navy".split())
# Words that grade, size or colour a product after its noun ("Pond Pump Mini", "Patio Chair Black"):
# never the product noun.
_NEVER_NOUN = _COLOURS | frozenset(
    "mini maxi micro pro plus max premium deluxe classic eco lite ultra super xs xl xxl xxxl large small "
    "medium big little new original edition series version model style type silver gold orange cream natural "
    "clear piece pieces pcs pc pack packs count".split()
)


def noun_phrase(title: str | None) -> str:
    """The title's head without its trailing colour words: the phrase the taxonomy mapping reads for
    the title's product noun, so a colourway never decides a category ("Jordan 5 green" is no salad
    green). A head that is only a colour keeps it."""
    head = title_head(title)
    words = head.split()
    kept = len(words)
    while kept > 1 and words[kept - 1].strip(".,;:!?\"'()[]").lower() in _COLOURS:
        kept -= 1
    return " ".join(words[:kept]) if kept < len(words) else head


def head_noun(title: str | None, known: Callable[[str], bool] | None = None, keep: frozenset[str] = frozenset()) -> str:
    """The product noun: the last word of the title's head that is no model number or size
    ("Pond Pump 3000" → "Pump", "Pump Filter Bag" → "Bag"); "" for none.

    With `known` (is this word a product word, e.g. of the taxonomy's names?), trailing model and
    brand words are passed over: "Oase Pond Pump Eco 6000" → "Pump"; a head with no known word
    keeps its last word. `keep` (lower-case words) are never passed over as grade or colour words:
    a scope asking for creams reads "Face Cream" as a cream, not a face."""
    words = [word.strip(".,;:!?\"'()[]") for word in re.split(r"[\s/]+", title_head(title))]
    words = [word for word in words if word and not _HAS_DIGIT.search(word)]
    while len(words) > 1 and words[-1].lower() in _NEVER_NOUN and words[-1].lower() not in keep:
        words.pop()
    if known is not None:
        for word in reversed(words):
            if known(word):
                return word
    return words[-1] if words else ""


def last_words(heads, keep: frozenset[str] = frozenset()):
    """`head_noun` without `known`, over an Arrow array of heads at once: the last word that is no
    number, size or grade word (unless in `keep`, as for `head_noun`), lower-cased (null or "" for none).

    One regex pass takes every head's last word; only heads whose last word is a number or a grade
    word ("… 8 L", "… Mini") — decided once per distinct word — lose it and are looked at again."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    text = pc.utf8_lower(pc.utf8_rtrim(heads, characters=" .,;:!?\"'()[]-–—|/"))
    out = pc.replace_substring_regex(text, r"^.*[^\pL\pN]", "")
    for _ in range(4):
        enc = pc.dictionary_encode(out)
        bad_word = np.array(
            [
                bool(word) and ((word in _NEVER_NOUN and word not in keep) or bool(_HAS_DIGIT.search(word)))
                for word in enc.dictionary.to_pylist()
            ],
            dtype=bool,
        )
        idx = enc.indices.to_numpy(zero_copy_only=False)
        valid = np.asarray(enc.indices.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        bad = (
            valid & bad_word[np.where(valid, idx, 0).astype(np.int64)]
            if len(bad_word)
            else np.zeros(len(out), dtype=bool)
        )
        # a head of one word keeps it (head_noun keeps the last word standing)
        bad &= np.asarray(
            pc.fill_null(pc.match_substring_regex(text, r"[^\pL\pN]"), False).to_numpy(zero_copy_only=False), dtype=bool
        )
        if not bad.any():
            break
        rows = pa.array(np.flatnonzero(bad))
        sub = pc.replace_substring_regex(pc.take(text, rows), r"[^\pL\pN]+[^\pL\pN\s]*\S*$", "")
        sub = pc.utf8_rtrim(sub, characters=" .,;:!?\"'()[]-–—|/")
        text = _put(text, rows, sub)
        out = _put(out, rows, pc.replace_substring_regex(sub, r"^.*[^\pL\pN]", ""))
    return out


def _put(arr, rows, values):
    """arr with arr[rows] = values (an Arrow array; rows ascending)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    pos = np.full(len(arr), -1, dtype=np.int64)
    pos[rows.to_numpy(zero_copy_only=False)] = np.arange(len(rows))
    mask = pa.array(pos >= 0)
    replaced = pc.take(values, pa.array(np.where(pos >= 0, pos, 0)))
    return pc.if_else(mask, replaced, arr)
