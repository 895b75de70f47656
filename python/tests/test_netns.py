"""Ranks on a switch's own Ethernet ports: two "machines" of two ranks each
(torchrun per machine), every rank in its own network namespace whose
`eth0` is a veth to a switch port, sending from its own MAC and IPv4
address with kernel UDP, as the hosts of `esa run --switch external` do.
The switch is esa-switch on the veths (`esa switch -i`) or BMv2's
`simple_switch_grpc`, programmed by `esa controller --hosts` with the same
hosts file the ranks read. torch.distributed's rendezvous and gloo go over
a separate management link (a bridge, `mgmt0` in each namespace), so only
ESA packets pass the switch.

Needs root, `ip netns` and ESA_NETNS_TESTS=1 (the gate of every namespace
test; .ci/run sets it as root), else skipped; the BMv2 variant also
`simple_switch_grpc` and `p4c-bm2-ss` on PATH or under $ESA_BMV2_DIR/bin.
Every namespace, veth, bridge and process made here is removed at the
end, whatever happened."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, esa_bin, free_tcp

EXAMPLE = ROOT / "python" / "examples" / "train_digits.py"
RANKS_PER_MACHINE = 2
MACHINES = 2
WORLD = RANKS_PER_MACHINE * MACHINES
# One host per rank, then the PS's (run by rank 0, its socket bound in the
# PS's namespace).
HOSTS = WORLD + 1
SWITCH_IP = "10.255.255.254"
SWITCH_MAC = "02:00:00:00:ff:fe"
LANES = 32
# Same settings for gloo and ESA: the comparison is like for like.
TRAIN = ["--seed", "3", "--lanes", str(LANES)]


def run(*cmd, check=True):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stdout}")
    return r.stdout


def netns_unavailable():
    """Why namespaces cannot be made here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces and veth pairs)"
    if os.environ.get("ESA_NETNS_TESTS") != "1":
        return "namespace tests are opt-in: set ESA_NETNS_TESTS=1 (as root)"
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not on PATH"
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        return "`ip netns` is unavailable"
    return None


def bmv2_tool(name):
    """A BMv2 / p4c program from PATH or $ESA_BMV2_DIR/bin, or None."""
    found = shutil.which(name)
    if found is None and os.environ.get("ESA_BMV2_DIR"):
        candidate = Path(os.environ["ESA_BMV2_DIR"]) / "bin" / name
        found = str(candidate) if candidate.exists() else None
    return found


