"""The preview page over HTTP (issue 14, items 1 and 4), without a browser: who gets the page, who keeps
getting JSON, the headers every page file carries, and that the page loads nothing from elsewhere."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import httpx
import pytest

from agent import config, preview
from tests.conftest import ROOT, Server

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


@pytest.fixture(scope="module")
def on() -> Server:
    srv = Server(env={"PREVIEW": "1"})
    yield srv
    srv.stop()


def _health(response: httpx.Response) -> None:
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["status"] == "ok"


def test_off_unless_preview_is_set(server: Server) -> None:
    _health(httpx.get(server.url, headers={"Accept": BROWSER_ACCEPT}))
    assert httpx.get(server.url + "preview/preview.js").status_code == 404


@pytest.mark.parametrize(
    "accept", [None, "*/*", "application/json", "application/json, text/html", "text/html;q=0.5, application/json"]
)
def test_json_clients_get_what_they_got_before(on: Server, accept: str | None) -> None:
    headers = {"Accept": accept} if accept else {}
    _health(httpx.get(on.url, headers=headers))


def test_a_browser_gets_the_page_with_a_strict_policy(on: Server) -> None:
    page = httpx.get(on.url, headers={"Accept": BROWSER_ACCEPT})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = dict(item.strip().split(" ", 1) for item in page.headers["content-security-policy"].split(";"))
    assert csp["default-src"] == "'none'"
    assert csp["script-src"] == "'self'"  # no inline script, no eval, no other origin
    assert csp["connect-src"] == "'self'"
    assert csp["frame-ancestors"] == "'none'"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert 'id="question"' in page.text and 'id="file"' in page.text and 'id="examples"' in page.text


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.script_text = ""
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.script_text += data.strip()


def test_the_page_loads_only_its_own_files(on: Server) -> None:
    html = httpx.get(on.url, headers={"Accept": BROWSER_ACCEPT}).text
    parser = _Tags()
    parser.feed(html)
    assert parser.script_text == "", "inline script"
    assert not [(t, a) for t, a in parser.tags for name in a if name.startswith("on")], "inline event handler"
    refs = [a.get("src") or a.get("href") for t, a in parser.tags if t in ("script", "link")]
    assert refs and all(ref.startswith("/preview/") or ref == "data:," for ref in refs), refs
    for ref in refs:
        if ref.startswith("/preview/"):
            got = httpx.get(on.url.rstrip("/") + ref)
            assert got.status_code == 200 and got.headers["content-security-policy"] == preview.CSP
            assert got.headers["content-type"].startswith(("text/javascript", "text/css"))
    css = httpx.get(on.url + "preview/preview.css").text
    assert not re.search(r"url\(|@import|https?://", css)


def test_only_the_pages_files_are_served(on: Server) -> None:
    for path in (
        "preview/",
        "preview/index.html",
        "preview/../main.py",
        "preview/build/build.mjs",
        "preview/%2e%2e/main.py",
    ):
        assert httpx.get(on.url + path, headers={"Accept": BROWSER_ACCEPT}).status_code == 404, path


def test_the_rpc_endpoint_is_unchanged(on: Server) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "no-such-task"}}
    reply = httpx.post(on.url, json=body, headers={"Accept": BROWSER_ACCEPT})
    assert reply.headers["content-type"].startswith("application/json") and reply.json()["error"]["code"] == -32001


def test_preview_setting() -> None:
    assert config.load({}).preview is False
    assert config.load({"PREVIEW": "1"}).preview is True
    with pytest.raises(config.ConfigError, match="PREVIEW"):
        config.load({"PREVIEW": "maybe"})


def test_make_run_turns_it_on_and_deploy_leaves_it_off() -> None:
    makefile = (ROOT / "Makefile").read_text()
    run = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "PREVIEW=" in run
    assert "PREVIEW" not in (ROOT / "deploy.sh").read_text()
