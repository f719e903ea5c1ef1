"""The README's shell examples run, as written, against a started agent — the attach-a-file example with a
file far beyond what a command line can carry included.

Every fenced block in README.md names its language; each ```sh block runs (with the agent's address put in
for http://127.0.0.1:8080/) unless the line before it says `<!-- not run: why -->`. Blocks run with bash in
a scratch folder that links to the repository's folders, so the relative paths of the README work and
nothing is left in the work tree."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = ROOT / "README.md"
LOCAL = "http://127.0.0.1:8080/"
FENCE = re.compile(r"^```(\S*)\n(.*?)^```$", re.S | re.M)
NOT_RUN = re.compile(r"<!-- not run: (\S.*?) -->\s*$")
ARG_MAX_ONE = 128 * 1024  # Linux's limit for one argument (MAX_ARG_STRLEN); macOS's whole list is 1 MiB


def blocks() -> list[tuple[str, str, str | None]]:
    """(language, code, reason it is not run or None) for every fenced block, in order."""
    text = README.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        reason = NOT_RUN.search(before)
        out.append((m.group(1), m.group(2), reason.group(1) if reason else None))
    return out


def runnable() -> list[str]:
    return [code for lang, code, reason in blocks() if lang == "sh" and reason is None]


def scratch(tmp: Path) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    for name in ("agent", "data", "examples", "schemas", "tests"):
        (tmp / name).symlink_to(ROOT / name)
    return tmp


def run_block(code: str, url: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "AGENT_URL": url}
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code.replace(LOCAL, url)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def check_output(code: str, out: str) -> None:
    """What a reader would look for: a card, a completed task, a stream that ends final, or answer text."""
    stripped = out.strip()
    assert stripped, code
    if "message/stream" in code:
        frames = [json.loads(line[len("data: ") :]) for line in stripped.splitlines() if line.startswith("data: ")]
        assert frames and frames[-1]["result"]["final"] is True
        assert frames[-1]["result"]["status"]["state"] == "completed"
        return
    try:
        reply = json.loads(stripped)
    except ValueError:
        assert "Evidence" in stripped, stripped[:500]  # answer text, ending with its evidence footer
        return
    assert "error" not in reply, reply
    if "result" in reply:
        assert reply["result"]["status"]["state"] == "completed", reply["result"]["status"]
        assert "Not read" not in json.dumps(reply["result"]["artifacts"]), "the attached file was not read"


def test_every_block_names_its_language_and_every_skipped_shell_block_says_why():
    found = blocks()
    assert found and all(lang for lang, _, _ in found), [code[:60] for lang, code, _ in found if not lang]
    skipped = [code for lang, code, reason in found if lang == "sh" and reason]
    assert any("deploy.sh" in code for code in skipped) and any("make run" in code for code in skipped)
    assert not any("deploy.sh" in code or "make run" in code for code in runnable())
    assert len(runnable()) >= 6


@pytest.mark.parametrize("index", range(len(runnable())))
def test_shell_example_runs(index, server, tmp_path):
    code = runnable()[index]
    done = run_block(code, server.url, scratch(tmp_path))
    assert done.returncode == 0, f"{code}\n--- stderr:\n{done.stderr[-2000:]}"
    check_output(code, done.stdout)


def test_attach_example_is_about_a_file_no_command_line_could_carry():
    attach = next(code for code in runnable() if "--data-binary @body.json" in code)
    path = re.search(r"^CSV=(\S+)$", attach, re.M).group(1)
    assert (ROOT / path).stat().st_size * 4 / 3 > ARG_MAX_ONE  # base64 of it would not fit one argument
    assert "-d '{" not in attach.split("> body.json")[0]  # the data never goes through an argument


def big_catalog(tmp: Path, size: int = 6 * 1024 * 1024) -> Path:
    """A Shopify export grown to `size` by repeating the real file's rows under new handles."""
    lines = (ROOT / "tests/corpus/seed/shopify-garden-solutions.csv").read_text(encoding="utf-8").splitlines(True)
    header, rows = lines[0], lines[1:]
    out, n = [header], 0
    total = len(header)
    while total < size:
        n += 1
        for row in rows:
            copy = f"copy{n}-{row}"  # the handle is the first column: every copy is another product
            out.append(copy)
            total += len(copy)
    path = tmp / "big_products_export.csv"
    path.write_text("".join(out), encoding="utf-8")
    return path


def test_attach_example_and_recipe_with_a_6_mib_catalog(server, tmp_path):
    big = big_catalog(tmp_path)
    cwd = scratch(tmp_path / "run")
    attach = next(code for code in runnable() if "--data-binary @body.json" in code)
    done = run_block(re.sub(r"^CSV=\S+$", f"CSV={big}", attach, flags=re.M), server.url, cwd)
    assert done.returncode == 0, done.stderr[-2000:]
    check_output(attach, done.stdout)
    assert re.search(r"big\\+_products\\+_export\.csv", done.stdout)  # the name Markdown-escaped (in JSON here)
    recipe = next(code for code in runnable() if "examples/ask.py --file" in code)
    done = run_block(re.sub(r"--file \S+", f"--file {big}", recipe), server.url, cwd)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"big\\_products\\_export\.csv", done.stdout) and "contextId" in done.stderr


def test_recipe_follow_up_keeps_the_attached_file(server, tmp_path):
    """examples/ask.py --context continues the conversation: the file attached before answers again."""
    cwd = scratch(tmp_path)
    seed = "tests/corpus/seed/woocommerce-sample-products.csv"
    first = run_block(f'python3 examples/ask.py --file {seed} "What is in this file?"', server.url, cwd)
    assert first.returncode == 0, first.stderr
    context = re.search(r"contextId (\S+),", first.stderr).group(1)
    again = run_block(f'python3 examples/ask.py --context {context} "and pricing?"', server.url, cwd)
    assert again.returncode == 0, again.stderr
    assert "woocommerce-sample-products.csv" in again.stdout and "attached earlier" in again.stdout
