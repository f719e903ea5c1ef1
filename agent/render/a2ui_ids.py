"""A2UI v0.8 identifiers and the card entry that offers it — kept apart from the renderer so the card
and the negotiation can use them without importing the renderer (and pyarrow) at cold start."""

from __future__ import annotations

EXTENSION_URI = "https://a2ui.org/a2a-extension/a2ui/v0.8"
STANDARD_CATALOG_ID = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json"
MIME_TYPE = "application/json+a2ui"
# Follow-up buttons (a2ui_followups): the one userAction name the agent answers, the context key that
# holds the button's question, and the longest question one of our buttons carries (the inbound limit).
FOLLOW_UP_ACTION = "follow_up"
FOLLOW_UP_QUESTION_KEY = "question"
FOLLOW_UP_MAX_CHARS = 300


def card_extension() -> dict:
    """The agent card's `capabilities.extensions` entry that offers A2UI (never required)."""
    return {
        "uri": EXTENSION_URI,
        "description": "Structured answers (A2UI v0.8, standard catalog): per skill a card with the key "
        "findings, a table and a bar chart, alongside the Markdown text.",
        "required": False,
        "params": {"supportedCatalogIds": [STANDARD_CATALOG_ID]},
    }