class Lab:
    """The namespaces, veths, bridge and processes of one run; `close`
    removes them all (also what a failed setup left half made)."""

    def __init__(self, tmp_path):
        self.tmp = tmp_path
        # Unique per process: other runs (and esa-netns's `esar<pid>...`
        # namespaces) never clash with these.
        tag = f"{os.getpid() % 100000}"
        self.prefix = f"esapt{tag}"
        self.bridge = f"ept{tag}br"
        self.namespaces = []
        self.links = []
        self.procs = []
        self.hosts = [
            {
                "name": f"r{i}" if i < WORLD else "ps",
                "mac": f"02:00:00:00:00:{i + 1:02x}",
                "ip": f"10.0.0.{i + 1}",
                "port": i + 1,
                "netns": f"{self.prefix}-{'r' + str(i) if i < WORLD else 'ps'}",
                "switch_side": f"ept{tag}p{i + 1}",
                "mgmt_ip": f"192.168.231.{i + 1}",
            }
            for i in range(HOSTS)
        ]
        self.mgmt_ip = "192.168.231.254"

    def build(self):
        run("ip", "link", "add", self.bridge, "type", "bridge")
        self.links.append(self.bridge)
        run("ip", "addr", "add", f"{self.mgmt_ip}/24", "dev", self.bridge)
        run("ip", "link", "set", self.bridge, "up")
        for h in self.hosts:
            ns, peer = h["netns"], h["switch_side"]
            run("ip", "netns", "add", ns)
            self.namespaces.append(ns)
            run("ip", "link", "add", peer, "type", "veth", "peer", "name", peer + "n")
            self.links.append(peer)
            run("ip", "link", "set", peer + "n", "netns", ns)
            run("ip", "-n", ns, "link", "set", peer + "n", "name", "eth0")
            run("ip", "-n", ns, "link", "set", "eth0", "address", h["mac"])
            run("ip", "-n", ns, "addr", "add", f"{h['ip']}/8", "dev", "eth0")
            run("ip", "-n", ns, "link", "set", "eth0", "up")
            run("ip", "-n", ns, "link", "set", "lo", "up")
            # Nothing answers ARP for the switch's address.
            run("ip", "-n", ns, "neigh", "replace", SWITCH_IP, "lladdr", SWITCH_MAC, "dev", "eth0",
                "nud", "permanent")
            run("sysctl", "-q", "-w", f"net.ipv6.conf.{peer}.disable_ipv6=1", check=False)
            run("ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
                check=False)
            run("ip", "link", "set", peer, "up")
            if h["name"] == "ps":
                continue  # the PS only speaks ESA
            mgmt = f"ept{self.hosts.index(h)}{os.getpid() % 100000}m"
            run("ip", "link", "add", mgmt, "type", "veth", "peer", "name", mgmt + "n")
            self.links.append(mgmt)
            run("ip", "link", "set", mgmt, "master", self.bridge)
            run("ip", "link", "set", mgmt, "up")
            run("ip", "link", "set", mgmt + "n", "netns", ns)
            run("ip", "-n", ns, "link", "set", mgmt + "n", "name", "mgmt0")
            run("ip", "-n", ns, "addr", "add", f"{h['mgmt_ip']}/24", "dev", "mgmt0")
            run("ip", "-n", ns, "link", "set", "mgmt0", "up")
        self.hosts_file = self.tmp / "hosts.toml"
        lines = [f'switch_ip = "{SWITCH_IP}"', ""]
        for h in self.hosts:
            lines += ["[[host]]", f'name = "{h["name"]}"', f'mac = "{h["mac"]}"', f'ip = "{h["ip"]}"',
                      f'port = {h["port"]}']
            if h["name"] == "ps":
                # Rank 0's process is in its own namespace: it binds the
                # PS's socket in the PS's.
                lines.append(f'netns = "{h["netns"]}"')
            lines.append("")
        self.hosts_file.write_text("\n".join(lines))
        # Each rank enters its namespace; torchrun passes RANK.
        self.wrapper = self.tmp / "in_rank_namespace.sh"
        self.wrapper.write_text(f'#!/bin/sh\nexec ip netns exec "{self.prefix}-r$RANK" "$@"\n')
        self.wrapper.chmod(0o755)

    def start(self, name, cmd, ready=None, timeout=120):
        """Starts `cmd` (output to a log file); with `ready`, waits until
        the log holds that text."""
        log = open(self.tmp / f"{name}.log", "w")
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        self.procs.append(proc)
        if ready is not None:
            end = time.time() + timeout
            while ready not in (self.tmp / f"{name}.log").read_text():
                if proc.poll() is not None or time.time() > end:
                    raise RuntimeError(f"{name} did not start:\n" + (self.tmp / f"{name}.log").read_text())
                time.sleep(0.2)
        return proc

    def train(self, backend, epochs, extra=()):
        """Both machines' torchrun, the ranks in their namespaces; returns
        rank 0's report."""
        report = self.tmp / f"{backend}.json"
        port = free_tcp()
        env = dict(os.environ, GLOO_SOCKET_IFNAME="mgmt0", OMP_NUM_THREADS="1")
        procs = []
        for node in range(MACHINES):
            cmd = [
                sys.executable, "-m", "torch.distributed.run", f"--nnodes={MACHINES}",
                f"--node_rank={node}", f"--nproc_per_node={RANKS_PER_MACHINE}",
                f"--master_addr={self.mgmt_ip}", f"--master_port={port}", "--no-python",
                str(self.wrapper), sys.executable, str(EXAMPLE), *TRAIN, "--epochs", str(epochs), "--backend", backend,
                "--report", str(report), *extra,
            ]
            log = open(self.tmp / f"{backend}-node{node}.log", "w")
            p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
            self.procs.append(p)
            procs.append(p)
        for node, p in enumerate(procs):
            p.wait(timeout=600)
            assert p.returncode == 0, (self.tmp / f"{backend}-node{node}.log").read_text()[-4000:]
        return json.loads(report.read_text())

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for ns in self.namespaces:  # the veth ends inside go with them
            run("ip", "netns", "del", ns, check=False)
        for link in self.links:  # a veth's peer goes with it
            run("ip", "link", "del", link, check=False)


