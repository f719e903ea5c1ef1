"""tests/agent_process.py strips every setting agent/config.py reads from the developer's shell.

The list is derived from config.py's source; these tests hold it to what `config.load` really asks the
environment for, so a setting added to config.py in a way the derivation misses fails here instead of
leaking a developer's `ANALYSIS_SLOTS=4` into every test server.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from agent import config
from tests.agent_process import AGENT_SETTINGS, agent_environment, config_settings


class _Recording(Mapping[str, str]):
    """An empty environment that remembers every name asked of it."""

    def __init__(self) -> None:
        self.asked: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        raise KeyError(key)

    def get(self, key, default=None):  # type: ignore[override]
        self.asked.add(key)
        return default

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return False

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def test_every_setting_config_load_reads_is_stripped():
    env = _Recording()
    config.load(env)
    config.catalog_context_secret(env)
    assert len(env.asked) > 30, env.asked  # the recording works: load asks for every setting
    missing = sorted(name for name in env.asked if not name.startswith(AGENT_SETTINGS))
    assert missing == [], missing


def test_the_derivation_finds_the_settings_the_old_hand_list_missed():
    found = set(config_settings())
    assert {"ANALYSIS_SLOTS", "SWITCH_INTERVAL_US", "IDLE_RELEASE_SECONDS", "DEMAND_URI"} <= found
    assert "STORAGE_EMULATOR_HOST" in found  # read live through os.environ.get, not through `env`


def test_a_developer_shell_does_not_reach_the_agent(monkeypatch):
    for name in config_settings():
        monkeypatch.setenv(name, "from-the-shell")
    monkeypatch.setenv("UNRELATED_SETTING", "kept")
    full = agent_environment("http://127.0.0.1:1/", 3, {"ANALYSIS_SLOTS": "2"})
    leaked = sorted(name for name, value in full.items() if value == "from-the-shell")
    assert leaked == [], leaked
    assert full["ANALYSIS_SLOTS"] == "2" and full["THREADS"] == "3" and full["UNRELATED_SETTING"] == "kept"
