"""Cold path without pandas (issue 16, item 5): `import main` and a first demo send never need pandas.

pandas is a tests-only dependency (tests/test_requirements.py keeps it out of requirements.txt), so in
the deployed runtime it is simply not there. This test recreates that in a fresh interpreter: an import
hook refuses `pandas` before anything else runs, then the process imports `main` and handles one demo
`message/send` in-process (the demo ingest, the plan, the skill, the render — the whole first turn).

Two things are checked:

* the turn completes although pandas cannot be imported (nothing on the path *needs* it);
* no agent or entry-point module imports pandas itself. pyarrow probes for pandas once per process
  (the first `pa.array()` asks whether its argument is a pandas object); that probe finds nothing and
  Arrow carries on, which is exactly what happens in the runtime. The hook tells the probe from a real
  import by the importing source line: only a line that says `import pandas` / `from pandas` counts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = r'''
import json, linecache, re, sys, traceback

DIRECT = re.compile(r"\bimport\s+pandas\b|\bfrom\s+pandas\b|import_module\(\s*['\"]pandas")
report = {"attempts": 0, "direct": []}

class NoPandas:
    """The runtime has no pandas: every attempt fails as it would there, and is recorded."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            report["attempts"] += 1
            for frame in reversed(traceback.extract_stack()[:-1]):
                if "importlib" in frame.filename:
                    continue
                line = linecache.getline(frame.filename, frame.lineno)
                if DIRECT.search(line) and not frame.filename.endswith(".pxi"):
                    report["direct"].append(f"{frame.filename}:{frame.lineno}: {line.strip()}")
                break
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoPandas())

import main
from flask import Flask

body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
    "kind": "message", "role": "user", "messageId": "m-cold-1",
    "parts": [{"kind": "text", "text": "Where are the gaps in outdoor furniture?"}]}}})
app = Flask("cold-path")
with app.test_request_context(main.STATE.config.rpc_path, method="POST", data=body,
                              content_type="application/json"):
    from flask import request
    reply = json.loads(main.a2a(request).get_data(as_text=True))
report["state"] = reply.get("result", {}).get("status", {}).get("state")
report["error"] = reply.get("error")
report["pandas_loaded"] = "pandas" in sys.modules
print("REPORT " + json.dumps(report))
'''


def _clean_env() -> dict[str, str]:
    """No agent settings from the developer's shell: the defaults serve the bundled demo catalog."""
    import os

    return {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")} | {
        "PYTHONPATH": str(ROOT)
    }


def test_import_main_and_first_demo_send_need_no_pandas():
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=180, env=_clean_env()
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("REPORT "))
    report = json.loads(line[len("REPORT ") :])
    assert report["error"] is None and report["state"] == "completed", report
    assert report["direct"] == [], f"agent code imports pandas on the cold path: {report['direct']}"
    assert not report["pandas_loaded"]
