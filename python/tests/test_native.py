"""The native worker, PS and admission against a real `esa local`: sums
within the quantization bound (exact on integer-valued data), exact under
preemption, a missing rank is a clear error in bounded time, bad arguments
are clear errors."""

import threading
import time

import numpy as np
import pytest

import esa_torch
from conftest import ESA_OFFSET, LANES_OFFSET, PS_WORKER_ID, QUERY, RESULT, esa_frame, run_all
from esa_torch import ParameterServer, Worker, admit, job_stats, port_address, release


def start_job(stack, world, **kw):
    """Admits a job and makes its PS and workers (kw: mode, priority,
    policy, exponent, timeout_s, window)."""
    worker_kw = {k: kw.pop(k) for k in ("policy", "exponent", "timeout_s", "window") if k in kw}
    adm = admit(stack.controller, world, **kw)
    mode = kw.get("mode", "esa")
    ps = ParameterServer(
        port_address(stack.switch, adm.ps_port), adm.ps_port, adm.job_id, world,
        lanes=stack.lanes, mode=mode,
    )
    workers = [
        Worker(
            port_address(stack.switch, p), p, adm.job_id, r, world,
            lanes=stack.lanes, mode=mode, slot_mask=adm.slot_mask, **worker_kw,
        )
        for r, p in enumerate(adm.worker_ports)
    ]
    return adm, ps, workers


