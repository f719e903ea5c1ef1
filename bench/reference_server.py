"""The official a2a-sdk reference server (Starlette + uvicorn) with a trivial executor, for side-by-side
protocol latency figures. Bench-only: `python bench/reference_server.py PORT [ANSWER.json]`.

With ANSWER.json (`{"answer": …, "status": …}`, written by bench_protocol.py from our own task) the
executor answers with the same artifact text and final status message as ours, so `tasks/get` returns a
task of the same size on both sides; without it, the answer is "done"."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import uvicorn
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentSkill, Part, TextPart
from a2a.utils import new_task


class Echo(AgentExecutor):
    def __init__(self, answer: str = "done", status: str | None = None) -> None:
        self.answer, self.status = answer, status

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task or new_task(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.add_artifact([Part(root=TextPart(text=self.answer))], name="catalog_overview")
        message = updater.new_agent_message([Part(root=TextPart(text=self.status))]) if self.status else None
        await updater.complete(message)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def main() -> None:
    port = int(sys.argv[1])
    answer = json.loads(Path(sys.argv[2]).read_text(encoding="utf-8")) if len(sys.argv) > 2 else {}
    card = AgentCard(
        name="ref",
        description="reference",
        url=f"http://127.0.0.1:{port}/",
        version="1",
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="s", name="s", description="s", tags=["t"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=Echo(answer.get("answer", "done"), answer.get("status")), task_store=InMemoryTaskStore()
    )
    app = A2AStarletteApplication(agent_card=card, http_handler=handler).build()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error")


if __name__ == "__main__":
    main()
