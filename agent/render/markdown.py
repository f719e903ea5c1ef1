"""The one Markdown escaper: merchant strings made inert in the text answer and in A2UI `Text` components.

`escape_text` is for the text answer (Markdown paragraphs and table cells, several lines long): it
escapes the characters that carry inline meaning mid-line and turns line breaks into spaces.
`escape_markdown` is for A2UI, described below; it escapes a superset of those characters.

A2UI: make merchant strings safe for the Markdown subset that A2UI `Text` components render.

A2UI web renderers pass every Text literal through markdown-it (CommonMark) and prefix it by usage hint
(`## ` for h2, `*…*` for caption). A product title such as `**SALE** <img src=x> # 1. [click](…)` must
therefore reach the screen as those literal characters, on one line, inside its own cell. We do that by:

* normalising whitespace (newlines, tabs and line separators become one space — a Text cell is one line,
  so no block syntax can start inside it) and dropping control and bidirectional-override characters
  (so right-to-left text cannot reorder what follows the cell);
* cutting to a length limit without splitting a grapheme tail (combining marks, joiners, selectors);
* backslash-escaping every ASCII punctuation character that carries inline meaning, and the block
  markers that only matter at the start of a line.

CommonMark lets any ASCII punctuation be backslash-escaped, so an escaped string renders as exactly the
original characters. `unescape_markdown` inverts `escape_markdown` for tests.
"""

from __future__ import annotations

import re
import unicodedata

ELLIPSIS = "…"

# Inline-significant characters of the text answer. ">" stays: mid-line it is plain text, and category
# paths are full of it ("Furniture > Outdoor Furniture").
_INLINE = frozenset("\\`*_[]<|")
# A2UI escapes these wherever they occur. `_` is in this set, which the A2UI
# builder relies on: every component id contains `_`, so no escaped literal can equal an id (the
# reference renderer core would otherwise resolve such a literal as a child component).
_ALWAYS = _INLINE | frozenset(">~&!#")
# Characters that open a block only at the start of a line: bullets, and "1." / "1)" list markers.
_LEADING = frozenset("-+")  # always at the start: "---" alone would be a thematic break
_ORDERED = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")

# Bidi embeddings/overrides/isolates and marks, BOM, soft hyphen and other invisible format characters
# that could reorder or hide neighbouring text. ZWJ (U+200D) stays: emoji sequences need it.
_DROP = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c", "\ufeff", "\u00ad", "\u200b", "\u2060"]
)
_SPACE = re.compile(r"\s+")
# Characters that must not end a cut string: they only make sense attached to what followed.
_GLUE = frozenset(["\u200d", "\u20e3"] + [chr(c) for c in range(0xFE00, 0xFE10)])
_REGIONAL = "".join(chr(c) for c in range(0x1F1E6, 0x1F200))


def clean_text(value: object) -> str:
    """One line of printable text: controls and bidi overrides dropped, whitespace runs collapsed."""
    text = "" if value is None else str(value)
    out = []
    for char in text:
        if char in _DROP:
            continue
        cat = unicodedata.category(char)
        if cat == "Cc" or cat in ("Zl", "Zp"):
            out.append(" ")  # \n, \t, \x00…, U+2028/9 all become a plain space
        elif cat == "Cs":
            out.append("\ufffd")  # a lone surrogate cannot be encoded as UTF-8 JSON
        else:
            out.append(char)
    return _SPACE.sub(" ", "".join(out)).strip()


def cut(text: str, limit: int) -> str:
    """`text` shortened to at most `limit` characters (ellipsis included), cut at a grapheme boundary.

    The cut moves left past combining marks, variation selectors, skin-tone modifiers, emoji tags and
    zero-width joiners, and never keeps half of a two-letter regional-indicator flag.
    """
    if limit < 2:
        raise ValueError("limit must be at least 2")
    if len(text) <= limit:
        return text
    end = limit - 1  # index of the first character dropped
    while end > 0 and (continues_grapheme(text[end]) or text[end - 1] == "\u200d"):
        end -= 1
    run = 0
    while run < end and text[end - 1 - run] in _REGIONAL:
        run += 1
    if run % 2:
        end -= 1
    return text[:end].rstrip() + ELLIPSIS


def continues_grapheme(char: str) -> bool:
    """True for a character that belongs to the grapheme before it."""
    code = ord(char)
    return (
        char in _GLUE
        or unicodedata.combining(char) != 0
        or unicodedata.category(char) in ("Mn", "Me", "Mc")
        or 0x1F3FB <= code <= 0x1F3FF  # skin tones
        or 0xE0020 <= code <= 0xE007F  # emoji tag sequences
    )


def escape_text(text: str) -> str:
    """Merchant text made inert in Markdown: a product called "*NEW* [sale](x)" shows as written."""
    escaped = "".join("\\" + char if char in _INLINE else char for char in text)
    return escaped.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")  # a lone CR breaks a line too


def escape_markdown(value: object, limit: int) -> str:
    """`value` as one line of Markdown that renders as its literal characters, cut to `limit`.

    Never returns an empty string (A2UI renderers show "(empty)" for one): an empty value becomes "—".
    """
    text = cut(clean_text(value), limit)
    if not text:
        return "—"
    out = []
    for char in text:
        out.append("\\" + char if char in _ALWAYS else char)
    escaped = "".join(out)
    if escaped[0] in _LEADING:
        escaped = "\\" + escaped
    match = _ORDERED.match(escaped)
    if match:
        escaped = match.group(1) + "\\" + match.group(2) + escaped[match.end() :]
    return escaped


def unescape_markdown(text: str) -> str:
    """Inverse of `escape_markdown` (for tests): drop the backslash before escaped punctuation."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
