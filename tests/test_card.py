"""The agent card names who provides the agent (settings), what it sends, and no security scheme."""

from __future__ import annotations

import pytest

from agent import config
from agent.protocol import card as card_mod
from agent.service.handler import Service


def card_for(env: dict[str, str]) -> dict:
    return Service(config.load(env)).card()


def test_provider_is_the_organization_and_its_website(a2a_validate):
    card = card_for(
        {
            "PUBLIC_URL": "https://agent.example.run.app/",
            "PROVIDER_ORGANIZATION": "Acme Retail",
            "PROVIDER_URL": "https://acme.example/",
        }
    )
    a2a_validate(card, "AgentCard")
    assert card["provider"] == {"organization": "Acme Retail", "url": "https://acme.example/"}
    assert card["provider"]["url"] != card["url"] and card["provider"]["organization"] != card["name"]


def test_without_provider_settings_the_card_names_none(a2a_validate):
    card = card_for({})
    a2a_validate(card, "AgentCard")
    assert "provider" not in card


@pytest.mark.parametrize(
    "env",
    [
        {"PROVIDER_ORGANIZATION": "Acme"},
        {"PROVIDER_URL": "https://acme.example/"},
        {"PROVIDER_ORGANIZATION": "Acme", "PROVIDER_URL": "acme.example"},
    ],
)
def test_half_a_provider_stops_start_up(env):
    with pytest.raises(config.ConfigError, match="PROVIDER_"):
        config.load(env)


def test_output_modes_name_what_is_sent():
    """The text part is Markdown; A2UI messages are JSON data parts. Both, and only those, are declared,
    and every mode declared is one the -32005 check accepts."""
    card = card_for({})
    assert card["defaultOutputModes"] == ["text/markdown", "application/json"]
    for skill in card["skills"]:
        assert skill["outputModes"] == card["defaultOutputModes"]
    for mode in card["defaultOutputModes"]:
        assert card_mod.accepts_output([mode])


def test_no_security_scheme_is_declared():
    """Cloud Run IAM checks the caller's Google ID token before the function runs; see README, Authentication."""
    card = card_for({})
    assert "securitySchemes" not in card and "security" not in card


def test_cloud_run_is_detected_for_log_format():
    assert config.load({"K_SERVICE": "catalog-gap-analyst"}).log_json is True
    assert config.load({}).log_json is False
