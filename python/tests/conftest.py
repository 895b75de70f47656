"""Fixtures: a fresh `esa local` (switch + controller, UDP ports, no root)
per test that asks for one, on free ports, stopped afterwards; and an
on-path relay in front of its ports that can corrupt a frame."""

import os
import random
import selectors
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def esa_bin():
    """The esa command: $ESA_BIN, else this tree's target/{debug,release}/esa."""
    if os.environ.get("ESA_BIN"):
        return os.environ["ESA_BIN"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("debug", "release"):
        p = target / profile / "esa"
        if p.exists():
            return str(p)
    pytest.fail("no esa binary: build it (cargo build) or set ESA_BIN")


def free_tcp():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_udp_range(n):
    """A base port with base+1..=base+n free on 127.0.0.1 (UDP)."""
    for _ in range(200):
        base = random.randint(20000, 60000 - n)
        socks = []
        try:
            for i in range(1, n + 1):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                socks.append(s)
                s.bind(("127.0.0.1", base + i))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no free UDP port range")


class Stack:
    def __init__(self, ports=8, pool_slots=4096, lanes=32, extra_args=()):
        self.ports = ports
        self.lanes = lanes
        self.pool_slots = pool_slots
        self.base = free_udp_range(ports)
        self.controller = f"127.0.0.1:{free_tcp()}"
        self.switch = f"127.0.0.1:{self.base}"
        self.log = []
        self.proc = subprocess.Popen(
            [
                esa_bin(),
                "local",
                "--ports",
                str(ports),
                "--base-port",
                str(self.base),
                "--controller",
                self.controller,
                "--pool-slots",
                str(pool_slots),
                "--lanes",
                str(lanes),
                *extra_args,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        end = time.time() + 120
        for line in self.proc.stdout:
            self.log.append(line)
            if line.strip() == "ready":
                break
            if time.time() > end:
                break
        if not self.log or self.log[-1].strip() != "ready":
            self.stop()
            raise RuntimeError("esa local did not start:\n" + "".join(self.log))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def stack():
    s = Stack()
    yield s
    s.stop()


@pytest.fixture
def make_stack():
    made = []

    def make(**kw):
        s = Stack(**kw)
        made.append(s)
        return s

    yield make
    for s in made:
        s.stop()


def run_all(workers, buffers, average=False, exchanges=None):
    """All-reduces buffers[i] on workers[i] in parallel (with exchanges[i],
    for checked workers); returns (stats, errors)."""
    stats = [None] * len(workers)
    errors = [None] * len(workers)

    def go(i):
        try:
            exchange = None if exchanges is None else exchanges[i]
            stats[i] = workers[i].allreduce(buffers[i], average, exchange)
        except Exception as e:  # checked by the caller
            errors[i] = e

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return stats, errors


# Where an ESA frame's parts start: Ethernet, IPv4 and UDP headers, then the
# 16-byte ESA header (version and type, flags, slot, key...), then the lanes.
ESA_OFFSET = 14 + 20 + 8
LANES_OFFSET = ESA_OFFSET + 16
DATA = 1
RESULT = 2
QUERY = 6
RESEND = 0x01
PS_WORKER_ID = 255


def esa_frame(frame):
    """(type, flags, seq) of an ESA frame, or None for anything else (hello,
    goodbye)."""
    if len(frame) < LANES_OFFSET:
        return None
    seq = struct.unpack_from(">H", frame, ESA_OFFSET + 6)[0]
    return frame[ESA_OFFSET] & 0x0F, frame[ESA_OFFSET + 1], seq


def add_to_first_lane(frame, amount):
    """The frame with `amount` added to its first lane (int32, wrapping)."""
    (lane,) = struct.unpack_from(">i", frame, LANES_OFFSET)
    lane = (lane + amount + 2**31) % 2**32 - 2**31
    return frame[:LANES_OFFSET] + struct.pack(">i", lane) + frame[LANES_OFFSET + 4:]


class Relay:
    """A host on the path between the ranks and a stack's switch ports: port
    n of the relay (``relay.switch``, base + n) forwards every datagram to
    the switch's port n from a socket of its own, and the switch's answers
    back to whoever last sent on that port. To the switch the relay is the
    port's host, so nothing in the data plane can tell its frames from the
    rank's. ``corrupt(port, frame)`` may return a changed frame from a rank;
    the frames it changed are counted in ``corrupted``. Every frame is kept,
    by port, in ``from_ranks`` and ``to_ranks``; ``send_to_rank`` sends a
    frame to a port's rank as if from the switch."""

    def __init__(self, stack, corrupt=None):
        self.target = stack.base
        self.base = free_udp_range(stack.ports)
        self.switch = f"127.0.0.1:{self.base}"
        self.corrupt = corrupt or (lambda port, frame: frame)
        self.corrupted = 0
        self.selector = selectors.DefaultSelector()
        self.sockets = []
        self.rank_addr = {}
        self.rank_side = {}
        self.from_ranks = {}
        self.to_ranks = {}
        for n in range(1, stack.ports + 1):
            toward_ranks = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            toward_ranks.bind(("127.0.0.1", self.base + n))
            self.rank_side[n] = toward_ranks
            toward_switch = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            toward_switch.bind(("127.0.0.1", 0))
            self.selector.register(toward_ranks, selectors.EVENT_READ, (n, True, toward_switch))
            self.selector.register(toward_switch, selectors.EVENT_READ, (n, False, toward_ranks))
            self.sockets += [toward_ranks, toward_switch]
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stopped.is_set():
            for key, _ in self.selector.select(timeout=0.1):
                n, from_rank, other = key.data
                try:
                    frame, addr = key.fileobj.recvfrom(65536)
                except OSError:
                    continue
                if from_rank:
                    self.rank_addr[n] = addr
                    self.from_ranks.setdefault(n, []).append(frame)
                    changed = self.corrupt(n, frame)
                    if changed != frame:
                        self.corrupted += 1
                    other.sendto(changed, ("127.0.0.1", self.target + n))
                elif n in self.rank_addr:
                    self.to_ranks.setdefault(n, []).append(frame)
                    other.sendto(frame, self.rank_addr[n])

    def send_to_rank(self, n, frame):
        self.rank_side[n].sendto(frame, self.rank_addr[n])

    def stop(self):
        self.stopped.set()
        self.thread.join()
        for s in self.sockets:
            s.close()


def corrupt_one_data_frame(port, min_seq, amount):
    """A ``Relay`` rule: the first DATA frame from switch port ``port`` for
    a seq of at least ``min_seq`` (not a resend) gets ``amount`` added to
    its first lane."""
    done = []

    def corrupt(n, frame):
        parsed = esa_frame(frame)
        if done or n != port or parsed is None:
            return frame
        kind, flags, seq = parsed
        if kind != DATA or flags & RESEND or seq < min_seq:
            return frame
        done.append(seq)
        return add_to_first_lane(frame, amount)

    return corrupt


@pytest.fixture
def make_relay():
    made = []

    def make(stack, corrupt=None):
        r = Relay(stack, corrupt)
        made.append(r)
        return r

    yield make
    for r in made:
        r.stop()
