"""Ask the agent one question and print just the answer text (standard library only).

    python3 examples/ask.py "What is in this catalog?"
    python3 examples/ask.py --file tests/corpus/seed/shopify-garden-solutions.csv "What is in this file?"
    python3 examples/ask.py --context <contextId from the line on stderr> "and pricing?"

The file is read and base64-encoded here, in the body, so its size is bounded only by the agent's request
limit (32 MiB), not by the shell's argument length. --url points elsewhere (default: $AGENT_URL, else
http://127.0.0.1:8080/, where `make run` serves); --json prints the whole JSON-RPC response instead of the text.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import urllib.request
import uuid
from pathlib import Path


def build_request(question: str, csv: Path | None, context_id: str | None) -> dict:
    parts: list[dict] = [{"kind": "text", "text": question}]
    if csv is not None:
        data = base64.b64encode(csv.read_bytes()).decode("ascii")
        parts.append({"kind": "file", "file": {"name": csv.name, "mimeType": "text/csv", "bytes": data}})
    message = {"role": "user", "parts": parts, "messageId": str(uuid.uuid4())}
    if context_id:
        message["contextId"] = context_id
    return {"jsonrpc": "2.0", "id": "1", "method": "message/send", "params": {"message": message}}


def answer_text(task: dict) -> str:
    """Every text part of every artifact (one artifact per analysis), in order."""
    texts = [p["text"] for a in task.get("artifacts") or [] for p in a["parts"] if p.get("kind") == "text"]
    if not texts:  # a failed task says why in its status message
        texts = [p["text"] for p in (task["status"].get("message") or {}).get("parts", []) if p.get("kind") == "text"]
    return "\n\n".join(texts)


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("question")
    args.add_argument("--file", type=Path, help="a CSV catalog to attach")
    args.add_argument("--context", help="continue this conversation (its contextId)")
    args.add_argument("--url", default=os.environ.get("AGENT_URL") or "http://127.0.0.1:8080/")
    args.add_argument("--json", action="store_true", help="print the whole JSON-RPC response")
    opts = args.parse_args(argv)
    body = json.dumps(build_request(opts.question, opts.file, opts.context)).encode("utf-8")
    request = urllib.request.Request(opts.url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        reply = json.load(response)
    if opts.json:
        print(json.dumps(reply, indent=2, ensure_ascii=False))
        return 0 if "result" in reply else 1
    if "error" in reply:
        print(f"error {reply['error']['code']}: {reply['error']['message']}", file=sys.stderr)
        return 1
    task = reply["result"]
    print(f"(task {task['id']}, contextId {task['contextId']}, {task['status']['state']})", file=sys.stderr)
    print(answer_text(task))
    return 0 if task["status"]["state"] == "completed" else 1


if __name__ == "__main__":
    sys.exit(main())
