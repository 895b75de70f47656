"""The cluster study through Ray (cluster_study_runs.py --ray, on this
machine's cores) collects the same tables as the serial path, and a failed
run is named with its stderr. Needs ray importable by this Python and the
esa binary ($ESA_BIN, else this tree's target/{debug,release}/esa)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
RUNS = ROOT / "testbed" / "scripts" / "cluster_study_runs.py"

# Two seeds, two loads, one pool that the four jobs' windows contend for,
# two variants: four runs of well under a second each, debug build or not.
SMALL_GRID = {
    "SEEDS": "1 2",
    "LOADS": "0.6 0.9",
    "POOLS": "2048",
    "JOBS": "4",
    "WORKERS": "4",
    "ITERATIONS": "2",
    "WINDOW": "512",
    "SCALE": "0.01",
    "VARIANTS": '["esa/srpt", "atp"]',
}
RUN_NAMES = [f"pool2048-load{load}-seed{seed}" for seed in (1, 2) for load in ("0.6", "0.9")]

# What a run measures in wall-clock time; everything else is a function of
# the experiment and its seed.
WALL_CLOCK = {"wall_ms", "events_per_s"}


def esa_bin():
    if os.environ.get("ESA_BIN"):
        return os.environ["ESA_BIN"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for profile in ("debug", "release"):
        if (target / profile / "esa").exists():
            return str(target / profile / "esa")
    pytest.fail("no esa binary: build it (cargo build) or set ESA_BIN")


def study(out, *args, **grid):
    """cluster_study_runs.py on SMALL_GRID (updated by `grid`) into `out`."""
    env = {**os.environ, **SMALL_GRID, **grid, "ESA": esa_bin(), "OUT": str(out)}
    env.pop("RAY_ADDRESS", None)
    return subprocess.run([sys.executable, str(RUNS), *args], env=env, capture_output=True,
                          text=True, timeout=300)


def without_wall_clock(value):
    if isinstance(value, dict):
        return {k: without_wall_clock(v) for k, v in value.items() if k not in WALL_CLOCK}
    if isinstance(value, list):
        return [without_wall_clock(v) for v in value]
    return value


def test_ray_collects_the_serial_tables(tmp_path):
    serial = study(tmp_path / "serial")
    assert serial.returncode == 0, serial.stderr
    on_ray = study(tmp_path / "ray", "--ray")
    assert on_ray.returncode == 0, on_ray.stderr
    assert "Ray at local: 1 node(s)" in on_ray.stderr, on_ray.stderr
    progress = re.findall(r"(?m)^\[(\d+)/4, \d+ s\] (\S+) \(", on_ray.stderr)
    assert [done for done, _ in progress] == ["1", "2", "3", "4"], on_ray.stderr
    assert sorted(name for _, name in progress) == sorted(RUN_NAMES)

    table = (tmp_path / "serial" / "study.md").read_bytes()
    assert b"### Pool of 2048 slots" in table
    assert b"| variant | load 0.6 | load 0.9 |" in table
    for variant in (b"esa/srpt", b"atp"):
        assert b"| " + variant + b" | " in table
    assert (tmp_path / "ray" / "study.md").read_bytes() == table

    for name in RUN_NAMES:
        serial_run, ray_run = tmp_path / "serial" / name, tmp_path / "ray" / name
        files = sorted(p.name for p in serial_run.iterdir())
        assert "report.json" in files and "table.txt" in files
        assert sorted(p.name for p in ray_run.iterdir()) == files
        reports = [json.loads((d / "report.json").read_text()) for d in (serial_run, ray_run)]
        assert all(s["verified"] for s in reports[0]["summary"])
        assert without_wall_clock(reports[1]) == without_wall_clock(reports[0]), name


def test_a_failed_run_is_named_with_its_stderr(tmp_path):
    failed = study(tmp_path, "--ray", VARIANTS='["esa/nosuch"]')
    assert failed.returncode != 0
    for name in RUN_NAMES:
        assert f"{name} failed on " in failed.stderr, failed.stderr
    assert 'unknown priority policy "nosuch"' in failed.stderr
    assert "4 of 4 runs failed" in failed.stderr
    assert not (tmp_path / "study.md").exists()
