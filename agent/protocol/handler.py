"""The contract the transport calls: one method per A2A JSON-RPC method (a2a-python's `RequestHandler`).

`agent.protocol.http` parses and frames; whatever implements this protocol decides (the service,
`agent.service.handler.Service`). `main.py` wires the two together, so the protocol layer imports
nothing above it. Params arrive validated as JSON objects; results are JSON-ready dicts, or for the
streaming methods an iterator of events. Errors for the client are raised as `RpcError`.
"""

from __future__ import annotations

from typing import Any, Iterator, Protocol

from .context import CallContext

Params = dict[str, Any]
Result = dict[str, Any]


class RequestHandler(Protocol):
    """The A2A methods this agent answers, plus the agent card it serves."""

    def card(self) -> Result:
        """The public agent card (GET /.well-known/agent-card.json)."""
        ...

    def send(self, params: Params, call: CallContext) -> Result:
        """message/send: the task, once it has finished or needs input."""
        ...

    def stream(self, params: Params, call: CallContext) -> Iterator[Result]:
        """message/stream: the task, its status and artifact updates, as they happen."""
        ...

    def get(self, params: Params, call: CallContext) -> Result:
        """tasks/get: a stored task, its history cut to `historyLength`."""
        ...

    def cancel(self, params: Params, call: CallContext) -> Result:
        """tasks/cancel: the task once cancelled (or -32002 when it has already finished)."""
        ...

    def resubscribe(self, params: Params, call: CallContext) -> Iterator[Result]:
        """tasks/resubscribe: the remaining events of a running task."""
        ...
