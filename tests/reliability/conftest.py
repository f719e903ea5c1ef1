"""What the storage-fault tests share (test_store_faults, test_unstored_outcomes): one bucket on
fake-gcs-server with a real fault proxy in front of it (tests/faultproxy.py), an agent server that
reaches storage only through the proxy, and, where a test needs what the store itself holds, a second
server on the same bucket that goes straight to the emulator.

Module-scoped, as each file's own fixture was: one bucket and one pair of servers per test file.
"""

from __future__ import annotations

from typing import Any, Iterator, NamedTuple

import pytest

from tests.conftest import Server
from tests.emulators import shared_emulator
from tests.faultproxy import FaultProxy


class FaultyStore(NamedTuple):
    server: Server  # its STORAGE_EMULATOR_HOST is the proxy
    proxy: FaultProxy
    fake: Any  # the fake-gcs-server emulator behind the proxy
    bucket: str


@pytest.fixture(scope="module")
def faulty(start_server) -> Iterator[FaultyStore]:
    fake = shared_emulator("fake")
    bucket = fake.create_bucket()
    proxy = FaultProxy(fake.url)
    yield FaultyStore(start_server({"STATE_BUCKET": bucket, "STORAGE_EMULATOR_HOST": proxy.url}), proxy, fake, bucket)
    proxy.stop()


@pytest.fixture(scope="module")
def clean(faulty, start_server) -> Server:
    """A second instance on the faulty one's bucket, not through the proxy: it sees what the store holds
    and has none of the faulty instance's own memory (no cached attachment, no kept outcome)."""
    return start_server({"STATE_BUCKET": faulty.bucket, "STORAGE_EMULATOR_HOST": faulty.fake.url})


@pytest.fixture
def proxy(faulty) -> Iterator[FaultProxy]:
    """The proxy, without rules when the test starts and again when it ends."""
    faulty.proxy.clear()
    yield faulty.proxy
    faulty.proxy.clear()
