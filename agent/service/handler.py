"""The A2A methods: validated params in, a result dict or an event iterator out.

This is the request handler of the a2a-python layering (transport ↔ handler ↔ executor ↔ store):
the transport (agent.protocol.http) parses and frames, this module decides, the Runner executes.
"""

from __future__ import annotations

import logging
from typing import Any, Iterator, NamedTuple

from agent import AGENT_NAME, __version__, budget
from agent.config import Config
from agent.protocol import arrivals, errors, objects
from agent.protocol import card as card_mod
from agent.protocol.context import CallContext
from agent.render.a2ui_ids import EXTENSION_URI as A2UI_URI
from agent.render.a2ui_ids import STANDARD_CATALOG_ID as A2UI_CATALOG_ID
from agent.render.a2ui_ids import card_extension
from agent.store.base import ContextState, NotCancelable, StoreCorrupt
from agent.store.factory import build_stores

from . import inputs, reclaim, references, trust
from .live import LiveRegistry
from .runner import Deps, Runner, Turn, drain, wait_until_terminal

log = logging.getLogger(__name__)
CANCEL_WAIT_SECONDS = 5.0
TURN_LIMIT = "This conversation has reached its limit of {n} turns; start a new conversation to continue."
# A conversation whose stored record is not one the agent wrote (edited or replaced in the bucket): who it
# belongs to cannot be read, so it is refused like another party's, with the way out.
UNREADABLE_CONTEXT = (
    "The conversation named by contextId could not be read from storage; send the question without contextId "
    "to start a new conversation."
)
DESCRIPTION = (
    "Answers merchants' questions about their product catalog — assortment gaps, price ladders, "
    "attribute and brand coverage, stock, and Google Shopping readiness — with computed findings, a table, "
    "and an evidence footer naming every source, the rows read and the snapshot date."
)


