"""The preview page: time from pressing Send to the first rendered artifact, in headless Chromium.

Starts the agent with PREVIEW=1, opens the page, and asks the headline question on the demo catalog
(no file attached) `--runs` times in a fresh conversation each. The page marks `cga-send` when Send is
pressed and `cga-first-artifact` once the first artifact is in the DOM (performance.mark in
agent/preview/build/src/preview.js); the figure is the distance between the two, read in the page.
With `--screenshot PATH` it also saves the answered page (what docs/preview-page.png shows).

    .venv/bin/python bench/bench_preview.py --runs 9
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conftest import Server  # noqa: E402

HEADLINE = "Where are the gaps in outdoor furniture?"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--screenshot", type=Path)
    args = parser.parse_args()
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    from playwright.sync_api import sync_playwright

    server = Server(env={"PREVIEW": "1"})
    figures = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            page.goto(server.url)
            page.wait_for_selector("body[data-ready=true]")
            for run in range(args.runs + 1):  # the first run warms the agent's caches and is not counted
                page.click("#new")
                page.wait_for_selector("#conversation:empty", state="attached")
                page.fill("#question", HEADLINE)
                page.click("#send")
                page.wait_for_selector("article.turn[data-done][data-state=completed]", timeout=60_000)
                ms = page.evaluate("performance.measure('m', 'cga-send', 'cga-first-artifact').duration")
                if run:
                    figures.append(ms)
            if args.screenshot:
                page.locator("article.turn a2ui-surface a2ui-row").last.wait_for()
                page.screenshot(
                    path=str(args.screenshot), full_page=True, clip={"x": 0, "y": 0, "width": 1000, "height": 1250}
                )
            browser.close()
    finally:
        server.stop()
    load = os.getloadavg()
    print(
        f"Send → first rendered artifact, demo catalog, {len(figures)} runs: median {statistics.median(figures):.1f} ms "
        f"(min {min(figures):.1f}, max {max(figures):.1f}); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
        f"{os.cpu_count()} CPUs"
    )
    print("runs (ms):", " ".join(f"{f:.1f}" for f in figures))


if __name__ == "__main__":
    main()
