"""The preview page in a real browser (issue 14, item 5): headless Chromium driven by Playwright against a
started agent with PREVIEW=1.

One conversation, as a merchant would have it: load the page, attach a real export from the repo, ask the
headline question, wait for the final state, and check the DOM against the same question's JSON answer —
every row of the A2UI table with its cells' text, the Markdown table's rows, the evidence lines in their
own block — then a typed follow-up and a pressed follow-up button that must keep the context and the scope. Throughout: no console
error, no request to anything but the agent, the CSP header on the page. Every wait is on a DOM condition.

Chromium is the system's (Debian's `chromium`, installed by .ci/run); Playwright never downloads one. The
test skips, saying so, only where no Chromium binary exists. Screenshots go to the git-ignored
`.preview-shots/`.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.conftest import ROOT, Server

CHROMIUM = next(
    (
        p
        for p in (shutil.which("chromium"), shutil.which("chromium-browser"), "/usr/bin/chromium")
        if p and Path(p).exists()
    ),
    None,
)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (apt-get install chromium)")

EXPORT = ROOT / "tests" / "corpus" / "seed" / "shopify-garden-solutions.csv"
HEADLINE = "Where are the gaps in outdoor furniture?"
FOLLOW_UP = "What is out of stock here?"
A2UI_EXTENSION = "https://a2ui.org/a2a-extension/a2ui/v0.8"
SHOTS = ROOT / ".preview-shots"
TIMEOUT_MS = 90_000


@pytest.fixture(scope="module")
def agent() -> Server:
    srv = Server(env={"PREVIEW": "1"})
    yield srv
    srv.stop()


def _json_answer(url: str, question: str) -> dict:
    """The same question with the same file through message/send, as a JSON client sees it."""
    part = {
        "kind": "file",
        "file": {"bytes": base64.b64encode(EXPORT.read_bytes()).decode(), "mimeType": "text/csv", "name": EXPORT.name},
    }
    message = {
        "kind": "message",
        "role": "user",
        "messageId": "json-1",
        "parts": [{"kind": "text", "text": question}, part],
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
    reply = httpx.post(url, json=body, headers={"X-A2A-Extensions": A2UI_EXTENSION}, timeout=60).json()
    return reply["result"]


def _components(artifact: dict) -> dict[str, dict]:
    out = {}
    for part in artifact["parts"]:
        if part["kind"] == "data" and "surfaceUpdate" in part["data"]:
            for comp in part["data"]["surfaceUpdate"]["components"]:
                out[comp["id"]] = comp["component"]
    return out


def _plain(literal: str) -> str:
    """A Text literal as the browser shows it: Markdown escapes dropped, whitespace collapsed."""
    return " ".join(re.sub(r"\\([\\`*_{}\[\]()#+\-.!|>&<])", r"\1", literal).split())


def _launch(pw):
    return pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


def _markdown_table_rows(text: str) -> int:
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return max(len(lines) - 2, 0)  # header and separator


def test_the_page_answers_the_headline_question_as_the_json_answer_does(agent: Server) -> None:
    from playwright.sync_api import expect, sync_playwright

    expected = _json_answer(agent.url, HEADLINE)
    assert expected["status"]["state"] == "completed"
    artifact = expected["artifacts"][0]
    components = _components(artifact)
    rows = {
        cid: comp["Row"]["children"]["explicitList"]
        for cid, comp in components.items()
        if "Row" in comp and re.fullmatch(r"a2_r\d+", cid)
    }
    assert rows, "the JSON answer has no table rows to compare with"
    text = artifact["parts"][0]["text"]
    evidence_lines = [line[2:].strip() for line in text.split("\n---\n")[-1].splitlines() if line.startswith("- ")]
    assert evidence_lines

    SHOTS.mkdir(exist_ok=True)
    agent_origin = urlsplit(agent.url).netloc
    problems: list[str] = []
    outside: list[str] = []
    rpc_bodies: list[dict] = []
    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))

            def route(r):
                if urlsplit(r.request.url).netloc != agent_origin and not r.request.url.startswith("data:"):
                    outside.append(r.request.url)
                    return r.abort()
                if r.request.method == "POST":
                    rpc_bodies.append(json.loads(r.request.post_data or "{}"))
                return r.continue_()

            page.route("**/*", route)
            response = page.goto(agent.url)
            csp = response.headers.get("content-security-policy", "")
            assert "script-src 'self'" in csp and "connect-src 'self'" in csp, csp
            assert "unsafe-inline" not in csp.split("script-src", 1)[1].split(";", 1)[0]
            page.wait_for_selector("body[data-ready=true]")
            card = httpx.get(agent.url + ".well-known/agent-card.json").json()
            examples = [e for skill in card["skills"] for e in skill.get("examples", [])]
            assert page.locator("#examples button.example").all_inner_texts() == examples
            page.screenshot(path=str(SHOTS / "1-loaded.png"))

            # Attach the export and ask the headline question.
            page.set_input_files("#file", str(EXPORT))
            page.wait_for_selector("#drop[data-loaded]")
            page.fill("#question", HEADLINE)
            page.click("#send")
            first = page.locator("article.turn").nth(0)
            page.wait_for_selector("article.turn:nth-of-type(1)[data-done][data-state=completed]", timeout=TIMEOUT_MS)
            first.locator("a2ui-surface a2ui-row").first.wait_for()
            page.screenshot(path=str(SHOTS / "2-answered.png"), full_page=True)

            sent = rpc_bodies[0]
            assert sent["method"] == "message/stream"
            file_part = sent["params"]["message"]["parts"][1]
            assert file_part == {
                "kind": "file",
                "file": {
                    "bytes": base64.b64encode(EXPORT.read_bytes()).decode(),
                    "mimeType": "text/csv",
                    "name": EXPORT.name,
                },
            }

            # The A2UI table: every row the JSON answer has, each cell's text as the component says.
            surface = first.locator("a2ui-surface")
            assert surface.count() == 1
            # The renderer draws Markdown asynchronously: expect() waits for the text, then compares.
            for row_id, cells in rows.items():
                want = [_plain(components[c]["Text"]["text"]["literalString"]) for c in cells]
                expect(surface.locator(f"a2ui-row#{row_id} a2ui-text")).to_have_text(want)
            expect(surface.locator("a2ui-row[id^=a2_r]")).to_have_count(len(rows))
            title = next(
                c["Text"]["text"]["literalString"]
                for c in components.values()
                if "Text" in c and c["Text"].get("usageHint") == "h2"
            )
            expect(surface.locator("a2ui-text[usage-hint=h2]").first).to_have_text(_plain(title))
            missing_cells = sum(
                1
                for cells in rows.values()
                for c in cells
                if components[c]["Text"]["text"]["literalString"] == "missing"
            )
            assert missing_cells
            # (text inside the renderer's shadow roots: Playwright's text matching reads it, innerText does not)
            expect(surface.locator("a2ui-row a2ui-text", has_text=re.compile(r"^\s*missing\s*$"))).to_have_count(
                missing_cells
            )

            # The Markdown text: the same table rows; the evidence in its own block, line by line.
            assert first.locator(".text-part table tbody tr").count() == _markdown_table_rows(text)
            evidence = " ".join(first.locator(".evidence").inner_text().split())
            assert evidence.startswith("Evidence")
            for line in evidence_lines:
                assert " ".join(line.split()) in evidence, line
            scope_line = first.locator(".status").inner_text()
            assert "on " in scope_line

            # A typed follow-up: same context, no file sent again, the scope kept.
            first_context = first.get_attribute("data-context-id")
            assert first_context
            page.fill("#question", FOLLOW_UP)
            page.click("#send")
            page.wait_for_selector("article.turn:nth-of-type(2)[data-done][data-state=completed]", timeout=TIMEOUT_MS)
            follow = rpc_bodies[-1]["params"]["message"]
            assert follow.get("contextId") and [p["kind"] for p in follow["parts"]] == ["text"]
            assert follow["contextId"] == first_context
            scope = re.search(r"on (.+?):", scope_line).group(1)
            second = page.locator("article.turn").nth(1)
            assert f"on {scope}:" in second.locator(".status").inner_text()
            assert EXPORT.name in second.locator(".evidence").inner_text()  # answered on the file kept in context
            page.screenshot(path=str(SHOTS / "3-follow-up.png"), full_page=True)

            # A pressed follow-up button on that card: its userAction goes back in the same context and
            # is answered as the button's question, on the same scope.
            button = second.locator("a2ui-surface a2ui-button").first
            expect(button).to_have_text(re.compile(r"^\s*Pricing in "))  # (shadow-root text: see above)
            button.locator("button").click()
            page.wait_for_selector("article.turn:nth-of-type(3)[data-done][data-state=completed]", timeout=TIMEOUT_MS)
            press = rpc_bodies[-1]["params"]["message"]
            assert press["contextId"] == first_context and [p["kind"] for p in press["parts"]] == ["data"]
            action = press["parts"][0]["data"]["userAction"]
            label = action["context"]["question"]
            assert action["name"] == "follow_up" and action["context"]["skill"] == "price_ladder"
            expect(button).to_have_text(label)
            assert action["surfaceId"] == second.locator("a2ui-surface").get_attribute("data-surface-id")
            third = page.locator("article.turn").nth(2)
            assert " ".join(third.locator(".user").inner_text().split()) == label
            assert third.locator("section.artifact").get_attribute("data-name") == "price_ladder"
            assert f"on {scope}:" in third.locator(".status").inner_text()
            page.screenshot(path=str(SHOTS / "3b-button.png"), full_page=True)
        finally:
            browser.close()
    assert not outside, f"requests left the agent: {outside}"
    assert not problems, problems


def test_cancel_ends_a_long_run_as_canceled(start_server, tmp_path: Path) -> None:
    """Cancel sends tasks/cancel for the running task; the turn ends `canceled`, before the run's last skill.

    The run is held at the test gate (TEST_STEP_GATE) after its `working` frame until the cancel is
    flagged, so Cancel lands mid-run by construction, not because a file is large enough to outlast it."""
    from playwright.sync_api import sync_playwright

    from tests.helpers import ALL_SKILLS_QUESTION, big_csv, wait_for

    gate = tmp_path / "gate"
    gate.mkdir()
    agent = start_server({"PREVIEW": "1", "TEST_STEP_GATE": str(gate)})
    big = tmp_path / "big.csv"
    big.write_bytes(big_csv(2_000))
    problems: list[str] = []
    cancels: list[dict] = []
    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page()
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on(
                "request",
                lambda r: (
                    cancels.append(json.loads(r.post_data))
                    if r.method == "POST" and "tasks/cancel" in (r.post_data or "")
                    else None
                ),
            )
            page.goto(agent.url)
            page.wait_for_selector("body[data-ready=true]")
            page.set_input_files("#file", str(big))
            page.wait_for_selector("#drop[data-loaded]")
            page.fill("#question", ALL_SKILLS_QUESTION)
            page.click("#send")
            page.wait_for_selector("article.turn[data-task-id]", timeout=TIMEOUT_MS)
            held_id = page.locator("article.turn").get_attribute("data-task-id")
            wait_for((gate / f"{held_id}.held").exists)  # the run is held mid-way until the cancel lands
            page.click("#cancel")
            page.wait_for_selector("article.turn[data-done]", timeout=TIMEOUT_MS)  # the stream has ended
            assert page.locator("article.turn").get_attribute("data-state") == "canceled"
            task_id = page.locator("article.turn").get_attribute("data-task-id")
            assert [c["params"] for c in cancels] == [{"id": task_id}]
            assert page.locator("article.turn section.artifact").count() < 7, "the run must stop before its last skill"
            page.screenshot(path=str(SHOTS / "4-canceled.png"))
        finally:
            browser.close()
    assert not problems, problems
