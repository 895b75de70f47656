"""Checked all-reduces (issue 39, item 5): a result that is not the sum of
what the ranks sent raises IntegrityError on every rank and leaves the
buffers alone. The forger is a relay on the path between the ranks and the
switch (conftest.Relay): to the switch it is the ports' host, so the data
plane cannot refuse its frames; it adds to one lane of one DATA frame."""

import os
import threading

import numpy as np
import pytest

from conftest import corrupt_one_data_frame, run_all
from esa_torch import IntegrityError, ParameterServer, Worker, admit, port_address, release

KEY = bytes(range(32))
EXPONENT = 16  # the buckets below sum without overflow re-runs
FORGED = 2**24  # one lane: 2^(24 - EXPONENT) = 256.0 more in one element's sum


class ThreadExchange:
    """An all-gather among the threads that play the ranks."""

    def __init__(self, world):
        self.slots = [None] * world
        self.barrier = threading.Barrier(world)

    def for_rank(self, rank):
        def exchange(checksums):
            self.slots[rank] = list(checksums)
            self.barrier.wait()
            every = list(self.slots)
            self.barrier.wait()
            return every

        return exchange


def start_job(stack, switch, world, key):
    adm = admit(stack.controller, world)
    ps = ParameterServer(port_address(switch, adm.ps_port), adm.ps_port, adm.job_id, world, lanes=stack.lanes)
    workers = [
        Worker(
            port_address(switch, p), p, adm.job_id, r, world,
            lanes=stack.lanes, slot_mask=adm.slot_mask, exponent=EXPONENT, integrity_key=key,
        )
        for r, p in enumerate(adm.worker_ports)
    ]
    return adm, ps, workers


def run_checked(workers, buffers, exchanges):
    """Each rank's stats, or the error it raised."""
    stats, errors = run_all(workers, buffers, exchanges=exchanges)
    return [e if e is not None else st for st, e in zip(stats, errors)]


def integer_buckets(world, n):
    return [base(n) * (r + 1) for r in range(world)]


def base(n):
    return np.arange(n, dtype=np.float32) % 1000


def test_honest_checked_all_reduces_pass_and_are_counted(stack):
    world, n = 3, 3000
    adm, ps, workers = start_job(stack, stack.switch, world, KEY)
    exchange = ThreadExchange(world)
    for _ in range(2):
        data = integer_buckets(world, n)
        outcomes = run_checked(workers, data, [exchange.for_rank(r) for r in range(world)])
        assert all(isinstance(o, dict) and o["checked"] for o in outcomes), outcomes
        assert outcomes[0]["overflow_retries"] == 0
        for d in data:
            np.testing.assert_array_equal(d, base(n) * 6)
    stats = workers[0].stats()
    assert (stats["integrity_checks"], stats["integrity_failures"]) == (2, 0)
    ps.stop()
    release(stack.controller, adm.job_id)


@pytest.mark.parametrize("checked", [True, False])
def test_a_corrupted_contribution_raises_on_every_rank(stack, make_relay, checked):
    world, n = 3, 3000
    # Rank 1 is on the job's second port (a fresh stack: ports 1..world).
    relay = make_relay(stack, corrupt_one_data_frame(port=2, min_seq=40, amount=FORGED))
    adm, ps, workers = start_job(stack, relay.switch, world, KEY if checked else None)
    assert adm.worker_ports[1] == 2
    exchange = ThreadExchange(world)
    exchanges = [exchange.for_rank(r) if checked else None for r in range(world)]
    data = integer_buckets(world, n)
    outcomes = run_checked(workers, data, exchanges)
    assert relay.corrupted == 1
    expected = base(n) * 6
    if checked:
        for rank, o in enumerate(outcomes):
            assert isinstance(o, IntegrityError), (rank, o)
            message = str(o)
            assert f"ESA job {adm.job_id}, rank {rank}, checked all-reduce 0" in message
            assert "rank(s) [0, 1, 2]" in message and "not the sum" in message
        # The buffers were left as they were.
        for r, d in enumerate(data):
            np.testing.assert_array_equal(d, base(n) * (r + 1))
        assert workers[0].stats()["integrity_failures"] == 1
    else:
        # Unchecked, the forged lane lands in every rank's sum unnoticed.
        assert all(isinstance(o, dict) for o in outcomes), outcomes
        for d in data:
            wrong = np.flatnonzero(d != expected)
            assert len(wrong) == 1 and d[wrong[0]] - expected[wrong[0]] == 2.0 ** (24 - EXPONENT), wrong
    ps.stop()
    release(stack.controller, adm.job_id)


def test_a_checked_worker_needs_an_exchange_and_a_32_byte_key(stack):
    adm = admit(stack.controller, 2)
    p = adm.worker_ports[0]
    with pytest.raises(ValueError, match="integrity_key has 5 bytes, not 32"):
        Worker(port_address(stack.switch, p), p, adm.job_id, 0, 2, integrity_key=b"short")
    w = Worker(port_address(stack.switch, p), p, adm.job_id, 0, 2, integrity_key=os.urandom(32))
    with pytest.raises(ValueError, match="exchange="):
        w.allreduce(np.zeros(4, dtype=np.float32))
    release(stack.controller, adm.job_id)
