"""One turn, start to finish: the task lifecycle as a stream of A2A events.

`message/send` drains this generator and returns the final Task; `message/stream` frames each event as
it comes. The order is fixed (SPEC §2): the Task (`submitted`) at once — before any catalog work —
then `working` progress, one artifact per skill as soon as it is ready, and the final status right
after the last artifact. Slow work (persisting the final state, saving the context) happens after the
final frame, because some clients draw structured parts only when the turn ends.

Cancellation is cooperative: the stored cancel flag is checked between steps (the store makes that
cheap — a Cloud Storage store asks at most every half second). The task is written on transitions
only: created (`submitted`), `working` before the first artifact, and the final state after the final
frame; the context then records the turn in one atomic read-modify-write.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from agent import logs
from agent.catalog.attachments import Attachment
from agent.catalog.evidence import KIND_ATTACHED, CatalogInputs, Unreadable
from agent.protocol import objects
from agent.store.base import ContextChange, ContextState, ContextStore, TaskStore, as_context_catalog

from . import stepgate
from .live import LiveRegistry

CANCELED_TEXT = "Cancelled at the client's request."
FAILED_TEXT = "The analysis service encountered an error. Please try again."
ABANDONED_TEXT = "The connection closed before the analysis finished; please ask again."
NO_CATALOG_TEXT = (
    "I could not read a catalog for this question. Attach your product export as a CSV file "
    "(Shopify, WooCommerce, Google Merchant Center, Magento, BigCommerce or any table with a header row), "
    "or ask your administrator to configure a catalog location."
)
NOT_KEPT_TEXT = (
    "{names} is larger than a conversation keeps for follow-ups ({limit}), so this answer is the only one "
    "from it: attach it again to ask more."
)
EXPIRED_TEXT = (
    "The catalog attached earlier in this conversation ({names}) is no longer kept (attachments are kept "
    "for {days} days); attach it again to ask about it."
)


class Canceled(Exception):
    """Raised between steps when the task's cancel flag is set."""


@dataclass
class Turn:
    """Everything the runner needs about one message, already validated and decoded."""

    task_id: str
    context_id: str
    user_message: dict[str, Any]
    question: str
    attachments: list[Attachment]
    unreadable: list[Unreadable]
    notices: list[str]
    a2ui: bool = False
    catalog_uri: str | None = None  # from a trusted catalog_context, else config
    reference_uri: str | None = None
    merchant_id: str | None = None
    context: ContextState | None = None  # as loaded by the handler (catalogs not downloaded yet)
    summary: dict[str, Any] = field(default_factory=dict)  # filled for the request log line
    final_task: dict[str, Any] | None = None  # what the store holds once the turn ended


@dataclass
class Deps:
    tasks: TaskStore
    contexts: ContextStore
    live: LiveRegistry
    catalog_uri: str | None
    reference_uri: str | None
    local_root: str | None
    a2ui_status_copy: bool
    max_attached_bytes: int = 64 * 1024 * 1024
    max_turns: int = 100
    ttl_days: int = 7
    step_gate: str | None = None  # tests only: agent.service.stepgate
    clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc)


