"""The local preview page (issue 14): a single page, served by the function itself, that asks this agent a
question the way Gemini Enterprise does and draws the answer with Google's A2UI renderer.

Off unless `PREVIEW=1` (`make run` turns it on; deploy.sh leaves it off). The page is static: `static/`
holds the HTML, the CSS and ONE bundled script built from `build/` (its build script and package-lock.json
are committed beside it, node_modules is not), so serving it needs nothing but Python. Every response
carries a strict Content-Security-Policy: scripts only from this origin, no inline script, requests only
to this origin. Routing stays in main.py; this module only answers the few paths it owns.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parent / "static"
PREFIX = "/preview/"
# The only files served, by URL path: nothing else under static/ (or outside it) can be named.
FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    PREFIX + "preview.js": ("preview.js", "text/javascript; charset=utf-8"),
    PREFIX + "preview.css": ("preview.css", "text/css; charset=utf-8"),
}
# style-src allows inline style attributes: the official renderer sets them itself (a component's `weight`
# becomes `style="--weight: N"`, a surface's colours a style map). Scripts stay strictly 'self'.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; "
    "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def wants_page(request: Any) -> bool:
    """A browser asking for `/`: it prefers text/html over JSON. curl's `*/*` and JSON clients tie or
    prefer JSON, so they keep getting the health document they get today."""
    accept = request.accept_mimetypes
    return accept["text/html"] > accept["application/json"]


def serves(path: str) -> bool:
    return path in FILES and path != "/"


@lru_cache(maxsize=None)
def _read(name: str) -> bytes:
    return (STATIC / name).read_bytes()


def respond(path: str) -> Any:
    """The file for `path` (one of FILES) with the page's security headers."""
    from flask import Response

    name, content_type = FILES[path]
    return Response(_read(name), status=200, content_type=content_type, headers=HEADERS)
