"""One turn, start to finish: the task lifecycle as a stream of A2A events.

`message/send` drains this generator and returns the final Task; `message/stream` frames each event as
it comes. The order is fixed (SPEC §2): the Task (`submitted`) at once — before any catalog work —
then `working` progress, one artifact per skill as soon as it is ready, and the final status right
after the last artifact. The final state is written before the final frame (a client is never told
`completed` unless the store holds it: a write that cannot be made is answered `failed`); saving the
context's memory (possibly a Parquet upload) happens after it, before the response ends.

Cancellation is cooperative: the stored cancel flag is checked between steps (the store makes that
cheap — a Cloud Storage store asks at most every half second). The task is written on transitions
only: created (`submitted`), `working` before the first artifact, and the final state before the final
frame; the context then records the turn in one atomic read-modify-write.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterator

from agent import budget, logs
from agent.catalog.attachments import Attachment
from agent.catalog.errors import CatalogError
from agent.catalog.evidence import KIND_ATTACHED, CatalogInputs, Unreadable
from agent.errors import AgentError
from agent.protocol import arrivals, objects
from agent.store.base import (
    ContextChange,
    ContextState,
    ContextStore,
    StoreUnavailable,
    TaskStore,
    as_context_catalog,
)

from . import reclaim, stepgate

if TYPE_CHECKING:
    from agent.analysis.planner import Plan
    from agent.analysis.registry import SkillSpec
    from agent.catalog.taxonomy import Taxonomy
    from agent.config import BigQuerySettings
from .live import LiveRegistry
from .unstored import UnstoredOutcomes

CANCELED_TEXT = "Cancelled at the client's request."
FAILED_TEXT = "The analysis service encountered an error. Please try again."
STORE_FAILED_TEXT = "The answer could not be saved, so this task is not complete. Please try again."
FINAL_WRITE_ATTEMPTS = 3
FINAL_WRITE_BACKOFF_S = 0.2
LOST_TEXT = (
    "The catalog attached earlier in this conversation ({names}) could not be saved or read back from "
    "storage, so it is no longer available; attach it again to ask about it."
)
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

RELEASED_TEXT = (
    "The catalog attached earlier in this conversation ({names}) is no longer kept: this agent keeps "
    "conversations in its own memory and lets go of attached files after {minutes} without questions; "
    "attach it again to ask about it."
)


class LostNotes:
    """Per instance: conversations whose attached catalog could not be stored at all (the store was
    down for the context write too), so this instance can still tell the next turn. Bounded."""

    def __init__(self, limit: int = 1000) -> None:
        self._notes: dict[str, list[str]] = {}
        self._limit = limit
        self._lock = threading.Lock()

    def remember(self, context_id: str, names: list[str]) -> None:
        with self._lock:
            self._notes.pop(context_id, None)
            self._notes[context_id] = list(names)
            while len(self._notes) > self._limit:
                self._notes.pop(next(iter(self._notes)))

    def forget(self, context_id: str) -> None:
        with self._lock:
            self._notes.pop(context_id, None)

    def recall(self, context_id: str) -> list[str]:
        with self._lock:
            return list(self._notes.get(context_id, []))


class Canceled(AgentError):
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
    party: str = "anonymous"  # who the turn acts for (agent.service.trust.party_of): owns the task and context
    context: ContextState | None = None  # as loaded by the handler (catalogs not downloaded yet)
    summary: dict[str, Any] = field(default_factory=dict)  # filled for the request log line
    attached_sizes: dict[str, int] = field(default_factory=dict)  # name -> bytes, kept once the bytes are gone
    final_task: dict[str, Any] | None = None  # what the store holds once the turn ended
    # what the turn has sent: every artifact (the final task holds them) and the A2UI data parts the
    # final status message may copy (A2UI_STATUS_COPY)
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    status_parts: list[dict[str, Any]] = field(default_factory=list)


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
    storage_seconds: float = 10.0  # TURN_STORAGE_SECONDS: all storage calls of a turn's work (agent.budget)
    demand_uri: str | None = None  # DEMAND_URI: a configured Best sellers report
    bigquery: "BigQuerySettings | None" = None  # BIGQUERY_*: how bq:// locations are read (cap, size line)
    idle_release_seconds: int = 300  # IDLE_RELEASE_SECONDS: in-memory conversations let go of tables unused this long

    @property
    def reserve_seconds(self) -> float:
        """Kept apart for the writes that end a turn (final task, context): a budget spent on a hung
        read must not also cost the client its answer's record."""
        return min(5.0, max(1.0, self.storage_seconds / 2))

    lost: "LostNotes" = field(default_factory=lambda: LostNotes())
    # final tasks the store refused twice, written on later requests (agent.service.unstored)
    unstored: UnstoredOutcomes = field(default_factory=UnstoredOutcomes)
    clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc)
    analysis_slots: int = 1  # ANALYSIS_SLOTS: turns computing (planning, a skill) at once; see AnalysisSlots
    first_frame_wait_ms: int = 50  # FIRST_FRAME_WAIT_MS: a step of analysis waits this long at most for first frames