@pytest.fixture
def lab(tmp_path):
    why = netns_unavailable()
    if why:
        pytest.skip(why)
    lab = Lab(tmp_path)
    try:
        lab.build()
        yield lab
    finally:
        lab.close()
        left = [ns for ns in run("ip", "netns", "list", check=False).split() if ns.startswith(lab.prefix)]
        assert not left, f"namespaces left behind: {left}"


def start_controller(lab, switch_grpc, *program):
    # The ranks reach the job API over the management link, as from other
    # machines; plaintext there needs --insecure (a test lab).
    api = f"{lab.mgmt_ip}:{free_tcp()}"
    lab.start(
        "controller",
        [esa_bin(), "controller", "--switch", switch_grpc, "--hosts", str(lab.hosts_file), "--listen", api,
         "--insecure", *program],
        ready="reconciling",
    )
    return api


def check_training(lab, api, epochs):
    gloo = lab.train("gloo", epochs)
    esa = lab.train("esa", epochs, ["--controller", api, "--hosts", str(lab.hosts_file)])
    print(f"gloo final_accuracy={gloo['final_accuracy']:.4f}, esa final_accuracy={esa['final_accuracy']:.4f}")
    ranks = esa["esa"]["ranks"]
    print("switch counters:", ranks[0]["switch"])
    print("worker counters:", [r["worker"] for r in ranks])
    assert gloo["final_accuracy"] > 0.85
    assert abs(esa["final_accuracy"] - gloo["final_accuracy"]) <= 0.01
    # In-network aggregation: chunks summed in the switch, results from it.
    assert ranks[0]["switch"]["completed"] > 0, ranks[0]["switch"]
    assert all(r["worker"]["from_switch"] > 0 for r in ranks)


def test_ranks_in_namespaces_through_esa_switch_on_veths(lab):
    grpc = f"127.0.0.1:{free_tcp()}"
    ports = [a for h in lab.hosts for a in ("-i", f"{h['port']}@{h['switch_side']}")]
    lab.start("switch", [esa_bin(), "switch", *ports, "--grpc-addr", grpc])
    api = start_controller(lab, grpc, "--p4", str(ROOT / "p4" / "v1model" / "esa.p4"), "-D",
                           f"ESA_LANES={LANES}")
    check_training(lab, api, epochs=4)


def test_ranks_in_namespaces_through_bmv2(lab):
    switch, p4c = bmv2_tool("simple_switch_grpc"), bmv2_tool("p4c-bm2-ss")
    if switch is None or p4c is None:
        pytest.skip("simple_switch_grpc or p4c-bm2-ss not found (PATH, $ESA_BMV2_DIR/bin)")
    out = lab.tmp / "bmv2"
    out.mkdir()
    run(p4c, "--arch", "v1model", "--std", "p4-16", f"-DESA_LANES={LANES}", "-DESA_POOL_SLOTS=256",
        "-o", str(out / "esa.json"), "--p4runtime-files", str(out / "esa.p4info.txtpb"),
        str(ROOT / "p4" / "v1model" / "esa.p4"))
    grpc = f"127.0.0.1:{free_tcp()}"
    ports = [a for h in lab.hosts for a in ("-i", f"{h['port']}@{h['switch_side']}")]
    lab.start("switch", [switch, "--device-id", "0", "--no-p4", "--thrift-port", str(free_tcp()), "-L", "off",
                         *ports, "--", "--grpc-server-addr", grpc])
    # BMv2 forwards a few thousand packets a second: a slot's stale bound
    # of 10 ms would reclaim slots still in use.
    api = start_controller(lab, grpc, "--bmv2-json", str(out / "esa.json"), "--p4info",
                           str(out / "esa.p4info.txtpb"), "--stale-after-us", "1000000")
    # BMv2 forwards a few thousand packets a second (an epoch is about 30 s
    # here): two epochs, gloo with the same two.
    check_training(lab, api, epochs=2)
