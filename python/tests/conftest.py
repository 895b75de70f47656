"""Fixtures: a fresh `esa local` (switch + controller, UDP ports, no root)
per test that asks for one, on free ports, stopped afterwards."""

import os
import random
import socket
import subprocess
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