class AnalysisSlots:
    """At most `slots` turns of this process compute at once (plan a question, run a skill, render it).

    Why (issue 16 item 4): with as many request threads as concurrent streams, 32 turns computing
    together share one interpreter lock, so every turn — and every new connection's first frame —
    waits behind all of them (first-event p95 ~100 ms; 337 ms when THREADS < streams and connections
    queue). A turn that waits for a slot blocks on a semaphore and takes no interpreter time, so the
    Task frame of a new stream goes out at once and the turns finish one after another at their
    single-stream pace. Only CPU-bound steps hold a slot, never a yield to the client or a storage
    read (a slow client or a hung bucket cannot hold it). `wait_count` counts turns that had to wait
    (for tests).

    First frames first: once it has a slot, a step waits — at most `first_frame_wait_s`, blocked, so
    without interpreter time — while requests that reached the function have not had their first bytes
    (agent.protocol.arrivals): a burst's new connections write their Task frames before anyone's
    analysis takes the interpreter lock from them. `first_frame_waits` counts the steps that waited."""

    def __init__(self, slots: int, first_frame_wait_s: float = 0.05) -> None:
        self._sem = threading.BoundedSemaphore(max(1, slots))
        self.wait_count = 0
        self.first_frame_wait_s = first_frame_wait_s
        self.first_frame_waits = 0

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        if not self._sem.acquire(blocking=False):
            self.wait_count += 1
            self._sem.acquire()
        try:
            if not arrivals.wait_for_first_frames(self.first_frame_wait_s):
                self.first_frame_waits += 1
            yield
        finally:
            self._sem.release()


@dataclass(frozen=True)
class _SkillTurn:
    """One skill of a turn's plan, with what all the turn's skills share: the plan, the taxonomy, the
    clock reading every footer states."""

    spec: SkillSpec
    position: int  # in the plan: the progress line counts "(2 of 3)"
    plan: Plan
    taxonomy: Taxonomy
    now: dt.datetime


def _preface(turn: Turn, inputs: CatalogInputs) -> list[str]:
    """What the answer says before the analysis: files that could not be read, their problems (these
    name files: escaped), and the turn's notices."""
    from agent.render.text import md_escape

    preface = [f"I could not read {md_escape(u.name)}: {md_escape(u.reason)}." for u in inputs.unreadable]
    return preface + [md_escape(p) for p in inputs.problems] + turn.notices


