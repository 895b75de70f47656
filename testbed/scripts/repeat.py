#!/usr/bin/env python3
"""Runs an experiment several times per fabric, interleaved, and prints
per run each variant's mean JCT and ESA's ratio to ATP's and SwitchML's;
per variant the median and range over runs of the mean JCT, in-switch
share, retransmissions, probes and the PS link's bytes per chunk in and
out; and each variant's slowest job's slowdown against that job run alone.

    sudo python3 testbed/scripts/repeat.py testbed/experiments/contention.toml \
        --runs 5 --fabric inprocess --fabric netns --alone 3 --out /tmp/repeat

`--scale S` runs a copy of the file with `scale = S` (profile jobs at S
times their real size; testbed/README.md), e.g. `--scale 0.1`.

Needs a release build (cargo build --release); netns needs root. Every
number comes from the report.json files it leaves under --out.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ESA = os.environ.get(
    "ESA_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "target", "release", "esa")
)


def scaled_copy(path, scale, out):
    """The experiment with `scale = S` set at the top (replacing one)."""
    text = re.sub(r"(?m)^scale\s*=.*\n", "", open(path).read())
    first = re.search(r"(?m)^\[", text)
    at = first.start() if first else len(text)
    file = os.path.join(out, "scaled-" + os.path.basename(path))
    with open(file, "w") as f:
        f.write(text[:at] + f"scale = {scale}\n\n" + text[at:])
    return file


def run(experiment, fabric, out):
    # --yes: a study is started knowing it is long.
    cmd = [ESA, "run", experiment, "--quiet", "--yes", "--fabric", fabric, "--out", out]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f)


def alone_experiments(path, out):
    """One file per job: that job alone, arriving at 0, same switch and
    variants."""
    text = open(path).read()
    head, *jobs = re.split(r"(?m)^\[\[jobs\]\]\s*$", text)
    compare = ""
    if "[compare]" in jobs[-1]:
        jobs[-1], compare = jobs[-1].split("[compare]", 1)
        compare = "[compare]" + compare
    files = {}
    for body in jobs:
        name = re.search(r'(?m)^name\s*=\s*"([^"]+)"', body).group(1)
        body = re.sub(r"(?m)^arrival_ms\s*=.*$", "arrival_ms = 0", body)
        file = os.path.join(out, f"alone-{name}.toml")
        with open(file, "w") as f:
            f.write(head + "[[jobs]]\n" + body + "\n" + compare)
        files[name] = file
    return files


def main():
    p = argparse.ArgumentParser()
    p.add_argument("experiment")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--fabric", action="append", default=[])
    p.add_argument("--alone", type=int, default=0, help="runs of each job alone")
    p.add_argument("--out", default="/tmp/esa-repeat")
    p.add_argument("--scale", type=float, help="run the jobs at this scale of their real size")
    a = p.parse_args()
    fabrics = a.fabric or ["inprocess"]
    os.makedirs(a.out, exist_ok=True)
    if a.scale is not None:
        a.experiment = scaled_copy(a.experiment, a.scale, a.out)
    reports = {f: [] for f in fabrics}
    total = a.runs * len(fabrics)
    for i in range(a.runs):
        for f in fabrics:
            print(f"[{i * len(fabrics) + fabrics.index(f) + 1}/{total}] {f} run {i + 1}", file=sys.stderr)
            reports[f].append(run(a.experiment, f, os.path.join(a.out, f"{f}-{i + 1}")))
    alone = {f: {} for f in fabrics}
    if a.alone:
        files = alone_experiments(a.experiment, a.out)
        for f in fabrics:
            for name, file in files.items():
                for k in range(a.alone):
                    print(f"alone {f} {name} {k + 1}/{a.alone}", file=sys.stderr)
                    r = run(file, f, os.path.join(a.out, f"alone-{f}-{name}-{k + 1}"))
                    for j in r["jobs"]:
                        alone[f].setdefault((j["variant"], name), []).append(j["jct_ms"])
    for f in fabrics:
        rs = reports[f]
        print(f"\n== fabric {f}: {len(rs)} runs of {a.experiment}")
        for r in rs:
            assert all(j["verified"] for j in r["jobs"]), "a job did not verify"
        variants = [s["variant"] for s in rs[0]["summary"]]
        print("| run | " + " | ".join(f"{v} mean JCT (ms)" for v in variants) + " | esa/atp | esa/switchml |")
        for i, r in enumerate(rs, 1):
            m = {s["variant"]: s["mean_jct_ms"] for s in r["summary"]}
            print(f"| {i} | " + " | ".join(f"{m[v]:.1f}" for v in variants)
                  + f" | {ratio_of(m, 'atp')} | {ratio_of(m, 'switchml')} |")
        med = {v: statistics.median(s["mean_jct_ms"] for r in rs for s in r["summary"] if s["variant"] == v) for v in variants}
        print("| median | " + " | ".join(f"{med[v]:.1f}" for v in variants)
              + f" | {ratio_of(med, 'atp')} | {ratio_of(med, 'switchml')} |")
        print("\n| variant | " + " | ".join(f"{title}: median (range)" for title, _, _ in MEASURES) + " |")
        print("|---|" + "---:|" * len(MEASURES))
        for v in variants:
            cells = []
            for _, key, d in MEASURES:
                xs = sorted(key(s) for r in rs for s in r["summary"] if s["variant"] == v)
                cells.append(f"{statistics.median(xs):.{d}f} ({xs[0]:.{d}f}-{xs[-1]:.{d}f})")
            print(f"| {v} | " + " | ".join(cells) + " |")
        if alone[f]:
            for v in variants:
                worst = []
                for r in rs:
                    slow = max(
                        (j["jct_ms"] / statistics.median(alone[f][(v, j["name"])]), j["name"])
                        for j in r["jobs"] if j["variant"] == v
                    )
                    worst.append(slow)
                ws = sorted(w[0] for w in worst)
                names = sorted({w[1] for w in worst})
                print(f"{v}: slowest job's slowdown vs alone (median of {a.alone} alone runs): "
                      f"median {statistics.median(ws):.2f}x, range {ws[0]:.2f}-{ws[-1]:.2f}x (jobs: {', '.join(names)})")
            print("alone JCT medians (ms): " + ", ".join(
                f"{v}/{n} {statistics.median(x):.0f}" for (v, n), x in sorted(alone[f].items())))


# What each run's variant summary gives, by title.
MEASURES = [
    ("mean JCT (ms)", lambda s: s["mean_jct_ms"], 1),
    ("in-switch share (%)", lambda s: s["in_switch_share"] * 100, 1),
    ("retransmissions", lambda s: s["retransmissions"], 0),
    ("probes", lambda s: s["probes"], 0),
    ("PS bytes per chunk in", lambda s: s["ps_bytes_received_per_chunk"], 0),
    ("PS bytes per chunk out", lambda s: s["ps_bytes_sent_per_chunk"], 0),
]


def ratio_of(m, other):
    """ESA's mean JCT over another variant's (below 1: ESA's jobs finish
    sooner)."""
    esa = next((v for k, v in m.items() if k.startswith("esa")), None)
    base = m.get(other)
    return f"{esa / base:.3f}" if esa and base else "-"


if __name__ == "__main__":
    main()
