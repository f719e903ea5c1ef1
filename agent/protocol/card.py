"""The agent card (A2A 0.3.0 AgentCard), built from plain descriptors so this layer knows no skill."""

from __future__ import annotations

from typing import Any, Sequence

PROTOCOL_VERSION = "0.3.0"
INPUT_MODES = ["text/plain", "text/csv"]
OUTPUT_MODES = ["text/plain"]
# Media types the agent can emit; acceptedOutputModes must admit at least one (else -32005).
EMITTED_MODES = ("text/plain", "text/markdown", "application/json")


def build(*, name: str, description: str, version: str, url: str, skills: Sequence[dict[str, Any]],
          extensions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "name": name,
        "description": description,
        "version": version,
        "url": url,
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": url, "transport": "JSONRPC"}],
        "provider": {"organization": name, "url": url},
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