class Runner:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps

    # -- public -----------------------------------------------------------------------------------

    def events(self, turn: Turn) -> Iterator[dict[str, Any]]:
        """The turn's A2A events; the last one is a status-update with final: true."""
        live = self.deps.live.open(turn.task_id)
        finished = False
        try:
            for event in self._events(turn):
                finished = finished or bool(event.get("final"))
                live.publish(event)
                yield event
        except GeneratorExit:
            if not finished:  # the client went away mid-run; a function cannot work on without it
                self._abandon(turn)
            raise
        finally:
            self.deps.live.close(turn.task_id)

    def _abandon(self, turn: Turn) -> None:
        message = objects.agent_message([objects.text_part(ABANDONED_TEXT)], task_id=turn.task_id, context_id=turn.context_id)
        stored = self.deps.tasks.get(turn.task_id) or {}
        final = objects.task(turn.task_id, turn.context_id, objects.status("failed", message),
                             history=(stored.get("history") or [turn.user_message]) + [message])
        try:
            turn.final_task = self.deps.tasks.finish(final)
        except Exception:  # noqa: BLE001 - the client is gone; log and let the stream close
            logs.incident("could not store an abandoned task", logs.new_incident_id(), task=turn.task_id)
        turn.summary["outcome"] = "abandoned"

    # -- the pipeline -----------------------------------------------------------------------------

    def _events(self, turn: Turn) -> Iterator[dict[str, Any]]:
        tid, cid = turn.task_id, turn.context_id
        history = [turn.user_message]
        # The Task goes out before anything is written or read: the first frame is never slowed by a
        # store (a Cloud Storage write of a message with an attached CSV can take a while).
        yield objects.task(tid, cid, objects.status("submitted"), history=history)

        artifacts: list[dict[str, Any]] = []
        status_parts: list[dict[str, Any]] = []
        state, final_text = "completed", ""
        context = turn.context if turn.context is not None else self.deps.contexts.load(cid)
        context = context or ContextState(context_id=cid)
        change = ContextChange(task_id=tid, merchant_id=turn.merchant_id, max_turns=self.deps.max_turns)
        try:
            working = objects.status("working", self._progress(tid, cid, self._reading_line(turn, context)))
            # One write for submitted → working, before the first artifact (SPEC §2).
            self.deps.tasks.create(objects.task(tid, cid, working, history=history))
            yield objects.status_update(tid, cid, working, final=False)
            stepgate.hold(self.deps.step_gate, tid, lambda: self.deps.tasks.cancel_requested(tid))
            self._check_cancel(tid)

            inputs = self._load(turn, context)
            turn.summary["sources"] = [s.name for side in (inputs.own, inputs.reference) if side for s in side.sources]
            turn.summary["rows_read"] = sum(s.rows_read for side in (inputs.own, inputs.reference) if side for s in side.sources)
            self._check_cancel(tid)

            produced = yield from self._analyse(turn, context, change, inputs, artifacts, status_parts)
            final_text = produced
        except Canceled:
            state, final_text = "canceled", CANCELED_TEXT
        except Exception:
            incident = logs.new_incident_id()
            logs.incident("analysis failed", incident, task=tid, context=cid)
            state, final_text = "failed", f"{FAILED_TEXT} (incident {incident})"
            turn.summary["incident"] = incident

        parts = [objects.text_part(final_text)]
        if state == "completed" and self.deps.a2ui_status_copy:
            parts.extend(status_parts)
        final_message = objects.agent_message(parts, task_id=tid, context_id=cid)
        final_status = objects.status(state, final_message)
        turn.summary["outcome"] = state
        final_task = objects.task(tid, cid, final_status, artifacts=artifacts, history=history + [final_message])
        try:
            yield objects.status_update(tid, cid, final_status, final=True)
        finally:
            # Persisted even when the client goes away on this very frame (the generator is closed
            # at the yield): the answer exists, and tasks/get must not show the task working forever.
            self._persist(turn, final_task, change)

    def _persist(self, turn: Turn, final_task: dict[str, Any], change: ContextChange) -> None:
        """After the final frame: the task and the context's memory. The answer is out; a store failure
        here is logged (with an incident id) rather than turned into a second, contradicting frame."""
        tid, cid = turn.task_id, turn.context_id
        turn.final_task = final_task
        for what, store in (("task", lambda: self.deps.tasks.finish(final_task)),
                            ("context", lambda: self.deps.contexts.record_turn(cid, change))):
            try:
                stored = store()
            except Exception:  # noqa: BLE001
                incident = logs.new_incident_id()
                logs.incident(f"could not store the finished turn's {what}", incident, task=tid, context=cid)
                turn.summary["store_incident"] = incident
                continue
            if what == "task":
                turn.final_task = stored

    def _analyse(self, turn: Turn, context: ContextState, change: ContextChange, inputs: CatalogInputs,
                 artifacts: list[dict[str, Any]], status_parts: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        from agent.analysis import planner
        from agent.analysis.inputs import SkillInput
        from agent.analysis.registry import SKILLS
        from agent.catalog import taxonomy as taxonomy_mod
        from agent.render.footer import render_footer
        from agent.render.text import render_skill

        tid, cid = turn.task_id, turn.context_id
        now = self.deps.clock()
        preface = [f"I could not read {u.name}: {u.reason}." for u in inputs.unreadable]
        preface += inputs.problems + turn.notices

        if inputs.own is None:
            text = "\n\n".join([NO_CATALOG_TEXT, *preface, render_footer(inputs, None, now)])
            art = objects.artifact("catalog_overview", [objects.text_part(text)])
            artifacts.append(art)
            yield objects.artifact_update(tid, cid, art)
            return "I could not read a catalog; the answer says what to send."

        if any(s.kind == KIND_ATTACHED for s in inputs.own.sources):
            # Follow-ups in this context reuse it without re-upload — within the per-context limit, which
            # counts the files that make up the kept catalog (not a reference file or an unreadable one).
            kept = {s.name for s in inputs.own.sources if s.kind == KIND_ATTACHED}
            size = sum(len(a.data) for a in turn.attachments if a.name in kept)
            if size > self.deps.max_attached_bytes:
                names = ", ".join(s.name for s in inputs.own.sources)
                preface.append(NOT_KEPT_TEXT.format(names=names, limit=_mib(self.deps.max_attached_bytes)))
            else:
                change.catalogs, change.attached_bytes = [as_context_catalog(inputs.own)], size

        taxonomy = taxonomy_mod.load()
        memory = planner.PlanMemory.from_dict(context.plan_memory) if context.plan_memory else None
        plan = planner.plan(turn.question, inputs.own.table, taxonomy, memory)
        change.plan_memory = plan.memory.to_dict()
        turn.summary["skills"] = list(plan.skills)
        preface = list(plan.notes) + preface

        reference = inputs.reference.table if inputs.reference is not None else None
        for position, skill_id in enumerate(plan.skills):
            spec = SKILLS[skill_id]
            note = f"Running {spec.name.lower()} on {plan.scope.label}…"
            if position:
                note = f"{note} ({position + 1} of {len(plan.skills)})"
            yield objects.status_update(tid, cid, objects.status("working", self._progress(tid, cid, note)), final=False)
            self._check_cancel(tid)
            result = spec.run(SkillInput(own=inputs.own.table, reference=reference, scope=plan.scope,
                                         taxonomy=taxonomy, sources=tuple(inputs.own.sources)))
            footer = render_footer(inputs, result.taxonomy_note, now)
            text = render_skill(result, preface) + "\n\n" + footer
            yield from self._emit_artifact(turn, spec, result, text, footer, artifacts, status_parts)
        names = ", ".join(SKILLS[s].name for s in plan.skills)
        return f"Answered on {plan.scope.label}: {names}."

    def _emit_artifact(self, turn: Turn, spec: Any, result: Any, text: str, footer: str,
                       artifacts: list[dict[str, Any]], status_parts: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        tid, cid = turn.task_id, turn.context_id
        art = objects.artifact(spec.id, [objects.text_part(text)], description=spec.name)
        if not turn.a2ui:
            artifacts.append(art)
            yield objects.artifact_update(tid, cid, art)
            return
        from agent.render import a2ui

        art["extensions"] = [a2ui.EXTENSION_URI]
        yield objects.artifact_update(tid, cid, dict(art), append=False, last_chunk=False)
        surface_id = f"{spec.id}-{tid}"
        data_parts = a2ui.to_parts(a2ui.build_messages(result, footer, surface_id))
        art["parts"] = art["parts"] + data_parts
        artifacts.append(art)
        status_parts.extend(data_parts)
        chunk = dict(art, parts=data_parts)
        yield objects.artifact_update(tid, cid, chunk, append=True, last_chunk=True)

    # -- helpers ----------------------------------------------------------------------------------

    def _load(self, turn: Turn, context: ContextState) -> CatalogInputs:
        from agent.catalog.sources import load_catalog_inputs

        inputs = load_catalog_inputs(
            turn.attachments,
            question=turn.question,
            catalog_uri=turn.catalog_uri or self.deps.catalog_uri,
            reference_uri=turn.reference_uri or self.deps.reference_uri,
            local_root=self.deps.local_root,
            earlier=tuple(self.deps.contexts.load_catalogs(context)) if not turn.attachments and context.has_catalogs else (),
        )
        inputs.unreadable[:0] = turn.unreadable
        if context.expired_catalogs and not turn.attachments:
            names = ", ".join(dict.fromkeys(context.expired_catalogs))
            inputs.problems.append(EXPIRED_TEXT.format(names=names, days=self.deps.ttl_days))
        return inputs

    @staticmethod
    def _reading_line(turn: Turn, context: ContextState) -> str:
        if turn.attachments:
            return "Reading " + ", ".join(a.name for a in turn.attachments) + "…"
        if context.has_catalogs:
            return "Reading the catalog attached earlier in this conversation…"
        return "Reading the catalog…"

    @staticmethod
    def _progress(task_id: str, context_id: str, text: str) -> dict[str, Any]:
        return objects.agent_message([objects.text_part(text)], task_id=task_id, context_id=context_id)

    def _check_cancel(self, task_id: str) -> None:
        if self.deps.tasks.cancel_requested(task_id):
            raise Canceled()


def drain(events: Iterator[dict[str, Any]]) -> dict[str, Any]:
    """Run a turn to completion; return its final status-update."""
    last: dict[str, Any] = {}
    for last in events:
        pass
    return last


def wait_until_terminal(tasks: TaskStore, task_id: str, timeout: float) -> dict[str, Any] | None:
    """Poll the task's state until it is terminal (a cancel is cooperative) or the timeout passes.

    Polls the cheap state (a metadata read on Cloud Storage) at the store's pace; reads the whole task once.
    """
    deadline = time.monotonic() + timeout
    while True:
        state = tasks.state(task_id)
        if state is None or state in objects.TERMINAL_STATES or time.monotonic() >= deadline:
            return tasks.get(task_id)
        time.sleep(tasks.poll_interval)


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):,.0f} MiB" if size >= 1024 * 1024 else f"{size:,} bytes"