class Service:
    """The A2A methods (`agent.protocol.handler.RequestHandler`), over the stores and the Runner."""

    def __init__(self, config: Config) -> None:
        self.config = config
        from agent.catalog import cache

        cache.configure(table_cache_bytes=config.table_cache_bytes)  # its share of MEMORY_BUDGET_BYTES
        from agent.catalog import heap

        heap.configure(config.memory_budget_bytes)  # when a large CSV read is trimmed
        from agent.analysis import memo

        memo.configure(entries=config.result_memo_entries, max_bytes=config.result_memo_bytes)
        arrivals.configure(config.first_frame_wait_ms)
        self.tasks, self.contexts = build_stores(config)
        self.live = LiveRegistry(max_bytes=config.live_bytes)
        self._finished = _finished_json_cache(config.finished_json_bytes)
        self.idle = self._idle_release(config.idle_release_seconds)
        self.runner = Runner(
            Deps(
                tasks=self.tasks,
                contexts=self.contexts,
                live=self.live,
                catalog_uri=config.catalog_uri,
                reference_uri=config.reference_uri,
                local_root=config.local_root,
                a2ui_status_copy=config.a2ui_status_copy,
                max_attached_bytes=config.context_max_attached_bytes,
                max_turns=config.context_max_turns,
                ttl_days=config.state_ttl_days,
                step_gate=config.test_step_gate,
                storage_seconds=config.turn_storage_seconds,
                analysis_slots=config.analysis_slots,
                first_frame_wait_ms=config.first_frame_wait_ms,
                demand_uri=config.demand_uri,
                bigquery=config.bigquery,
                idle_release_seconds=config.idle_release_seconds,
            )
        )
        self._card: dict[str, Any] | None = None

    def _idle_release(self, seconds: float) -> reclaim.IdleRelease:
        """What a quiet instance gives back (IDLE_RELEASE_SECONDS): the process's cache entries, finished
        runs, and — with the in-memory store — the tables of conversations unused that long."""
        from agent.catalog import cache

        sweepers = [cache.drop_idle_entries, self.live.drop_finished]
        release_tables = getattr(self.contexts, "release_idle", None)
        if release_tables is not None:
            sweepers.insert(0, release_tables)
        return reclaim.IdleRelease(seconds, sweepers)

    # -- card -------------------------------------------------------------------------------------

    def card(self) -> dict[str, Any]:
        if self._card is None:
            from agent.analysis.registry import SKILLS

            skills = [
                {
                    "id": s.id,
                    "name": s.name,
                    "description": s.description,
                    "tags": list(s.tags),
                    "examples": list(s.examples),
                    "inputModes": list(card_mod.INPUT_MODES),
                    "outputModes": list(card_mod.OUTPUT_MODES),
                }
                for s in SKILLS.values()
            ]
            self._card = card_mod.build(
                name=AGENT_NAME,
                description=DESCRIPTION,
                version=__version__,
                url=self.config.public_url,
                skills=skills,
                extensions=[card_extension()],
                provider=self._provider(),
            )
        return self._card

    def _provider(self) -> dict[str, str] | None:
        if self.config.provider_organization and self.config.provider_url:
            return {"organization": self.config.provider_organization, "url": self.config.provider_url}
        return None

    # -- message/send and message/stream ----------------------------------------------------------

    def send(self, params: dict[str, Any], call: CallContext) -> dict[str, Any]:
        turn = self._turn(params, call)
        drain(self.runner.events(turn))
        call.log.update(turn.summary)
        task = turn.final_task
        if task is None:  # the run ended without a final task (not expected): say so honestly
            raise errors.RpcError(errors.INTERNAL_ERROR, errors.INTERNAL_MESSAGE)
        return self._with_history(task, (params.get("configuration") or {}).get("historyLength"))

    def stream(self, params: dict[str, Any], call: CallContext) -> Iterator[dict[str, Any]]:
        turn = self._turn(params, call)

        def events() -> Iterator[dict[str, Any]]:
            try:
                yield from self.runner.events(turn)
            finally:
                call.log.update(turn.summary)

        return events()

    # -- tasks/* ----------------------------------------------------------------------------------

    def get(self, params: dict[str, Any], call: CallContext) -> dict[str, Any]:
        self._on_request()
        task = self._owned(params, call)
        kept = self.runner.deps.unstored.get(task["id"])
        if kept is not None and task["status"]["state"] not in objects.TERMINAL_STATES:
            task = kept  # the outcome its client got, which the store has not taken yet
        call.log.update(task=task["id"], context=task["contextId"])
        if params.get("historyLength") is None and task["status"]["state"] in objects.TERMINAL_STATES:
            return _finished_text(self._finished, task)
        return self._with_history(task, params.get("historyLength"))

    def cancel(self, params: dict[str, Any], call: CallContext) -> dict[str, Any]:
        self._on_request()
        task_id = params["id"]
        self._owned(params, call)
        ended_here = self.live.ended_here(task_id) or self.runner.deps.unstored.get(task_id) is not None
        if ended_here and self.tasks.get(task_id) is not None:
            # The run ended here and told its client so; whatever the store holds (a final write
            # that failed leaves `working`), a cancel must not write over the outcome the client got.
            raise errors.task_not_cancelable()
        try:
            task = self.tasks.request_cancel(task_id)
        except NotCancelable:
            raise errors.task_not_cancelable() from None
        if task is None:
            raise errors.task_not_found()
        call.log.update(task=task_id, context=task["contextId"])
        task = wait_until_terminal(self.tasks, task_id, CANCEL_WAIT_SECONDS) or task
        if task["status"]["state"] not in objects.TERMINAL_STATES:
            # The runner went silent (its instance is gone): end the task here.
            message = objects.agent_message(
                [objects.text_part("Cancelled at the client's request.")], task_id=task_id, context_id=task["contextId"]
            )
            task = dict(
                task, status=objects.status("canceled", message), history=list(task.get("history") or []) + [message]
            )
            task = self.tasks.mark_canceled(task_id, task)
            if task["status"]["state"] != "canceled":
                # The run ended first (its final write won the store's generation check): the store and
                # the run's own client say that outcome, so this cancel is refused, not reported as done.
                raise errors.task_not_cancelable()
        return task

    def resubscribe(self, params: dict[str, Any], call: CallContext) -> Iterator[dict[str, Any]]:
        self._on_request()
        task_id = params["id"]
        task = self._owned(params, call)
        call.log.update(task=task_id, context=task["contextId"])
        live = self.live.get(task_id)

        def events() -> Iterator[dict[str, Any]]:
            # Another instance's run: the latest stored task (final, or as of its last transition),
            # then the stream closes. A run on this instance: follow its remaining events.
            snapshot = task
            yield snapshot
            state = snapshot["status"]["state"]
            if state in objects.TERMINAL_STATES:
                yield objects.status_update(task_id, snapshot["contextId"], snapshot["status"], final=True)
                return
            if live is not None:
                # The stored snapshot never holds artifacts before the run ends, so "remaining events"
                # are all of the run's events after its opening Task frame: those already published
                # (replayed, so an artifact made before this call is not lost), then the rest as they
                # come. A run that ended meanwhile replays to its final event and stops.
                yield from live.follow(1)

        return events()

    # -- helpers ----------------------------------------------------------------------------------

    def _on_request(self) -> None:
        """Housekeeping at the start of every A2A call (no timer runs between requests on Cloud Run): a
        quiet instance gives memory back (IDLE_RELEASE_SECONDS), and final outcomes the store refused are
        written now that their back-off has passed (agent.service.unstored)."""
        self.idle.on_request()
        self.runner.deps.unstored.flush(self.tasks)

    def _party(self, params: dict[str, Any], call: CallContext, bound: str | None = None) -> tuple[str, Any]:
        """(the party this call acts for, the verified catalog_context or None)."""
        trusted = None
        if "catalog_context" in params:
            trusted = trust.verify(
                params["catalog_context"],
                prefixes=self.config.allowed_catalog_prefixes,
                secret=self.config.catalog_context_secret,
                bound_merchant=bound,
            )
        return trust.party_of(trusted, call.caller), trusted

    def _owned(self, params: dict[str, Any], call: CallContext) -> dict[str, Any]:
        """The stored task params["id"] names, if it is this call's party's. tasks/*: another party's
        task is answered exactly like an unknown one (-32001)."""
        found = self.tasks.owned(params["id"])  # task and owner in one read
        if found is None or found[1] != self._party(params, call)[0]:
            raise errors.task_not_found()
        return found[0]

    def _turn(self, params: dict[str, Any], call: CallContext) -> Turn:
        """One message/send or message/stream as the runner's Turn: the request checked, its conversation
        loaded and its party checked (`_conversation`), the message's files decoded."""
        self._on_request()
        message = params["message"]
        self._refuse_unanswerable(params, message, call)
        given = params.get("contextId") or message.get("contextId")
        context_id = given or objects.new_id()
        context, party, trusted = self._conversation(params, call, context_id, bool(given))
        a2ui_how = self._a2ui_declared(call, message)
        if a2ui_how:
            call.activated_extensions = [A2UI_URI]
        call.log["a2ui"] = a2ui_how or "off"
        task_id = objects.new_id()
        parsed = inputs.read_message(message)
        references.strip_message(message)  # decoded above: from here on, only a reference to each file
        user_message = dict(
            message,
            kind="message",
            role=message.get("role") or "user",
            messageId=message.get("messageId") or objects.new_id(),
            contextId=context_id,
            taskId=task_id,
        )
        call.log.update(task=task_id, context=context_id)
        turn = Turn(
            task_id=task_id,
            context_id=context_id,
            user_message=user_message,
            question=parsed.question,
            attachments=parsed.attachments,
            unreadable=parsed.unreadable,
            notices=parsed.notices,
            a2ui=bool(a2ui_how),
            context=context or ContextState(context_id=context_id),
            party=party,
        )
        if trusted is not None:  # the runner binds the context to this merchant when the turn is recorded
            turn.catalog_uri, turn.reference_uri, turn.merchant_id = (
                trusted.catalog_uri,
                trusted.reference_uri,
                trusted.merchant_id,
            )
        return turn

    def _refuse_unanswerable(self, params: dict[str, Any], message: dict[str, Any], call: CallContext) -> None:
        """Requests no answer can serve, refused before anything is read: output modes this agent does not
        produce, two different context ids, a message naming a task (ended tasks take no more messages)."""
        configuration = params.get("configuration") or {}
        if not card_mod.accepts_output(configuration.get("acceptedOutputModes")):
            raise errors.RpcError(
                errors.CONTENT_TYPE_NOT_SUPPORTED,
                "None of the acceptedOutputModes is produced by this agent; accept text/plain.",
            )
        outer, inner = params.get("contextId"), message.get("contextId")
        if outer and inner and outer != inner:
            raise errors.RpcError(
                errors.INVALID_PARAMS,
                "params.contextId and params.message.contextId differ; send one, or the same value in both.",
            )
        if message.get("taskId"):
            if (
                self.tasks.get(message["taskId"]) is None
                or self.tasks.party(message["taskId"]) != self._party(params, call)[0]
            ):
                raise errors.task_not_found()
            raise errors.RpcError(
                errors.INVALID_PARAMS,
                "params.message.taskId names a task that cannot take more messages; send the question without taskId, with the same contextId, to ask a follow-up.",
            )

    def _conversation(
        self, params: dict[str, Any], call: CallContext, context_id: str, client_id: bool
    ) -> tuple[ContextState | None, str, Any]:
        """(the conversation as stored or None, the party the turn acts for, its trusted catalog context or
        None). Refused: a conversation at its turn limit, a merchant-bound one without catalog_context, and
        another party's."""
        # A server-made id is new by construction: no store read. A client's id may name a conversation
        # we have (on any instance) or be new, which starts a conversation with that id.
        with budget.within(self.config.turn_storage_seconds):
            try:
                context = self.contexts.load(context_id) if client_id else None
            except StoreCorrupt:  # its owner cannot be read: neither answered from nor written over
                raise errors.RpcError(errors.INVALID_PARAMS, UNREADABLE_CONTEXT) from None
        if context is not None and len(context.task_ids) >= self.config.context_max_turns:
            raise errors.RpcError(errors.INVALID_PARAMS, TURN_LIMIT.format(n=self.config.context_max_turns))
        bound = context.merchant_id if context else None
        if bound is not None and "catalog_context" not in params:
            # A context bound to a merchant keeps serving that merchant's catalog only: without the
            # catalog_context we would fall back to the default catalog, which is not theirs.
            raise errors.RpcError(errors.INVALID_PARAMS, trust.REQUIRED)
        party, trusted = self._party(params, call, bound)
        if context is not None and context.owner != party:
            # Another party's conversation (an unsigned one a signed turn would adopt, another caller's,
            # a guessed id): refused, never answered from its files.
            raise errors.RpcError(errors.INVALID_PARAMS, trust.NOT_YOURS)
        return context, party, trusted

    def _a2ui_declared(self, call: CallContext, message: dict[str, Any]) -> str | None:
        """How the client asked for A2UI, if it did (logged: Gemini Enterprise's way is undocumented)."""
        if A2UI_URI in call.requested_extensions:
            return "header"
        if A2UI_URI in (message.get("extensions") or []):
            return "message.extensions"
        caps = (message.get("metadata") or {}).get("a2uiClientCapabilities")
        ids = caps.get("supportedCatalogIds") if isinstance(caps, dict) else None
        if isinstance(ids, list) and A2UI_CATALOG_ID in ids:
            return "message.metadata"
        if self.config.a2ui_default:
            return "A2UI_DEFAULT"
        return None

    @staticmethod
    def _with_history(task: dict[str, Any], length: int | None) -> dict[str, Any]:
        out = dict(task)
        out["history"] = objects.trim_history(task.get("history") or [], length)
        return out


