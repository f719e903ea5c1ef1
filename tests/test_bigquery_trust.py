"""bq:// in settings and in a trusted catalog_context: the allow-list and merchant binding rules."""

from __future__ import annotations

import pytest

from agent import config as config_mod
from agent.bqref import BadBqUri, parse_bq_uri
from agent.protocol.errors import RpcError
from agent.service.trust import uri_allowed, verify


@pytest.mark.parametrize(
    "uri",
    [
        "bq://proj",
        "bq://proj.ds.t.x",
        "bq://Proj-1.ds.t",
        "bq://pr.ds.t",
        "bq://proj-one.d-s.t",
        "bq://proj-one.ds.t`;DROP",
        "bq://proj-one.ds.t/x",
        "bq://proj-one..t",
        "bq://example.com:p.ds.t",
        "bq://proj-one.ds.t\n",
        "bq://proj-one.ds.t?x",
        "bq://proj-one.ds.%54",
    ],
)
def test_malformed_bq_uris_are_refused_everywhere(uri):
    with pytest.raises(BadBqUri):
        parse_bq_uri(uri)
    if uri == uri.strip():  # settings are read stripped of surrounding whitespace
        with pytest.raises(config_mod.ConfigError):
            config_mod.load({"CATALOG_URI": uri})
    assert not uri_allowed(uri, ("bq://proj-one.ds",), "123")


def test_dataset_uri_names_the_merchants_products_table():
    ref = parse_bq_uri("bq://proj-one.mc").for_merchant("123")
    assert ref.table_id == "proj-one.mc.Products_123"
    with pytest.raises(BadBqUri):
        parse_bq_uri("bq://proj-one.mc").for_merchant(None)
    with pytest.raises(BadBqUri):
        parse_bq_uri("bq://proj-one.mc").for_merchant("a.b")  # not a table name


def test_configured_dataset_is_the_default_allow_list():
    cfg = config_mod.load({"CATALOG_URI": "bq://proj-one.mc", "MERCHANT_CENTER_ID": "123"})
    assert cfg.allowed_catalog_prefixes == ("bq://proj-one.mc",)
    assert cfg.bigquery.merchant_center_id == "123" and cfg.local_root is None
    assert uri_allowed("bq://proj-one.mc.Products_9", cfg.allowed_catalog_prefixes, "9")
    assert uri_allowed("bq://proj-one.mc", cfg.allowed_catalog_prefixes, "9")
    assert not uri_allowed("bq://proj-one.other.Products_9", cfg.allowed_catalog_prefixes, "9")
    assert not uri_allowed("bq://proj-two.mc.Products_9", cfg.allowed_catalog_prefixes, "9")
    assert not uri_allowed("gs://proj-one/mc", cfg.allowed_catalog_prefixes, "9")


def test_merchant_placeholder_binds_the_table_to_the_caller():
    prefixes = config_mod.load(
        {"ALLOWED_CATALOG_PREFIXES": "bq://proj-one.mc.Products_{merchant_id},gs://bkt/{merchant_id}/"}
    ).allowed_catalog_prefixes
    assert uri_allowed("bq://proj-one.mc.Products_123", prefixes, "123")
    assert uri_allowed("bq://proj-one.mc", prefixes, "123")  # resolves to the caller's own table
    assert not uri_allowed("bq://proj-one.mc.Products_124", prefixes, "123")
    assert not uri_allowed("bq://proj-one.mc.BestSellers_123", prefixes, "123")
    assert uri_allowed("gs://bkt/123/x.csv", prefixes, "123") and not uri_allowed("gs://bkt/124/x.csv", prefixes, "123")
    # a gs:// prefix never admits a bq:// table and the other way round
    assert not uri_allowed("bq://proj-one.mc.Products_123", ("gs://bkt/",), "123")


def test_bad_bq_prefix_setting_is_a_clear_config_error():
    for bad in ("bq://proj-one", "bq://proj-one.mc.t.u", "bq://PROJ.mc"):
        with pytest.raises(config_mod.ConfigError, match="bq://project.dataset"):
            config_mod.load({"ALLOWED_CATALOG_PREFIXES": bad})


def test_catalog_context_with_bq_uri_passes_and_fails_like_gs():
    prefixes = ("bq://proj-one.mc.Products_{merchant_id}",)
    ok = verify(
        {"merchant_id": "123", "catalog_uri": "bq://proj-one.mc"}, prefixes=prefixes, secret=None, bound_merchant=None
    )
    assert ok.catalog_uri == "bq://proj-one.mc" and ok.merchant_id == "123"
    for raw, bound in (
        ({"merchant_id": "124", "catalog_uri": "bq://proj-one.mc.Products_123"}, None),
        ({"merchant_id": "123", "catalog_uri": "bq://proj-one.mc"}, "124"),
        ({"merchant_id": "123", "catalog_uri": "bq://proj-one.elsewhere"}, None),
        ({"merchant_id": "123", "catalog_uri": "bq:/proj-one.mc"}, None),
    ):
        with pytest.raises(RpcError):
            verify(raw, prefixes=prefixes, secret=None, bound_merchant=bound)


def test_importing_main_with_a_bq_catalog_loads_no_bigquery_client():
    """Cold start: the BigQuery clients are imported when a bq:// source is read, not before."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = (
        "import sys, main; from agent import config; from agent.service.handler import Service; "
        "Service(config.load({'CATALOG_URI': 'bq://proj-one.mc', 'MERCHANT_CENTER_ID': '1'})); "
        "print(sorted(m for m in sys.modules if m.startswith(('google.cloud.bigquery', 'grpc'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"
