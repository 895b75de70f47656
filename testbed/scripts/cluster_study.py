#!/usr/bin/env python3
"""Summarises a cluster study (testbed/scripts/cluster_study.sh): one
markdown table per pool size (variants x loads, means over seeds), ESA's
gain over ATP, the largest slowdowns, and, when matplotlib is importable,
two plots beside the runs: mean JCT against load for every variant (one
panel per pool) and the JCT CDF per variant at the highest load on the
smallest pool.

Usage: cluster_study.py STUDY_DIR > study.md
"""

import json
import pathlib
import re
import statistics
import sys
from collections import defaultdict

RUN = re.compile(r"pool(\d+)-load([0-9.]+)-seed(\d+)$")


def load_runs(root):
    """{(pool, load, variant): [summary per seed]} and the per-job JCTs."""
    summaries = defaultdict(list)
    jobs = defaultdict(list)
    for report in sorted(root.glob("*/report.json")):
        m = RUN.match(report.parent.name)
        if not m:
            continue
        pool, load, seed = int(m[1]), float(m[2]), int(m[3])
        data = json.loads(report.read_text())
        for s in data["summary"]:
            if not s["verified"]:
                sys.exit(f"{report}: variant {s['variant']} did not verify")
            s = dict(s, seed=seed)
            summaries[(pool, load, s["variant"])].append(s)
        for j in data["jobs"]:
            jobs[(pool, load, j["variant"])].append(j)
    return summaries, jobs


def mean(values):
    return statistics.fmean(values) if values else float("nan")


def main():
    root = pathlib.Path(sys.argv[1])
    summaries, jobs = load_runs(root)
    if not summaries:
        sys.exit(f"{root}: no runs (pool*-load*-seed*/report.json)")
    pools = sorted({k[0] for k in summaries})
    loads = sorted({k[1] for k in summaries})
    variants = []
    for k in summaries:
        if k[2] not in variants:
            variants.append(k[2])
    seeds = sorted({s["seed"] for v in summaries.values() for s in v})
    print(f"Seeds {', '.join(map(str, seeds))}; means over seeds.\n")
    for pool in pools:
        print(f"### Pool of {pool} slots\n")
        print("| variant | " + " | ".join(
            f"load {l}: mean JCT / p95 JCT (ms), max slowdown, utilization" for l in loads) + " |")
        print("|---|" + "---:|" * len(loads))
        for v in variants:
            cells = []
            for l in loads:
                runs = summaries.get((pool, l, v), [])
                c = [r["cluster"] for r in runs]
                cells.append("{:.1f} / {:.1f}, {:.2f}, {:.2f}%".format(
                    mean([x["mean_jct_ms"] for x in c]),
                    mean([x["p95_jct_ms"] for x in c]),
                    max([x["max_slowdown"] for x in c], default=float("nan")),
                    mean([x["aggregator_utilization"] for x in c]) * 100))
            print(f"| {v} | " + " | ".join(cells) + " |")
        print()
        # ESA's gain: ATP's mean JCT over each ESA policy's, per seed, then
        # the mean and range of the ratio.
        if any(v == "atp" for v in variants):
            print("| ESA policy | " + " | ".join(
                f"load {l}: ATP JCT / ESA JCT (min..max over seeds)" for l in loads) + " |")
            print("|---|" + "---:|" * len(loads))
            for v in (x for x in variants if x.startswith("esa")):
                cells = []
                for l in loads:
                    atp = {r["seed"]: r["cluster"]["mean_jct_ms"]
                           for r in summaries.get((pool, l, "atp"), [])}
                    ratios = [atp[r["seed"]] / r["cluster"]["mean_jct_ms"]
                              for r in summaries.get((pool, l, v), []) if r["seed"] in atp]
                    cells.append("{:.3f}x ({:.3f}..{:.3f})".format(
                        mean(ratios), min(ratios, default=float("nan")),
                        max(ratios, default=float("nan"))))
                print(f"| {v} | " + " | ".join(cells) + " |")
            print()
    plot(root, pools, loads, variants, summaries, jobs)


def plot(root, pools, loads, variants, summaries, jobs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        # Text as SVG text, not glyph outlines: smaller files.
        matplotlib.rcParams["svg.fonttype"] = "none"
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no plots: matplotlib is not importable)")
        return
    fig, axes = plt.subplots(1, len(pools), figsize=(6 * len(pools), 4.5), squeeze=False)
    for ax, pool in zip(axes[0], pools):
        for v in variants:
            ys = [mean([r["cluster"]["mean_jct_ms"]
                        for r in summaries.get((pool, l, v), [])]) for l in loads]
            ax.plot(loads, ys, marker="o", label=v)
        ax.set_title(f"pool of {pool} slots")
        ax.set_xlabel("offered load")
        ax.set_ylabel("mean JCT (ms), mean over seeds")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(root / "jct_vs_load.svg")
    pool, load = pools[0], loads[-1]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for v in variants:
        jcts = sorted(j["jct_ms"] for j in jobs.get((pool, load, v), []) if j["jct_ms"] > 0)
        if jcts:
            ax.step(jcts, [(i + 1) / len(jcts) for i in range(len(jcts))], where="post", label=v)
    ax.set_title(f"JCT CDF, pool of {pool} slots, load {load}, every seed")
    ax.set_xlabel("JCT (ms)")
    ax.set_ylabel("fraction of jobs")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(root / "jct_cdf.svg")
    print(f"Plots: {root / 'jct_vs_load.svg'}, {root / 'jct_cdf.svg'}")


if __name__ == "__main__":
    main()