def _finished_json_cache(max_bytes: int) -> Any:
    """Finished tasks' reply JSON by task id (objects.Encoded), within its share of the memory budget
    (SHARE_FINISHED_JSON). A kept text is a hit only while it equals the task the store hands back now,
    so a task the store evicted is never answered from here (the store says "not found" first) and a task
    stored anew under the same id gets its own text; with the memory store the comparison is by identity
    at every level (it hands back the stored object itself), with a store that reads a new object each
    time (Cloud Storage) an unchanged task is still a hit. An entry is sized at twice its JSON's bytes: the
    bytes and the dict it carries (which shares the stored task's objects while the store keeps them)."""
    from agent.catalog.cache import Cache

    return Cache(max_bytes, size_of=lambda entry: 2 * len(entry.encoded.data))


# Kept in place of a text over the share: the task is encoded on each call, and said once, not per call.
_OVER_SHARE = "over its share"
_MARK_BYTES = 64  # what a mark costs beside its task id


class _KeptText(NamedTuple):
    """A finished task's reply text, with the stored task it was made from."""

    task: dict[str, Any]  # the memory store hands back this very object while the task is unchanged
    encoded: objects.Encoded


def _finished_text(kept: Any, task: dict[str, Any]) -> objects.Encoded:
    """The finished task as objects.Encoded, encoded once while it stays the same (issue 16 item 6).

    The stored object itself is a hit without comparing (every store write replaces the object, none
    changes it in place: `agent.store.memory`); another object under the id (Cloud Storage reads anew)
    is a hit while it equals the text's task. A text larger than the whole share cannot be kept: a small
    mark under its id is, so the "not kept" line is logged once per task rather than on every tasks/get
    (the mark is an entry of the same bounded cache, so the set of tasks already named stays within the
    share too)."""
    entry = kept.get(task["id"])
    if type(entry) is _KeptText and entry.task is task:
        return entry.encoded
    view = Service._with_history(task, None)
    if type(entry) is _KeptText and entry.encoded == view:
        return entry.encoded
    fresh = objects.Encoded(view)
    size, mark = 2 * len(fresh.data), _MARK_BYTES + len(task["id"])
    if kept.max_bytes is None or size <= kept.max_bytes:
        kept.put(task["id"], _KeptText(task, fresh), size)
    elif entry != _OVER_SHARE and mark <= kept.max_bytes:
        log.warning("finished task JSON of %d bytes exceeds its %d-byte share; not kept", size, kept.max_bytes)
        kept.put(task["id"], _OVER_SHARE, mark)
    return fresh
