"""Turn a validated A2A message into a question, CSV attachments, and what could not be read.

Anything we cannot use is reported back by name and reason (SPEC §3) — never dropped, never fetched.
A file is a table by its label (a CSV or TSV media type, a `.csv` name) or, under a generic label
(`text/plain`, `application/vnd.ms-excel`, `application/octet-stream`, none) with a `.tsv`/`.txt`
name, by its bytes (`attachments.looks_delimited`).
The reasons are fixed phrases so they are safe to show; a file's own name is shown as given, cut to a
sane length and stripped of control characters.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

from agent.catalog.attachments import TABLE_SUFFIXES, Attachment, looks_delimited
from agent.catalog.evidence import Unreadable
from agent.render.a2ui_ids import FOLLOW_UP_ACTION, FOLLOW_UP_MAX_CHARS, FOLLOW_UP_QUESTION_KEY

CSV_MIME_TYPES = frozenset(
    {
        "text/csv",
        "application/csv",
        "text/comma-separated-values",
        "text/x-csv",
        "application/x-csv",
        "text/x-comma-separated-values",
    }
)
# Tab-separated feeds (a Merchant Center feed is usually a .txt or .tsv of this type).
TSV_MIME_TYPES = frozenset({"text/tab-separated-values", "text/tsv", "text/x-tsv", "application/tsv"})
# Labels that say nothing about the content: a table only when the name and the bytes both say so.
GENERIC_MIME_TYPES = frozenset(
    {
        "",
        "text/plain",
        "application/vnd.ms-excel",
        "application/octet-stream",
        "binary/octet-stream",
        "application/x-download",
        "application/download",
    }
)
A2UI_ACTION_NOTICE = (
    "This button is not one this agent knows (only its own follow-up buttons are answered); "
    "please ask your question in words."
)
DATA_PART_NOTICE = "Structured data parts are not supported yet; please ask your question in words."
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_MAX_NAME = 120
# File parts read per message. Each is decoded, parsed and named in the footer: 30,000 one-row CSVs in a
# 4 MB body took 45 s of the instance's CPU and an 11 MB answer, and the 32 MiB body limit allows eight
# times that. A merchant attaches a catalog and perhaps a report or two; the rest are named in one line.
MAX_FILE_PARTS = 32
# The question's text read per message. A question is a sentence or a paragraph; the planner matches its
# words against the catalog with regexes, and a single word of a million characters made a pattern the
# regex engine refuses (the turn failed with an incident), while megabytes of text cost planning time.
MAX_QUESTION_CHARS = 4000
QUESTION_CUT = "The question was read up to its first {limit:,} characters."
TOO_MANY_FILES = (
    "{n} more file parts were not read: a message is read with at most {limit} files; "
    "attach fewer, or combine them into one CSV."
)


@dataclass
class MessageInput:
    question: str
    attachments: list[Attachment] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def display_name(raw: Any, fallback: str) -> str:
    if not isinstance(raw, str) or not raw.strip():
        return fallback
    name = _CONTROL.sub("", raw).strip()
    return name if len(name) <= _MAX_NAME else name[: _MAX_NAME - 1] + "…"


def _media_type(mime: str | None) -> str:
    return (mime or "").split(";")[0].strip().lower() if isinstance(mime, str) else ""


def _table_by_label(name: str | None, mime: str) -> bool | None:
    """True: a table by its label alone (a CSV/TSV media type, or a .csv name as the wire contract
    says; the parser then decides). None: the label is generic (`text/plain`, `application/vnd.ms-excel`,
    `application/octet-stream`, none) and the name ends .tsv/.txt — the bytes decide. False: not a table."""
    if mime in CSV_MIME_TYPES or mime in TSV_MIME_TYPES:
        return True
    lower = (name or "").lower()
    if lower.endswith(".csv"):
        return True
    if mime in GENERIC_MIME_TYPES and lower.endswith(TABLE_SUFFIXES):
        return None
    return False


WORKBOOK_REASON = "a spreadsheet workbook is not CSV; save or export it as CSV (UTF-8) and attach that"
_WORKBOOK_TYPES = (
    "application/vnd.openxmlformats-officedocument.spreadsheetml",
    "application/vnd.oasis.opendocument.spreadsheet",
    "application/vnd.ms-excel.sheet",
)
_WORKBOOK_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods", ".numbers")


def _is_workbook(name: str | None, mime: str) -> bool:
    """An Excel/LibreOffice/Numbers workbook: say how to get a CSV out of it, not just "not CSV"."""
    return mime.startswith(_WORKBOOK_TYPES) or (isinstance(name, str) and name.lower().endswith(_WORKBOOK_SUFFIXES))


def _decode(data: str) -> bytes | None:
    try:
        return base64.b64decode(data.strip(), validate=True)
    except (binascii.Error, ValueError):
        try:  # URL-safe alphabet, as some clients send
            return base64.urlsafe_b64decode(data.strip())
        except (binascii.Error, ValueError):
            return None


def _file_part(part: dict[str, Any], index: int, out: MessageInput) -> None:
    file = part["file"]
    mime = file.get("mimeType")
    if "uri" in file:
        out.unreadable.append(
            Unreadable(display_name(file.get("uri"), f"file part {index}"), "file links are not fetched")
        )
        return
    name = display_name(file.get("name"), f"attachment-{index}.csv")
    by_label = _table_by_label(file.get("name") if isinstance(file.get("name"), str) else None, _media_type(mime))
    if by_label is False:
        if _is_workbook(file.get("name"), _media_type(mime)):
            out.unreadable.append(Unreadable(name, WORKBOOK_REASON))
            return
        kind = mime.strip() if isinstance(mime, str) and mime.strip() else "a file without a media type"
        out.unreadable.append(Unreadable(name, f"{display_name(kind, 'this type')} is not CSV"))
        return
    data = _decode(file["bytes"])
    if data is None:
        out.unreadable.append(Unreadable(name, "its bytes are not valid base64"))
        return
    if not data.strip():
        out.unreadable.append(Unreadable(name, "the file is empty"))
        return
    if by_label is None and not looks_delimited(data):
        out.unreadable.append(Unreadable(name, "not a delimited table (CSV or tab-separated)"))
        return
    out.attachments.append(Attachment(name=name, data=data, mime_type=mime if isinstance(mime, str) else None))


def read_message(message: dict[str, Any]) -> MessageInput:
    texts: list[str] = []
    out = MessageInput(question="")
    files = 0
    for index, part in enumerate(message.get("parts", []), start=1):
        kind = part.get("kind")
        if kind == "text":
            if part["text"].strip():
                texts.append(part["text"])
        elif kind == "file":
            files += 1
            if files <= MAX_FILE_PARTS:
                _file_part(part, index, out)
        elif kind == "data":
            data = part.get("data", {})
            question = follow_up_question(data.get("userAction")) if "userAction" in data else None
            if question:
                texts.append(question)
                continue
            notice = A2UI_ACTION_NOTICE if "userAction" in data else DATA_PART_NOTICE
            if notice not in out.notices:
                out.notices.append(notice)
    if files > MAX_FILE_PARTS:
        out.notices.append(TOO_MANY_FILES.format(n=files - MAX_FILE_PARTS, limit=MAX_FILE_PARTS))
    out.question = "\n".join(texts).strip()
    if len(out.question) > MAX_QUESTION_CHARS:
        out.question = out.question[:MAX_QUESTION_CHARS]
        out.notices.append(QUESTION_CUT.format(limit=MAX_QUESTION_CHARS))
    return out


def follow_up_question(action: Any) -> str | None:
    """The question a pressed follow-up button stands for, or None when `action` is not one of ours.

    One of our buttons (agent.render.a2ui_followups) sends `userAction` named `follow_up` whose context
    holds the button's text as `question`: that text is taken as if typed, and nothing else in the
    context is trusted (the planner re-reads the words, so an edited context asks no more than typing
    could; `skill` and `scope` are the client's to log). Another name, a missing, empty, non-string or
    over-long question, or one with control characters, is not ours: the caller answers with a line.
    """
    if not isinstance(action, dict) or action.get("name") != FOLLOW_UP_ACTION:
        return None
    context = action.get("context")
    question = context.get(FOLLOW_UP_QUESTION_KEY) if isinstance(context, dict) else None
    if not isinstance(question, str) or len(question) > FOLLOW_UP_MAX_CHARS or _CONTROL.search(question):
        return None
    return question.strip() or None
