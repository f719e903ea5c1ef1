"""Follow-up buttons on an A2UI card: the questions a merchant would ask next, one press away.

Each card carries up to three Buttons (standard catalog, v0.8 `action` with `name` and `context`), picked
from the result's skill and worded with its scope as the question named it: after the gaps in outdoor
chairs, "Pricing in outdoor chairs", "What is out of stock in outdoor chairs?", "Content quality in
outdoor chairs". A button's text
*is* the question it asks: the action's context carries that text as `question` (plus `skill` and `scope`
for the client's logs), and the agent answers a pressed button exactly as if the text had been typed in
the same conversation (agent.service.inputs) — the planner re-reads the words, so a client that edits the
context can ask no more than it could type. A whole-catalog card asks "… across the whole catalog".

Decision: no "compare with a competitor" button. Without a reference catalog that question can only
answer "attach one", which a merchant reads as a broken button; the text answer already says how.
"""

from __future__ import annotations

from agent.analysis.result import SkillResult
from agent.render.a2ui_ids import FOLLOW_UP_ACTION as ACTION_NAME
from agent.render.a2ui_ids import FOLLOW_UP_MAX_CHARS as MAX_QUESTION_CHARS
from agent.render.a2ui_ids import FOLLOW_UP_QUESTION_KEY as QUESTION_KEY
from agent.render.markdown import clean_text, cut, escape_markdown

MAX_BUTTONS = 3
SCOPE_CHARS = 120  # a scope label longer than this is cut (the question then names what fits)
# What each skill's card offers next, in order (the most natural next question first).
NEXT: dict[str, tuple[str, ...]] = {
    "assortment_gaps": ("price_ladder", "availability", "content_quality"),
    "price_ladder": ("assortment_gaps", "availability", "attribute_coverage"),
    "availability": ("price_ladder", "assortment_gaps", "content_quality"),
    "content_quality": ("attribute_coverage", "availability", "assortment_gaps"),
    "attribute_coverage": ("content_quality", "price_ladder", "assortment_gaps"),
    "brand_coverage": ("assortment_gaps", "price_ladder", "availability"),
    "catalog_overview": ("assortment_gaps", "content_quality", "availability"),
    "demand_gaps": ("assortment_gaps", "brand_coverage", "availability"),
}
# The question per skill; `{where}` is "in <scope>" or "across the whole catalog". Each wording names
# its skill by one of the planner's own intent words, so the press plans to that skill.
QUESTIONS: dict[str, str] = {
    "assortment_gaps": "Where are the gaps {where}?",
    "price_ladder": "Pricing {where}",
    "availability": "What is out of stock {where}?",
    "content_quality": "Content quality {where}",
    "attribute_coverage": "Attribute coverage {where}",
    "brand_coverage": "Brands {where}",
    "catalog_overview": "Overview {where}",
    "demand_gaps": "Best sellers {where}",
}
WHOLE = "across the whole catalog"


def follow_ups(result: SkillResult) -> list[tuple[str, str]]:
    """(skill, question) pairs for the card of `result`, at most MAX_BUTTONS, plain (unescaped) text."""
    words = scope_words(result)
    where = f"in {words}" if words else WHOLE
    out = []
    for skill in NEXT.get(result.skill, NEXT["catalog_overview"])[:MAX_BUTTONS]:
        question = cut(QUESTIONS[skill].format(where=where), MAX_QUESTION_CHARS)
        out.append((skill, question))
    return out


def scope_words(result: SkillResult) -> str:
    """How a button names the card's scope: the question's own words for it when it had them.

    The words, not the label, because the planner resolves them to exactly this scope again ("patio
    furniture" finds Outdoor Furniture *and* the titles that say "patio furniture"; the label "Outdoor
    Furniture" would find titles saying "outdoor furniture" instead). Typos stay as the merchant typed
    them and resolve as they did. Empty for the whole catalog.
    """
    scope = result.scope
    if scope.is_whole_catalog or scope.unmatched:
        return ""
    return cut(clean_text(scope.phrase or scope.label), SCOPE_CHARS)


def button_count(result: SkillResult) -> int:
    """Components the follow-up block costs: a Row, then a Button and its Text per follow-up."""
    follow_up_count = len(follow_ups(result))
    return 1 + 2 * follow_up_count if follow_up_count else 0


def add_buttons(card, result: SkillResult) -> list[str]:
    """Root children for the follow-up block (empty when there is none); `card` is a2ui._Card."""
    buttons = []
    scope_label = "" if result.scope.is_whole_catalog else cut(clean_text(result.scope.label), SCOPE_CHARS)  # for logs
    for i, (skill, question) in enumerate(follow_ups(result)):
        text_id = card.text(f"a2_next{i}_t", escape_markdown(question, MAX_QUESTION_CHARS), "body")
        context = [
            {"key": QUESTION_KEY, "value": {"literalString": question}},
            {"key": "skill", "value": {"literalString": skill}},
        ]
        if scope_label:
            context.append({"key": "scope", "value": {"literalString": scope_label}})
        action = {"name": ACTION_NAME, "context": context}
        buttons.append(card.add(f"a2_next{i}", {"Button": {"child": text_id, "primary": i == 0, "action": action}}))
    return [card.box("a2_next", "Row", buttons)] if buttons else []
