"""Cloud Function entry point `a2a(request)`: routing only.

POST at the card's path → JSON-RPC; GET the agent card (two well-known paths); GET / → health;
anything else → 404 JSON. Every response, functions-framework's own included, says nosniff
(agent.protocol.http.secure_every_response). With PREVIEW on, a browser's GET / gets the preview page and /preview/* its files
(agent.preview). Configuration is parsed at import, so a bad setting stops start-up with a
clear line instead of failing a merchant's question later.
"""

from __future__ import annotations

import flask
import functions_framework

from agent import AGENT_NAME, __version__, preview
from agent.app import get_app_state
from agent.protocol import card, host_threads, http

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")

STATE = get_app_state()

if flask.has_app_context():  # functions-framework runs this module inside the app it creates
    http.secure_every_response(flask.current_app)
    if STATE.config.start_threads:  # a fresh instance's first burst (issue 16 item 4)
        host_threads.start_on_first_request(flask.current_app)


@functions_framework.http
def a2a(request):
    path = request.path or "/"
    if request.method == "POST" and path == STATE.config.rpc_path:
        return http.handle_rpc(
            request,
            STATE.service,
            STATE.config.max_body_bytes,
            STATE.config.caller_identity_header,
            STATE.config.body_read_seconds,
        )
    if request.method in ("GET", "HEAD"):
        if STATE.config.preview and (preview.serves(path) or (path == "/" and preview.wants_page(request))):
            return preview.respond(path)
        if path in CARD_PATHS:
            return http.json_response(STATE.service.card())
        if path == "/":
            return http.json_response(
                {"name": AGENT_NAME, "version": __version__, "protocolVersion": card.PROTOCOL_VERSION, "status": "ok"}
            )
    if request.method == "POST" and path in CARD_PATHS:
        return http.json_response({"error": "Method not allowed."}, status=405, headers={"Allow": "GET, HEAD"})
    if request.method == "POST":
        return http.json_response({"error": "Not found. JSON-RPC requests go to " + STATE.config.rpc_path}, status=404)
    if path in CARD_PATHS:
        return http.json_response({"error": "Method not allowed."}, status=405, headers={"Allow": "GET, HEAD"})
    if path == "/" or path == STATE.config.rpc_path:
        return http.json_response({"error": "Method not allowed."}, status=405, headers={"Allow": "GET, POST"})
    return http.json_response({"error": "Not found."}, status=404)