class Runner:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.slots = AnalysisSlots(deps.analysis_slots, deps.first_frame_wait_ms / 1000)

    # -- public -----------------------------------------------------------------------------------

    def events(self, turn: Turn) -> Iterator[dict[str, Any]]:
        """The turn's A2A events; the last one is a status-update with final: true."""
        live = self.deps.live.open(turn.task_id)
        try:
            # every storage call of the turn's work shares one budget
            for event in budget.bounded(self._events(turn), self.deps.storage_seconds):
                live.publish(event)
                yield event
        except GeneratorExit:
            if not live.events or not live.events[-1].get("final"):
                # the client went away mid-run; a function cannot work on without it
                with budget.within(self.deps.reserve_seconds):
                    self._abandon(turn)
            raise
        finally:
            self.deps.live.close(turn.task_id)

    def _abandon(self, turn: Turn) -> None:
        message = objects.agent_message(
            [objects.text_part(ABANDONED_TEXT)], task_id=turn.task_id, context_id=turn.context_id
        )
        stored = self.deps.tasks.get(turn.task_id) or {}
        final = objects.task(
            turn.task_id,
            turn.context_id,
            objects.status("failed", message),
            history=(stored.get("history") or [turn.user_message]) + [message],
        )
        try:
            turn.final_task = self.deps.tasks.finish(final)
        except Exception:  # noqa: BLE001 - the client is gone; log and let the stream close
            logs.incident("could not store an abandoned task", logs.new_incident_id(), task=turn.task_id)
        turn.summary["outcome"] = (turn.final_task or final)["status"]["state"]  # what the task ended with
        turn.summary["abandoned"] = True

    # -- the pipeline -----------------------------------------------------------------------------

    def _events(self, turn: Turn) -> Iterator[dict[str, Any]]:
        tid, cid = turn.task_id, turn.context_id
        history = [turn.user_message]
        # The Task goes out before anything is written or read: the first frame is never slowed by a
        # store (a Cloud Storage write of a message with an attached CSV can take a while).
        yield objects.task(tid, cid, objects.status("submitted"), history=history)

        state, final_text = "completed", ""
        context = turn.context if turn.context is not None else self.deps.contexts.load(cid)
        context = context or ContextState(context_id=cid)
        change = ContextChange(
            task_id=tid, merchant_id=turn.merchant_id, party=turn.party, max_turns=self.deps.max_turns
        )
        try:
            working = objects.status("working", self._progress(tid, cid, self._reading_line(turn, context)))
            # One write for submitted → working, before the first artifact (SPEC §2).
            self.deps.tasks.create(objects.task(tid, cid, working, history=history), party=turn.party)
            yield objects.status_update(tid, cid, working, final=False)
            stepgate.hold(self.deps.step_gate, tid, lambda: self.deps.tasks.cancel_requested(tid))
            self._check_cancel(tid)

            inputs = self._load(turn, context)
            self._release_bytes(turn)
            turn.summary["sources"] = [s.name for side in (inputs.own, inputs.reference) if side for s in side.sources]
            turn.summary["rows_read"] = sum(
                s.rows_read for side in (inputs.own, inputs.reference) if side for s in side.sources
            )
            self._check_cancel(tid)

            produced = yield from self._analyse(turn, context, change, inputs)
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
            parts.extend(turn.status_parts)
        final_message = objects.agent_message(parts, task_id=tid, context_id=cid)
        final_task = objects.task(
            tid, cid, objects.status(state, final_message), artifacts=turn.artifacts, history=history + [final_message]
        )
        # The final state is written before the final frame: a client is never told an outcome the
        # store does not hold (a cancel that won, or `failed` when the write itself failed).
        with budget.within(self.deps.reserve_seconds):
            final_task = self._store_final(turn, final_task)
        turn.final_task = final_task
        turn.summary["outcome"] = final_task["status"]["state"]
        try:
            yield objects.status_update(tid, cid, final_task["status"], final=True)
        finally:
            # Persisted even when the client goes away on this very frame (the generator is closed
            # at the yield): follow-ups in this conversation must find what this turn attached.
            with budget.within(self.deps.reserve_seconds):
                self._record_context(turn, change)
            reclaim.after_turn(sum(turn.attached_sizes.values()))

    def _store_final(self, turn: Turn, final_task: dict[str, Any]) -> dict[str, Any]:
        """Write the final task (a few attempts); what the store holds, or a `failed` task when the
        write could not be made — then said with an incident id, never as `completed`."""
        tid, cid = turn.task_id, turn.context_id
        for attempt in range(FINAL_WRITE_ATTEMPTS):
            try:
                return self.deps.tasks.finish(final_task)
            except Exception:  # noqa: BLE001 - retried, then answered as failed below
                if attempt + 1 < FINAL_WRITE_ATTEMPTS:
                    time.sleep(FINAL_WRITE_BACKOFF_S * (attempt + 1))
        incident = logs.new_incident_id()
        logs.incident("could not store the finished task", incident, task=tid, context=cid)
        turn.summary["store_incident"] = incident
        message = objects.agent_message(
            [objects.text_part(f"{STORE_FAILED_TEXT} (incident {incident})")], task_id=tid, context_id=cid
        )
        failed = dict(
            final_task,
            status=objects.status("failed", message),
            history=list(final_task.get("history") or [])[:1] + [message],
        )
        try:  # the store may be back for this one
            return self.deps.tasks.finish(failed)
        except Exception:  # noqa: BLE001 - kept, and stored on a later request (never left `working`)
            self.deps.unstored.keep(failed)
            return failed

    def _record_context(self, turn: Turn, change: ContextChange) -> None:
        """The context's memory of this turn. When it cannot be written with this turn's catalog, it
        is written without it, naming the file, so the next turn says the file is not available
        rather than answering silently from another catalog; when nothing can be written, this
        instance remembers that note for the conversation."""
        tid, cid = turn.task_id, turn.context_id
        try:
            self.deps.contexts.record_turn(cid, change)
            if change.catalogs is not None:
                self.deps.lost.forget(cid)
            return
        except Exception:  # noqa: BLE001
            incident = logs.new_incident_id()
            logs.incident("could not store the finished turn's context", incident, task=tid, context=cid)
            turn.summary["store_incident"] = incident
        lost = [s.name for c in change.catalogs or [] for s in c.sources] or None
        if lost is None:
            return
        fallback = ContextChange(
            task_id=change.task_id,
            merchant_id=change.merchant_id,
            party=change.party,
            plan_memory=change.plan_memory,
            max_turns=change.max_turns,
            lost_catalogs=lost,
        )
        try:
            self.deps.contexts.record_turn(cid, fallback)
        except Exception:  # noqa: BLE001
            self.deps.lost.remember(cid, lost)

    def _analyse(
        self,
        turn: Turn,
        context: ContextState,
        change: ContextChange,
        inputs: CatalogInputs,
    ) -> Generator[dict[str, Any], None, str]:
        """The turn's analysis: the question planned, then one artifact per skill (`_run_skill`); what
        could not be read is said first. Returns the line the final status says."""
        from agent.analysis import planner, sql_run
        from agent.analysis.registry import SKILLS
        from agent.catalog import taxonomy as taxonomy_mod
        from agent.render.footer import render_footer
        from agent.render.text import md_escape

        now = self.deps.clock()
        preface = _preface(turn, inputs)
        if inputs.own is None:
            text = "\n\n".join([NO_CATALOG_TEXT, *preface, render_footer(inputs, None, now)])
            yield from self._send_text(turn, "catalog_overview", text)
            return "I could not read a catalog; the answer says what to send."
        if any(s.kind == KIND_ATTACHED for s in inputs.own.sources):
            self._keep_attached(turn, change, inputs, preface)
        taxonomy = taxonomy_mod.load()
        memory = planner.PlanMemory.from_dict(context.plan_memory) if context.plan_memory else None
        with self.slots.held():
            # above BigQuery's size line no rows were read: the plan reads the offers whose titles name the
            # question's words (sql_run.planning_rows), as it reads them in the in-memory table
            kept = memory.scope_phrase if memory else None
            planned = sql_run.planning_rows(inputs.own.sources, turn.question, kept)
            plan = planner.plan(turn.question, inputs.own.table if planned is None else planned, taxonomy, memory)
        change.plan_memory = plan.memory.to_dict()
        turn.summary["skills"] = list(plan.skills)
        # The plan's notes quote the caller's words and the catalog's names ("the scope is …", "nearest:
        # …"): escaped like catalog values, as the progress and status lines below are.
        preface = [md_escape(note) for note in plan.notes] + preface
        for position, skill_id in enumerate(plan.skills):
            yield from self._run_skill(
                turn, _SkillTurn(SKILLS[skill_id], position, plan, taxonomy, now), inputs, preface
            )
        names = ", ".join(SKILLS[s].name for s in plan.skills)
        return f"Answered on {md_escape(plan.scope.label)}: {names}."

    def _keep_attached(self, turn: Turn, change: ContextChange, inputs: CatalogInputs, preface: list[str]) -> None:
        """Follow-ups in this context reuse an attached catalog without re-upload — within the per-context
        limit, which counts the files that make up the kept catalog (not a reference file or an unreadable
        one); over it, the answer says the catalog is not kept."""
        from agent.render.text import md_escape

        assert inputs.own is not None  # the caller checked
        kept = {s.name for s in inputs.own.sources if s.kind == KIND_ATTACHED}
        size = sum(n for name, n in turn.attached_sizes.items() if name in kept)
        if size > self.deps.max_attached_bytes:
            names = ", ".join(md_escape(s.name) for s in inputs.own.sources)
            preface.append(NOT_KEPT_TEXT.format(names=names, limit=_mib(self.deps.max_attached_bytes)))
        else:
            change.catalogs, change.attached_bytes = [as_context_catalog(inputs.own)], size

    def _run_skill(
        self, turn: Turn, step: _SkillTurn, inputs: CatalogInputs, preface: list[str]
    ) -> Iterator[dict[str, Any]]:
        """One skill of the plan: a `working` progress line, the skill run in a slot and rendered, its
        artifact; above the BigQuery size line a skill without a SQL form, or a refused query, is said."""
        from agent.analysis import memo
        from agent.analysis.inputs import SkillInput
        from agent.analysis.registry import IN_BIGQUERY
        from agent.render.footer import render_footer
        from agent.render.text import md_escape, render_skill

        assert inputs.own is not None  # `_analyse` answered without a catalog already
        tid, cid = turn.task_id, turn.context_id
        spec, plan, now = step.spec, step.plan, step.now
        in_bigquery = any(getattr(src, "pushdown", None) is not None for src in inputs.own.sources)
        if in_bigquery and spec.id not in IN_BIGQUERY:
            # above the size line nothing was downloaded: a skill without a SQL form says so
            over_line = OVER_LINE_TEXT.format(skill=spec.name, pushed=_in_bigquery_names())
            text = "\n\n".join([*preface, over_line, render_footer(inputs, None, now)])
            yield from self._send_text(turn, spec.id, text, description=spec.name)
            return
        note = f"Running {spec.name.lower()} on {md_escape(plan.scope.label)}…"  # a catalog's name: escaped
        if step.position:
            note = f"{note} ({step.position + 1} of {len(plan.skills)})"
        yield objects.status_update(tid, cid, objects.status("working", self._progress(tid, cid, note)), final=False)
        self._check_cancel(tid)
        refusal = None
        with self.slots.held():
            try:
                result = memo.run(
                    spec.id,
                    spec.run,
                    SkillInput(
                        own=inputs.own.table,
                        reference=inputs.reference.table if inputs.reference is not None else None,
                        scope=plan.scope,
                        taxonomy=step.taxonomy,
                        sources=tuple(inputs.own.sources),
                        demand=inputs.demand.table if inputs.demand is not None else None,
                    ),
                )
            except CatalogError as exc:
                if not in_bigquery:
                    raise
                refusal = _bigquery_refusal(spec.name, exc)
            if refusal is None:
                footer = render_footer(inputs, result.taxonomy_note, now)
                text = render_skill(result, preface) + "\n\n" + footer
                plain_footer = render_footer(inputs, result.taxonomy_note, now, markdown=False) if turn.a2ui else footer
        if refusal is not None:  # the aggregation query was refused by the cap, or BigQuery failed
            text = "\n\n".join([*preface, refusal, render_footer(inputs, None, now)])
            yield from self._send_text(turn, spec.id, text, description=spec.name)
            return
        yield from self._emit_artifact(turn, spec, result, text, plain_footer)

    def _emit_artifact(
        self,
        turn: Turn,
        spec: Any,
        result: Any,
        text: str,
        footer: str,
    ) -> Iterator[dict[str, Any]]:
        if not turn.a2ui:
            yield from self._send_text(turn, spec.id, text, description=spec.name)
            return
        tid, cid = turn.task_id, turn.context_id
        art = objects.artifact(spec.id, [objects.text_part(text)], description=spec.name)
        from agent.render import a2ui

        art["extensions"] = [a2ui.EXTENSION_URI]
        yield objects.artifact_update(tid, cid, dict(art), append=False, last_chunk=False)
        surface_id = f"{spec.id}-{tid}"
        data_parts = a2ui.to_parts(a2ui.build_messages(result, footer, surface_id))
        art["parts"] = art["parts"] + data_parts
        turn.artifacts.append(art)
        turn.status_parts.extend(data_parts)
        chunk = dict(art, parts=data_parts)
        yield objects.artifact_update(tid, cid, chunk, append=True, last_chunk=True)

    @staticmethod
    def _send_text(turn: Turn, artifact_id: str, text: str, description: str | None = None) -> Iterator[dict[str, Any]]:
        """One text artifact, kept for the final task and sent whole in one update."""
        art = objects.artifact(artifact_id, [objects.text_part(text)], description=description)
        turn.artifacts.append(art)
        yield objects.artifact_update(turn.task_id, turn.context_id, art)

    # -- helpers ----------------------------------------------------------------------------------

    def _load(self, turn: Turn, context: ContextState) -> CatalogInputs:
        from agent.catalog.sources import load_catalog_inputs

        inputs = load_catalog_inputs(
            turn.attachments,
            question=turn.question,
            catalog_uri=turn.catalog_uri or self.deps.catalog_uri,
            reference_uri=turn.reference_uri or self.deps.reference_uri,
            local_root=self.deps.local_root,
            earlier=tuple(self.deps.contexts.load_catalogs(context))
            if context.has_catalogs and not _catalog_files(turn)
            else (),
            refused=turn.unreadable,
            merchant_id=turn.merchant_id,
            demand_uri=self.deps.demand_uri,
            bigquery=self.deps.bigquery,
        )
        if context.expired_catalogs and not turn.attachments:
            names = ", ".join(dict.fromkeys(context.expired_catalogs))
            inputs.problems.append(EXPIRED_TEXT.format(names=names, days=self.deps.ttl_days))
        if context.released_catalogs and not turn.attachments:
            names = ", ".join(dict.fromkeys(context.released_catalogs))
            inputs.problems.append(RELEASED_TEXT.format(names=names, minutes=_minutes(self.deps.idle_release_seconds)))
        lost = list(context.lost_catalogs) + self.deps.lost.recall(turn.context_id)
        if lost and not turn.attachments:
            inputs.problems.append(LOST_TEXT.format(names=", ".join(dict.fromkeys(lost))))
        return inputs

    @staticmethod
    def _release_bytes(turn: Turn) -> None:
        """The attached files have been parsed: keep their sizes, let go of their bytes (memory is
        bounded by what caches and stores keep, not by what turns happened to receive)."""
        import dataclasses

        for a in turn.attachments:
            turn.attached_sizes[a.name] = turn.attached_sizes.get(a.name, 0) + len(a.data)
        turn.attachments = [dataclasses.replace(a, data=b"") for a in turn.attachments]

    @staticmethod
    def _reading_line(turn: Turn, context: ContextState) -> str:
        if turn.attachments:
            from agent.render.text import md_escape

            return "Reading " + ", ".join(md_escape(a.name) for a in turn.attachments) + "…"
        if context.has_catalogs:
            return "Reading the catalog attached earlier in this conversation…"
        return "Reading the catalog…"

    @staticmethod
    def _progress(task_id: str, context_id: str, text: str) -> dict[str, Any]:
        return objects.agent_message([objects.text_part(text)], task_id=task_id, context_id=context_id)

    def _check_cancel(self, task_id: str) -> None:
        """Stop the turn if a cancel was asked for. When the store cannot say (StoreUnavailable: it did
        not answer within what is left of the turn's storage time, or storage is failing), the turn goes
        on as if no cancel came — its final write then meets the same store under its own reserve and
        says what happened — rather than failing an answer that is nearly done over a question nobody
        may have asked. Any other error is a bug and fails the turn as one."""
        try:
            requested = self.deps.tasks.cancel_requested(task_id)
        except StoreUnavailable:
            logs.incident("could not check for a cancel", logs.new_incident_id(), task=task_id)
            return
        if requested:
            raise Canceled()


