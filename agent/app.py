"""Process-wide state, built once: configuration, logging and the service.

functions-framework's `create_app` imports `main.py` a second time; keeping the state here (a module
that is imported once) means one service, one store and one log handler per process.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

from agent import config as config_mod
from agent import logs
from agent.protocol.handler import RequestHandler


@dataclass(frozen=True)
class AppState:
    config: config_mod.Config
    service: RequestHandler  # agent.service.handler.Service: the methods agent.protocol.http calls


_state: AppState | None = None
_lock = threading.Lock()


def get_app_state() -> AppState:
    global _state
    with _lock:
        if _state is None:
            try:
                config = config_mod.load()
            except config_mod.ConfigError as exc:
                # Fail fast at start with one clear line; the platform shows it in the deploy log.
                print(f"Configuration error: {exc}", file=sys.stderr)
                raise SystemExit(2) from None
            logs.setup(config.log_level, config.google_cloud_project, json_lines=config.log_json)
            # How long a thread that computes (a turn's planning and skills in Python) keeps the
            # interpreter lock while another one waits for it: each step of a new stream's first frame
            # (accept, read, write) waits up to this once per step behind a running turn (bench/README.md, "Burst").
            sys.setswitchinterval(config.switch_interval_us / 1e6)
            from agent.service import reclaim
            from agent.service.handler import Service

            reclaim.configure_allocators()  # before any catalog is parsed (bench/README.md "Settled memory")

            _state = AppState(config=config, service=Service(config))
        return _state
