"""The turn's storage budget counts time inside storage calls, not the turn's wall time (issue 12 items 2
and 7): computing for a long while leaves it whole; a hung call is cut to what is left and charged, and
the call after it fails at once. The clock is injected: no sleeping."""

from __future__ import annotations

import pytest

from agent import budget
from tests.helpers import FakeClock


def test_time_outside_storage_calls_is_not_charged():
    clock = FakeClock()
    with budget.within(3, clock):
        with budget.call((10.0, 10.0)) as timeout:
            assert timeout == (3, 3)
            clock.now += 0.5  # the call took half a second
        clock.now += 60  # a minute of analysis
        assert budget.remaining() == pytest.approx(2.5)
        with budget.call((10.0, 10.0)) as timeout:  # the last storage calls of the turn still get their share
            assert timeout == (pytest.approx(2.5), pytest.approx(2.5))


def test_a_hung_call_is_cut_to_what_is_left_and_the_next_call_fails_at_once():
    clock = FakeClock()
    with budget.within(3, clock):
        with pytest.raises(TimeoutError):
            with budget.call((30.0, 30.0)) as timeout:
                assert timeout == (3, 3)
                clock.now += timeout[1]  # the library waited the whole read timeout, then gave up
                raise TimeoutError("read timed out")
        assert budget.remaining() <= 0
        with pytest.raises(budget.Exhausted):
            with budget.call((30.0, 30.0)):
                raise AssertionError("not called: nothing is left")
        assert budget.retry_deadline(120) == pytest.approx(0.05)  # never a zero deadline


def test_outside_a_turn_calls_keep_their_own_limits():
    with budget.call((5.0, 30.0)) as timeout:
        assert timeout == (5.0, 30.0)
    assert budget.remaining() is None and budget.retry_deadline(120) == 120


def test_a_stream_keeps_its_budget_between_steps_and_leaves_none_behind():
    def steps():
        with budget.call((9.0, 9.0)) as first:
            yield first
        yield budget.remaining()

    stream = budget.bounded(steps(), 4)
    assert next(stream) == (4, 4)
    assert budget.remaining() is None  # suspended at a yield: nothing open on this thread
    left = next(stream)
    assert left is not None and 3.9 < left <= 4
