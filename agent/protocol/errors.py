"""JSON-RPC and A2A error codes, and the one exception type that carries a client-facing error.

Messages are fixed human sentences chosen by our code — never exception text — so nothing internal
(paths, bucket names, tracebacks) can reach a client through an error.
"""

from __future__ import annotations

from typing import Any

from agent.errors import AgentError

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
TASK_NOT_FOUND = -32001
TASK_NOT_CANCELABLE = -32002
PUSH_NOT_SUPPORTED = -32003
UNSUPPORTED_OPERATION = -32004
CONTENT_TYPE_NOT_SUPPORTED = -32005
EXTENDED_CARD_NOT_CONFIGURED = -32007

INTERNAL_MESSAGE = "The analysis service encountered an error. Please try again."


class RpcError(AgentError):
    """An error answer for the client: code, fixed message, optional data (only an incident id)."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def parse_error() -> RpcError:
    return RpcError(PARSE_ERROR, "The request body is not valid JSON.")


def internal_error(incident_id: str) -> RpcError:
    return RpcError(INTERNAL_ERROR, INTERNAL_MESSAGE, {"incident": incident_id})


def task_not_found() -> RpcError:
    return RpcError(TASK_NOT_FOUND, "No task with that id was found.")


def task_not_cancelable() -> RpcError:
    return RpcError(TASK_NOT_CANCELABLE, "The task has already finished and can no longer be cancelled.")
