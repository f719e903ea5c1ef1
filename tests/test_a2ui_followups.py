"""Follow-up buttons: every card's buttons ask, through the real planner, what their text says, in the
card's scope; the inbound userAction is read as that text and nothing more (issue 14 item 6).

Properties over real files: the demo catalog and every export in tests/corpus/, with questions that name scopes the
catalogs really have (their own most common categories and product types), not one file's numbers.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from pathlib import Path

import pytest

from agent.analysis import planner
from agent.analysis.registry import SKILLS, SkillInput
from agent.catalog.errors import UnreadableCatalog
from agent.catalog.sources import Attachment, load_catalog_inputs
from agent.catalog.taxonomy import load
from agent.render import a2ui, a2ui_followups
from agent.render.markdown import unescape_markdown
from agent.service.inputs import A2UI_ACTION_NOTICE, follow_up_question, read_message
from tests.a2ui_check import check_surfaces, components_of

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix.lower() in (".csv", ".tsv", ".txt"))
DEMO_QUESTIONS = (
    "Where are the gaps in outdoor furniture?",
    "What is out of stock in patio furniture?",
    "Do I have entry-level and premium options in outdoor chairs?",
    "Which materials or colours am I missing in outdoor seating?",
    "Is my catalog ready for Google Shopping?",
)


def _own_scopes(table, limit: int = 3) -> list[str]:
    """The catalog's most common own category leaves and product types, as a merchant would name them."""
    names: Counter = Counter()
    for column in ("own_categories", "product_type"):
        if column in table.column_names:
            for value in table.column(column).to_pylist():
                for path in (value or "").split("\n"):
                    leaf = path.split(" > ")[-1].strip()
                    if leaf:
                        names[leaf] += 1
    return [name for name, _ in names.most_common(limit)]


def _media_type(path: Path) -> str:
    return (
        "text/tab-separated-values"
        if path.suffix.lower() == ".tsv"
        else "text/csv"
        if path.suffix.lower() == ".csv"
        else "text/plain"
    )


def _cases() -> list[tuple[str, object, str]]:
    cases = [("demo", load_catalog_inputs([]), q) for q in DEMO_QUESTIONS]
    for path in FILES:
        try:
            inputs = load_catalog_inputs([Attachment(path.name, path.read_bytes(), _media_type(path))])
        except UnreadableCatalog:  # the corpus keeps a few files that must be refused; not cards
            continue
        cases.append((path.stem, inputs, "Give me an overview"))
        cases += [(path.stem, inputs, f"What is out of stock in {name}?") for name in _own_scopes(inputs.own.table)]
    return cases


@pytest.fixture(scope="module")
def planned():
    """(case, question, plan, result, messages) for every skill each case's question plans to."""
    tax = load()
    out = []
    for case, inputs, question in _cases():
        plan = planner.plan(question, inputs.own.table, tax)
        for skill in plan.skills:
            result = SKILLS[skill].run(
                SkillInput(
                    own=inputs.own.table,
                    reference=None,
                    scope=plan.scope,
                    taxonomy=tax,
                    sources=tuple(inputs.own.sources),
                )
            )
            sid = f"{case}-{len(out)}-{skill}"
            out.append((case, inputs, question, plan, result, a2ui.build_messages(result, "Evidence\n- rows: 1", sid)))
    return out


def _buttons(messages: list[dict]) -> list[tuple[str, dict, str]]:
    comps = {c["id"]: c["component"] for c in components_of(messages)}
    out = []
    for cid in comps["a2_next"]["Row"]["children"]["explicitList"]:
        button = comps[cid]["Button"]
        label = comps[button["child"]]["Text"]["text"]["literalString"]
        out.append((cid, button["action"], unescape_markdown(label)))
    return out


