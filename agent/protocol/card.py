"""The agent card (A2A 0.3.0 AgentCard), built from plain descriptors so this layer knows no skill."""

from __future__ import annotations

from typing import Any, Sequence

PROTOCOL_VERSION = "0.3.0"
INPUT_MODES = ["text/plain", "text/csv"]
# What is sent: the answer's text part is Markdown; A2UI messages travel as JSON data parts.
OUTPUT_MODES = ["text/markdown", "application/json"]
# Media types the agent can emit; acceptedOutputModes must admit at least one (else -32005).
EMITTED_MODES = ("text/plain", "text/markdown", "application/json")


def build(
    *,
    name: str,
    description: str,
    version: str,
    url: str,
    skills: Sequence[dict[str, Any]],
    extensions: Sequence[dict[str, Any]],
    provider: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The card. `provider` is the organization that runs the agent and its website (settings), never
    the agent's own name and RPC URL; without one the card leaves it out (it is optional in A2A).

    No `securitySchemes`: Cloud Run IAM authenticates every call before it reaches the function (only the
    Gemini Enterprise service agent may invoke it), and a declared scheme is, by the reports we found, what
    sends Gemini Enterprise's users through its own sign-in (README, "Authentication")."""
    card: dict[str, Any] = {
        "protocolVersion": PROTOCOL_VERSION,
        "name": name,
        "description": description,
        "version": version,
        "url": url,
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": url, "transport": "JSONRPC"}],
        "capabilities": {
            "streaming": True,
            "pushNotifications": False,
            "stateTransitionHistory": False,
            "extensions": list(extensions),
        },
        "defaultInputModes": list(INPUT_MODES),
        "defaultOutputModes": list(OUTPUT_MODES),
        "skills": list(skills),
        "supportsAuthenticatedExtendedCard": False,
    }
    if provider:
        card["provider"] = {"organization": provider["organization"], "url": provider["url"]}
    return card


def accepts_output(accepted: Sequence[str] | None) -> bool:
    """True when the client's acceptedOutputModes admits something we emit (empty = anything)."""
    if not accepted:
        return True
    ranges = {m.split("/")[0] + "/*" for m in EMITTED_MODES}
    for mode in accepted:
        mode = mode.split(";")[0].strip().lower()
        if mode in ("*/*", "*") or mode in ranges or mode in EMITTED_MODES:
            return True
    return False
