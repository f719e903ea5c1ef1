"""Every skill's A2UI surface on real catalogs: the demo catalog (with and without the competitor file)
and every export in tests/corpus/seed/, with the real evidence footer.

All surfaces of the module go through one run of the official renderer core (schema, structure,
node counts, distinct surface ids); see tests/a2ui_check.py.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from agent.analysis.registry import SKILLS, SkillInput
from agent.analysis.result import Scope
from agent.catalog.sources import Attachment, load_catalog_inputs
from agent.catalog.taxonomy import load
from agent.render import a2ui
from agent.render.footer import render_footer
from tests.a2ui_check import check_surfaces, components_of

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "tests" / "corpus" / "seed"
DEMO = ROOT / "data" / "demo"
NOW = dt.datetime(2026, 11, 29, 21, 40, tzinfo=dt.timezone.utc)


def _inputs() -> dict[str, tuple[object, Scope]]:
    tax = load()
    outdoor = tax.id_for_path("Furniture > Outdoor Furniture")
    outdoor_scope = Scope(label="Outdoor Furniture", taxonomy_id=outdoor, taxonomy_path="Furniture > Outdoor Furniture")
    cases = {
        "demo-whole": (load_catalog_inputs([]), Scope()),
        "demo-outdoor": (load_catalog_inputs([]), outdoor_scope),
        "demo-vs-competitor": (
            load_catalog_inputs(
                [
                    Attachment("catalog.csv", (DEMO / "catalog.csv").read_bytes(), "text/csv"),
                    Attachment("competitor.csv", (DEMO / "competitor.csv").read_bytes(), "text/csv"),
                ],
                question="compare my catalog with the competitor file",
            ),
            outdoor_scope,
        ),
    }
    for path in sorted(CATALOGS.glob("*.csv")):
        cases[path.stem] = (load_catalog_inputs([Attachment(path.name, path.read_bytes(), "text/csv")]), Scope())
    return cases


@pytest.fixture(scope="module")
def surfaces() -> dict[str, list[dict]]:
    tax = load()
    out: dict[str, list[dict]] = {}
    for case, (inputs, scope) in _inputs().items():
        assert inputs.own is not None, case
        for skill_id, spec in SKILLS.items():
            result = spec.run(
                SkillInput(
                    own=inputs.own.table,
                    reference=inputs.reference.table if inputs.reference else None,
                    scope=scope,
                    taxonomy=tax,
                    sources=tuple(inputs.own.sources),
                )
            )
            footer = render_footer(inputs, result.taxonomy_note, NOW)
            sid = f"{case}-{skill_id}"
            out[sid] = a2ui.build_messages(result, footer, sid)
    return out


def test_cases_cover_every_skill_and_catalog(surfaces):
    cases = {p.stem for p in CATALOGS.glob("*.csv")} | {"demo-whole", "demo-outdoor", "demo-vs-competitor"}
    assert len(cases) >= 7
    assert set(surfaces) == {f"{c}-{s}" for c in cases for s in SKILLS}


def test_all_surfaces_validate_and_render(surfaces):
    report = check_surfaces(list(surfaces.values()))  # schema, structure, renderer core node counts
    for sid, messages in surfaces.items():
        texts = report[sid]["texts"]
        assert texts["a2_title"]["html"].startswith("<h2>")
        assert texts["a2_footer"]["html"].startswith("<p><em>Evidence<br>")
        assert "Freshness" in texts["a2_footer"]["html"]
        assert len(components_of(messages)) <= 150


def test_demo_gaps_card_names_the_gaps_and_charts_subcategories(surfaces):
    messages = surfaces["demo-outdoor-assortment_gaps"]
    comps = {c["id"]: c for c in components_of(messages)}
    literals = " ".join(
        c["component"]["Text"]["text"]["literalString"] for c in comps.values() if "Text" in c["component"]
    )
    assert "Gap" in literals and "a2_chart" in comps
    assert "Assortment gaps: Outdoor Furniture" == comps["a2_title"]["component"]["Text"]["text"]["literalString"]
