#!/usr/bin/env python3
"""Summarises a cluster study (testbed/scripts/cluster_study.sh).

Per pool size, one table per measure (variants x loads): the mean over
seeds with its 95 % confidence interval (Student's t over the seeds' values,
each seed one independent workload), for the mean JCT, the p95 JCT, the mean
and largest slowdown, the in-switch share, retransmissions and the PS link's
bytes per chunk in and out. Then ESA's ratios against ATP and SwitchML, per
seed on the same workload (paired), averaged with their 95 % interval, for
the mean and the p95 JCT: above 1 means ESA's JCT is shorter. When
matplotlib is importable, two plots beside the runs: mean JCT against load
per variant with its interval (one panel per pool), and the JCT CDF per
variant at the highest load on the smallest pool.

Usage: cluster_study.py STUDY_DIR > study.md
"""

import json
import math
import pathlib
import re
import statistics
import sys
from collections import defaultdict

RUN = re.compile(r"pool(\d+)-load([0-9.]+)-seed(\d+)$")

# Two-sided 97.5 % quantiles of Student's t by degrees of freedom (1..30).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


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


def interval(values):
    """(mean, half-width of the 95 % confidence interval); the half-width is
    nan for fewer than two values."""
    if not values:
        return float("nan"), float("nan")
    m = statistics.fmean(values)
    n = len(values)
    if n < 2:
        return m, float("nan")
    t = T975[min(n - 1, len(T975)) - 1]
    return m, t * statistics.stdev(values) / math.sqrt(n)


def fmt(values, digits):
    m, h = interval(values)
    if math.isnan(m):
        return "-"
    if math.isnan(h):
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} ± {h:.{digits}f}"


# (title, value of one variant's summary, digits)
MEASURES = [
    ("mean JCT (ms)", lambda s: s["cluster"]["mean_jct_ms"], 1),
    ("p95 JCT (ms)", lambda s: s["cluster"]["p95_jct_ms"], 1),
    ("mean slowdown", lambda s: s["cluster"]["mean_slowdown"], 3),
    ("max slowdown", lambda s: s["cluster"]["max_slowdown"], 3),
    ("in-switch share (%)", lambda s: s["in_switch_share"] * 100, 1),
    ("retransmissions", lambda s: s["retransmissions"], 0),
    ("PS bytes per chunk in / out", None, 0),
]


def ratios(summaries, pool, load, esa, other, key):
    """Per seed, other's value over ESA's (above 1: ESA shorter)."""
    base = {r["seed"]: key(r) for r in summaries.get((pool, load, other), [])}
    return [base[r["seed"]] / key(r)
            for r in summaries.get((pool, load, esa), []) if r["seed"] in base]


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
    print(f"Seeds {', '.join(map(str, seeds))}: every cell is the mean over seeds "
          "± the half-width of its 95 % confidence interval (Student's t).\n")
    header = "| variant | " + " | ".join(f"load {l}" for l in loads) + " |"
    rule = "|---|" + "---:|" * len(loads)
    for pool in pools:
        print(f"### Pool of {pool} slots\n")
        for title, key, digits in MEASURES:
            print(f"{title}:\n")
            print(header)
            print(rule)
            for v in variants:
                cells = []
                for l in loads:
                    runs = summaries.get((pool, l, v), [])
                    if key is None:
                        cells.append("{} / {}".format(
                            fmt([r["ps_bytes_received_per_chunk"] for r in runs], 0),
                            fmt([r["ps_bytes_sent_per_chunk"] for r in runs], 0)))
                    else:
                        cells.append(fmt([key(r) for r in runs], digits))
                print(f"| {v} | " + " | ".join(cells) + " |")
            print()
        others = [o for o in ("atp", "switchml") if o in variants]
        esas = [v for v in variants if v.startswith("esa")]
        if others and esas:
            print("ESA's gain, per seed on the same workload: the other scheme's JCT over "
                  "ESA's (above 1: ESA's jobs finish sooner):\n")
            print("| ESA policy vs | " + " | ".join(f"load {l}" for l in loads) + " |")
            print(rule)
            for v in esas:
                for o in others:
                    for what, key in (("mean", lambda s: s["cluster"]["mean_jct_ms"]),
                                      ("p95", lambda s: s["cluster"]["p95_jct_ms"])):
                        cells = [fmt(ratios(summaries, pool, l, v, o, key), 3) + "x"
                                 for l in loads]
                        print(f"| {v} vs {o}, {what} JCT | " + " | ".join(cells) + " |")
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
            stats = [interval([r["cluster"]["mean_jct_ms"]
                               for r in summaries.get((pool, l, v), [])]) for l in loads]
            ax.errorbar(loads, [m for m, _ in stats],
                        yerr=[0 if math.isnan(h) else h for _, h in stats],
                        marker="o", capsize=3, label=v)
        ax.set_title(f"pool of {pool} slots")
        ax.set_xlabel("offered load")
        ax.set_ylabel("mean JCT (ms), mean over seeds, 95% interval")
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