def test_every_card_ends_with_up_to_three_buttons_that_validate_and_render(planned):
    surfaces = [m for *_, m in planned]
    assert len({c for c, *_ in planned}) >= 40 and len(surfaces) >= 100
    report = check_surfaces(surfaces)  # strict schema, structure, official renderer core
    for *_, result, messages in planned:
        sid = messages[0]["beginRendering"]["surfaceId"]
        comps = {c["id"]: c["component"] for c in components_of(messages)}
        assert comps["a2_root"]["Column"]["children"]["explicitList"][-1] == "a2_next"
        buttons = _buttons(messages)
        assert 1 <= len(buttons) <= a2ui_followups.MAX_BUTTONS
        for cid, action, label in buttons:
            assert action["name"] == a2ui_followups.ACTION_NAME
            context = {e["key"]: e["value"]["literalString"] for e in action["context"]}
            assert context["question"] == label and context["skill"] != result.skill
            assert report[sid]["buttons"][cid] == action  # the renderer keeps the action as sent
            assert report[sid]["texts"][comps[cid]["Button"]["child"]]["html"].startswith("<p>")


def test_a_pressed_button_plans_to_its_skill_in_the_cards_scope(planned):
    """The property that matters: the press is answered as the button says, in the same scope — with the
    conversation's memory (the typed turn before it) and without it (an older card pressed later)."""
    tax = load()
    checked = 0
    for case, inputs, question, plan, result, messages in planned:
        for _, action, label in _buttons(messages):
            context = {e["key"]: e["value"]["literalString"] for e in action["context"]}
            asked = follow_up_question({"name": action["name"], "context": context})
            assert asked == label
            for memory in (plan.memory, None):
                again = planner.plan(asked, inputs.own.table, tax, memory)
                assert again.skills == (context["skill"],), (case, question, asked, again.skills)
                assert again.scope.label == result.scope.label, (case, question, asked)
                assert again.scope.taxonomy_id == result.scope.taxonomy_id
                assert again.scope.own_paths == result.scope.own_paths
                assert again.scope.title_terms == result.scope.title_terms
                checked += 1
    assert checked >= 600


def test_whole_catalog_buttons_say_so_and_scoped_ones_name_the_scope(planned):
    for *_, result, messages in planned:
        for _, _, label in _buttons(messages):
            if result.scope.is_whole_catalog:
                assert label.rstrip("?").endswith("across the whole catalog")
            else:
                assert f"in {result.scope.phrase or result.scope.label}" in label


@pytest.mark.parametrize(
    "action,why",
    [
        ({"name": "drill_down", "context": {"question": "Pricing in Outdoor Chairs"}}, "another name"),
        ({"name": "follow_up", "context": {}}, "no question"),
        ({"name": "follow_up", "context": {"question": ""}}, "empty"),
        ({"name": "follow_up", "context": {"question": "   "}}, "blank"),
        ({"name": "follow_up", "context": {"question": 42}}, "not text"),
        ({"name": "follow_up", "context": {"question": ["Pricing"]}}, "a list"),
        ({"name": "follow_up", "context": {"question": "x" * (a2ui_followups.MAX_QUESTION_CHARS + 1)}}, "too long"),
        ({"name": "follow_up", "context": {"question": "Pricing\x00 in chairs"}}, "control characters"),
        ({"name": "follow_up", "context": "Pricing"}, "context not an object"),
        ({"name": "follow_up"}, "no context"),
        ("follow_up", "not an object"),
    ],
)
def test_odd_actions_get_the_line_never_an_error(action, why):
    message = {"parts": [{"kind": "data", "data": {"userAction": action}}]}
    parsed = read_message(message)
    assert parsed.question == "" and parsed.notices == [A2UI_ACTION_NOTICE], why


def test_a_button_press_is_read_as_its_question_and_only_that():
    action = {
        "name": "follow_up",
        "surfaceId": "s",
        "sourceComponentId": "a2_next0",
        "timestamp": "2026-12-01T20:00:00Z",
        "context": {"question": "Pricing in Outdoor Chairs", "skill": "content_quality", "scope": "Lighting"},
    }
    parsed = read_message({"parts": [{"kind": "data", "data": {"userAction": action}}]})
    assert parsed.question == "Pricing in Outdoor Chairs" and parsed.notices == []


# --- through the real server and the official a2a-sdk client ---------------------------------------

A2UI = "https://a2ui.org/a2a-extension/a2ui/v0.8"