def drain(events: Iterator[dict[str, Any]]) -> dict[str, Any]:
    """Run a turn to completion; return its final status-update."""
    last: dict[str, Any] = {}
    for event in events:
        last = event
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


OVER_LINE_TEXT = (
    "{skill} was not run: it needs the catalog in memory, and the catalog's newest BigQuery partition is "
    "above the in-memory line (BIGQUERY_IN_MEMORY_BYTES), so nothing was downloaded. Above the line only "
    "{pushed} are aggregated in BigQuery; for this question, raise the line on an instance with the memory "
    "for the partition."
)


def _in_bigquery_names() -> str:
    """ "catalog overview and assortment gaps": the skills with a BigQuery aggregation, in card order."""
    from agent.analysis.registry import IN_BIGQUERY, SKILLS

    names = [spec.name.lower() for sid, spec in SKILLS.items() if sid in IN_BIGQUERY]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _bigquery_refusal(skill: str, exc: Exception) -> str:
    """The sentence for an aggregation BigQuery did not run: over the cap (with the figures), or failed."""
    from agent.catalog.sources import bytes_text

    estimate, cap = getattr(exc, "estimate", None), getattr(exc, "cap", None)
    if estimate is not None and cap is not None:
        return (
            f"{skill} was not run in BigQuery: it would scan an estimated {bytes_text(estimate)}, over the "
            f"{bytes_text(cap)} cap per question (BIGQUERY_MAXIMUM_BYTES_BILLED)."
        )
    logging.getLogger(__name__).warning("BigQuery aggregation failed: %s", exc)
    return f"{skill} could not be run in BigQuery just now; please ask again in a moment."


def _minutes(seconds: int) -> str:
    minutes = max(1, round(seconds / 60))
    return "1 minute" if minutes == 1 else f"{minutes} minutes"


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):,.0f} MiB" if size >= 1024 * 1024 else f"{size:,} bytes"


def _catalog_files(turn: Turn) -> bool:
    """Whether this turn attached a catalog: a Best sellers report attached on its own leaves the
    conversation's earlier catalog in place (it is demand data beside it, not a replacement)."""
    from agent.catalog.bestsellers import sniff_bytes

    return any(sniff_bytes(a.data) is None for a in turn.attachments)