@pytest.mark.parametrize("n", [1, 31, 32, 33, 10007])
def test_random_buckets_within_the_quantization_bound(stack, n):
    world, exponent = 3, 20
    adm, ps, workers = start_job(stack, world, exponent=exponent)
    rng = np.random.default_rng(n)
    data = [rng.standard_normal(n).astype(np.float32) for _ in range(world)]
    exact = np.sum([d.astype(np.float64) for d in data], axis=0)
    stats, errors = run_all(workers, data)
    assert errors == [None] * world
    # Each contribution is rounded to a multiple of 2^-exponent: at most
    # half a step each; then one float32 rounding of the sum.
    bound = world * 2.0 ** -(exponent + 1) + np.abs(exact) * 2.0**-23
    for d in data:
        assert np.all(np.abs(d - exact) <= bound), np.max(np.abs(d - exact))
    assert stats[0]["elements"] == n
    assert stats[0]["from_switch"] + stats[0]["from_ps"] == -(-n // stack.lanes)
    ps.stop()
    release(stack.controller, adm.job_id)


def test_average_and_integer_sums_are_exact(stack):
    world = 4
    adm, ps, workers = start_job(stack, world)
    data = [np.arange(5000, dtype=np.float32) * (r + 1) for r in range(world)]
    run_all(workers, data)
    expected = np.arange(5000, dtype=np.float32) * 10
    for d in data:
        np.testing.assert_array_equal(d, expected)
    data = [np.full(100, float(r), dtype=np.float32) for r in range(world)]
    run_all(workers, data, average=True)
    for d in data:
        np.testing.assert_array_equal(d, np.full(100, 1.5, dtype=np.float32))
    ps.stop()


def test_preempted_job_still_gets_exact_sums(make_stack):
    # A pool of 64 slots: two jobs with windows of 64 do not both fit, and
    # the higher class takes slots the lower one holds.
    stack = make_stack(pool_slots=64)
    world, n = 3, 200_000
    low = start_job(stack, world, priority=1, policy="static:1")
    high = start_job(stack, world, priority=12, policy="static:12")
    low_data = [np.full(n, float(r + 1), dtype=np.float32) for r in range(world)]
    high_data = [np.arange(n, dtype=np.float32) % 1000 for _ in range(world)]
    out = {}

    def run(name, job, data):
        out[name] = run_all(job[2], data)

    # The low job's last rank joins only after the high job has run: until
    # then the low job's chunks sit partly summed in the switch's slots,
    # which the high job's chunks need, however fast either job runs.
    first = {}
    t_low = threading.Thread(
        target=lambda: first.update(out=run_all(low[2][:-1], low_data[:-1]))
    )
    t_low.start()
    deadline = time.monotonic() + 30
    while job_stats(stack.controller, low[0].job_id)["claimed"] == 0:
        assert time.monotonic() < deadline, "the low job never reached the switch"
        time.sleep(0.01)
    run("high", high, high_data)
    last = run_all(low[2][-1:], low_data[-1:])
    t_low.join()
    out["low"] = tuple(a + b for a, b in zip(first["out"], last))
    assert out["low"][1] == [None] * world and out["high"][1] == [None] * world
    for d in low_data:
        np.testing.assert_array_equal(d, np.full(n, 6.0, dtype=np.float32))
    for d in high_data:
        np.testing.assert_array_equal(d, (np.arange(n, dtype=np.float32) % 1000) * 3)
    counters = job_stats(stack.controller, low[0].job_id)
    volume = low[1].stop()
    high[1].stop()
    # The low job really was preempted: the switch evicted its partial sums
    # to its PS, which completed those chunks.
    assert counters["evictions_suffered"] > 0, counters
    assert volume["evicted_parts"] > 0 and volume["chunks_completed"] > 0, volume
    assert sum(s["from_ps"] for s in out["low"][0]) > 0


def test_a_missing_rank_is_a_timeout_in_bounded_time(stack):
    world = 3
    adm, ps, workers = start_job(stack, world, timeout_s=2.0)
    data = [np.ones(1000, dtype=np.float32) for _ in range(world)]
    _, errors = run_all(workers, data)
    assert errors == [None] * world
    # Rank 2 is gone: the other two must fail, not hang.
    started = time.time()
    _, errors = run_all(workers[:2], data[:2])
    elapsed = time.time() - started
    assert elapsed < 20, elapsed
    for e in errors:
        assert isinstance(e, TimeoutError), repr(e)
        assert f"job {adm.job_id}" in str(e) and "rank" in str(e), str(e)
    ps.stop()


def test_a_done_rank_answers_queries_while_it_serves_them(stack, make_relay):
    """A rank past its last all-reduce answers a QUERY for one of its
    results only inside serve_queries (Job.close runs it for the length of
    the barrier): the PS's QUERY reaches its port, the answer is a RESULT in
    the rank's name with the lanes it accepted."""
    world, n = 2, 100
    relay = make_relay(stack)
    adm = admit(stack.controller, world)
    ps = ParameterServer(port_address(stack.switch, adm.ps_port), adm.ps_port, adm.job_id, world, lanes=stack.lanes)
    workers = [
        Worker(port_address(relay.switch, p), p, adm.job_id, r, world, lanes=stack.lanes, slot_mask=adm.slot_mask)
        for r, p in enumerate(adm.worker_ports)
    ]
    data = [np.full(n, r + 1.0, dtype=np.float32) for r in range(world)]
    _, errors = run_all(workers, data)
    assert errors == [None] * world
    np.testing.assert_array_equal(data[0], np.full(n, 3.0, dtype=np.float32))
    port = adm.worker_ports[0]
    results = [f for f in relay.to_ranks[port] if esa_frame(f) and esa_frame(f)[0] == RESULT]
    last = max(results, key=lambda f: esa_frame(f)[2])
    # The PS's QUERY for that chunk: the RESULT's header, lanes zero.
    query = bytearray(last[:LANES_OFFSET]) + bytes(len(last) - LANES_OFFSET)
    query[ESA_OFFSET] = (query[ESA_OFFSET] & 0xF0) | QUERY
    query[ESA_OFFSET + 15] = PS_WORKER_ID
    def esa_from_rank():  # hellos aside
        return [f for f in relay.from_ranks[port] if esa_frame(f)]

    sent = len(esa_from_rank())
    relay.send_to_rank(port, bytes(query))
    time.sleep(0.3)
    # Nobody reads a finished rank's port.
    assert workers[0].stats()["queries_answered"] == 0
    assert len(esa_from_rank()) == sent
    workers[0].serve_queries(0.5)
    assert workers[0].stats()["queries_answered"] == 1
    deadline = time.time() + 5
    while len(esa_from_rank()) == sent and time.time() < deadline:
        time.sleep(0.01)
    (answer,) = esa_from_rank()[sent:]
    assert esa_frame(answer) == (RESULT, esa_frame(last)[1], esa_frame(last)[2])
    assert answer[ESA_OFFSET + 15] == 0  # in rank 0's name
    assert answer[LANES_OFFSET:] == last[LANES_OFFSET:]
    with pytest.raises(ValueError, match="seconds must be finite"):
        workers[0].serve_queries(-1.0)
    ps.stop()
    release(stack.controller, adm.job_id)


def test_bad_arguments_are_clear_errors(stack):
    with pytest.raises(ValueError, match="2 to 32 workers"):
        admit(stack.controller, 33)
    with pytest.raises(ValueError, match="2 to 32 workers"):
        Worker(port_address(stack.switch, 1), 1, 1, 0, 1)
    with pytest.raises(ValueError, match="rank 3 is not below"):
        Worker(port_address(stack.switch, 1), 1, 1, 3, 3)
    with pytest.raises(ValueError, match="unknown mode"):
        admit(stack.controller, 2, mode="allreduce")
    with pytest.raises(ValueError, match="not HOST:PORT"):
        Worker("nowhere", 1, 1, 0, 2)
    with pytest.raises(ValueError, match="unknown priority policy"):
        Worker(port_address(stack.switch, 1), 1, 1, 0, 2, policy="fastest")
    with pytest.raises(ValueError, match="ports: 2 given, 4 needed"):
        admit(stack.controller, 3, ports=[1, 2])
    # The stack has 8 ports: a job of 8 workers needs 9.
    with pytest.raises(ValueError, match="port 9 is not a switch port.*esa local --ports N"):
        admit(stack.controller, 8)
    with pytest.raises(RuntimeError, match="the switch has 5 free ports; a job of 7 workers"):
        admit(stack.controller, 7, max_port=5)
    with pytest.raises(ValueError, match="switch port 9 at base"):
        port_address("127.0.0.1:65530", 9)
    started = time.time()
    with pytest.raises(ConnectionError, match="cannot reach the ESA controller"):
        admit("127.0.0.1:1", 2, timeout_s=2.0)
    assert time.time() - started < 10
    adm, ps, workers = start_job(stack, 2)
    ro = np.ones(10, dtype=np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        workers[0].allreduce(ro)
    with pytest.raises(Exception, match="(?i)buffer|format|float"):
        workers[0].allreduce(np.ones(10, dtype=np.float64))
    with pytest.raises(ValueError, match="not C-contiguous"):
        workers[0].allreduce(np.ones((10, 10), dtype=np.float32)[:, 1])
    ps.stop()
    # Nothing was sent: the job still works.
    data = [np.ones(10, dtype=np.float32) * 2, np.ones(10, dtype=np.float32)]
    adm2, ps2, w2 = start_job(stack, 2)
    _, errors = run_all(w2, data)
    assert errors == [None, None]
    np.testing.assert_array_equal(data[0], np.full(10, 3.0, dtype=np.float32))
    ps2.stop()


def test_host_addresses_follow_the_port():
    assert esa_torch.host_address(3) == ("10.0.0.3", "02:00:00:00:00:03")
    assert esa_torch.host_address(258) == ("10.0.1.2", "02:00:00:00:01:02")


def _rank_loop(port_addr, port, job, rank, world, slot_mask, out):
    """A rank in its own process: all-reduces until it fails; reports
    each iteration and the error it ends with."""
    w = Worker(port_addr, port, job, rank, world, slot_mask=slot_mask, timeout_s=2.0)
    data = np.ones(20_000, dtype=np.float32)
    for i in range(100_000):
        data[:] = 1.0
        try:
            w.allreduce(data)
        except Exception as e:
            out.put((rank, "error", type(e).__name__, str(e), time.time()))
            return
        assert data[0] == world
        out.put((rank, "done", i, "", time.time()))


def test_a_rank_killed_with_sigkill_leaves_the_others_a_clear_error(stack):
    import multiprocessing as mp
    import os
    import queue
    import signal

    world = 3
    adm = admit(stack.controller, world)
    ps = ParameterServer(port_address(stack.switch, adm.ps_port), adm.ps_port, adm.job_id, world)
    ctx = mp.get_context("spawn")
    # One queue per rank: a process killed while it writes to a queue can
    # leave that queue's lock held, which would block the survivors' puts
    # on a shared one.
    outs = [ctx.Queue() for _ in range(world)]
    procs = [
        ctx.Process(
            target=_rank_loop,
            args=(port_address(stack.switch, p), p, adm.job_id, r, world, adm.slot_mask, outs[r]),
        )
        for r, p in enumerate(adm.worker_ports)
    ]
    for p in procs:
        p.start()

    def next_message(ranks, timeout=60):
        # round robin, so a busy rank cannot starve the others
        ranks = list(ranks)
        deadline = time.time() + timeout
        while time.time() < deadline:
            for r in ranks:
                try:
                    return outs[r].get_nowait()
                except queue.Empty:
                    pass
            time.sleep(0.005)
        raise AssertionError(f"no message from ranks {ranks} in {timeout} s")

    done = {r: 0 for r in range(world)}
    while min(done.values()) < 3:
        rank, kind, i, msg, _ = next_message(range(world))
        assert kind == "done", msg
        done[rank] += 1
    os.kill(procs[2].pid, signal.SIGKILL)
    killed_at = time.time()
    errors = {}
    while len(errors) < 2:
        rank, kind, name, msg, at = next_message([r for r in (0, 1) if r not in errors])
        if kind == "error":
            errors[rank] = (name, msg, at - killed_at)
    for p in procs:
        p.join(timeout=10)
    assert procs[2].exitcode == -signal.SIGKILL
    for rank in (0, 1):
        name, msg, after = errors[rank]
        assert name == "TimeoutError", (name, msg)
        assert f"job {adm.job_id}" in msg and "a rank of this job stopped" in msg, msg
        # timeout_s is 2 s of resends at the largest RTO; well inside 15 s.
        assert after < 15, after
        assert procs[rank].exitcode == 0
    ps.stop()


def test_tls_and_tokens_guard_the_job_api(make_stack, tmp_path):
    """esa local with TLS and tokens: no token is refused, a plaintext
    client gets nothing, a tenant admits and releases its job, another
    tenant may not release it."""
    import re
    import subprocess

    from conftest import esa_bin

    subprocess.run(
        [esa_bin(), "certs", "--out", str(tmp_path), "--tenant", "alice", "--tenant", "bob"],
        check=True,
        capture_output=True,
    )
    text = (tmp_path / "tokens.toml").read_text()
    tokens = dict(re.findall(r'name = "(\w+)"\ntoken = "(\w+)"', text))
    stack = make_stack(
        extra_args=[
            "--tls-cert", str(tmp_path / "server.pem"),
            "--tls-key", str(tmp_path / "server.key"),
            "--tokens", str(tmp_path / "tokens.toml"),
        ]
    )
    ca = str(tmp_path / "ca.pem")
    with pytest.raises(PermissionError, match="Unauthenticated"):
        admit(stack.controller, 2, tls_ca=ca, timeout_s=3.0)
    with pytest.raises(Exception):
        admit(stack.controller, 2, token=tokens["alice"], timeout_s=3.0)
    adm = admit(stack.controller, 2, token=tokens["alice"], tls_ca=ca)
    with pytest.raises(PermissionError, match="PermissionDenied"):
        release(stack.controller, adm.job_id, token=tokens["bob"], tls_ca=ca)
    assert "completed" in job_stats(stack.controller, adm.job_id, token=tokens["alice"], tls_ca=ca)
    release(stack.controller, adm.job_id, token=tokens["alice"], tls_ca=ca)
    with pytest.raises(ValueError, match="NotFound"):
        release(stack.controller, adm.job_id, token=tokens["admin"], tls_ca=ca)