def _sdk_send(url: str, parts: list, context_id: str | None = None):
    """One message/send through a2a-sdk's client with the A2UI extension declared; the final Task."""
    from tests.helpers import official_client as _client
    from tests.helpers import run

    async def go():
        from a2a.types import Message, Role

        client, http = await _client(url, streaming=False, extensions=[A2UI])
        message = Message(role=Role.user, parts=parts, message_id=str(uuid.uuid4()), context_id=context_id)
        try:
            return [event async for event in client.send_message(message)][-1][0]
        finally:
            await http.aclose()

    return run(go())


def _surface_of(artifact) -> list[dict]:
    return [p.root.data for p in artifact.parts if p.root.kind == "data"]


def _scope_line(text: str) -> str:
    return next(line for line in text.splitlines() if "Scope:" in line)


def test_pressing_a_button_answers_its_question_in_the_same_context_and_scope(server):
    """A send with A2UI; then the userAction DataPart a renderer sends when the card's "Pricing in …"
    button is pressed, alone, in the same contextId: answered as that question, on the same scope."""
    from a2a.types import DataPart, Part, TextPart
    from jsonschema import Draft7Validator

    first = _sdk_send(server.url, [Part(root=TextPart(text="What is out of stock in patio furniture?"))])
    assert first.status.state.value == "completed" and [a.name for a in first.artifacts] == ["availability"]
    messages = _surface_of(first.artifacts[0])
    check_surfaces([messages])
    surface_id = messages[0]["beginRendering"]["surfaceId"]
    pressed = next(
        b
        for b in _buttons(messages)
        if dict((e["key"], e["value"]["literalString"]) for e in b[1]["context"])["skill"] == "price_ladder"
    )
    cid, action, label = pressed
    assert label == "Pricing in patio furniture"
    user_action = {
        "userAction": {  # what an A2UI client sends: the action's context resolved to an object
            "name": action["name"],
            "surfaceId": surface_id,
            "sourceComponentId": cid,
            "timestamp": "2026-12-01T20:00:00Z",
            "context": {e["key"]: e["value"]["literalString"] for e in action["context"]},
        }
    }
    schema = json.loads((ROOT / "tests" / "reference" / "a2ui-v0.8" / "client_to_server.json").read_text())
    Draft7Validator(schema).validate(user_action)

    second = _sdk_send(server.url, [Part(root=DataPart(data=user_action))], context_id=first.context_id)
    assert second.context_id == first.context_id and second.status.state.value == "completed"
    assert [a.name for a in second.artifacts] == ["price_ladder"]
    text = second.artifacts[0].parts[0].root.text
    assert A2UI_ACTION_NOTICE not in text and "not supported" not in text
    assert _scope_line(text) == _scope_line(first.artifacts[0].parts[0].root.text)  # the kept scope, in full
    follow = _surface_of(second.artifacts[0])
    check_surfaces([follow])
    title = next(c for c in components_of(follow) if c["id"] == "a2_title")["component"]["Text"]["text"][
        "literalString"
    ]
    assert title == "Price ladder: Outdoor Furniture"


def test_an_edited_context_asks_no_more_than_its_text(server):
    """A client that rewrites skill/scope in the context gets the question its text asks; an over-long
    question gets the line, in a completed task (never an error)."""
    from a2a.types import DataPart, Part

    def press(context: dict):
        action = {
            "userAction": {
                "name": "follow_up",
                "surfaceId": "s",
                "sourceComponentId": "a2_next0",
                "timestamp": "2026-12-01T20:00:00Z",
                "context": context,
            }
        }
        return _sdk_send(server.url, [Part(root=DataPart(data=action))])

    task = press(
        {"question": "What is out of stock in outdoor chairs?", "skill": "brand_coverage", "scope": "everything"}
    )
    assert [a.name for a in task.artifacts] == ["availability"]
    assert "Outdoor Chairs" in task.artifacts[0].parts[0].root.text
    task = press({"question": "Pricing " * 100})
    assert task.status.state.value == "completed"
    assert A2UI_ACTION_NOTICE in task.artifacts[0].parts[0].root.text
