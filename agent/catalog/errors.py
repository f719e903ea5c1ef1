"""Errors of the catalog layer that carry a fixed, human reason (never exception text or paths)."""

from __future__ import annotations

from agent.errors import AgentError


class CatalogError(AgentError):
    """A catalog could not be read or used; the reason is a fixed phrase."""


class UnreadableCatalog(CatalogError):
    """An input that cannot be used as a catalog; `reason` is shown to the user as is.

    Reasons are fixed phrases such as "not a readable CSV: no header row found", so they never leak
    file contents, paths or library messages into an answer.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
