#!/usr/bin/env bash
# The cluster study of docs/results.md ("Cluster scale in virtual time"):
# ESA under each priority policy, ATP, SwitchML and no in-network
# aggregation, on the same Poisson workloads, across offered load, pool size
# and seeds, all on the sim fabric. Writes every run's report under $OUT and
# the summary (study.md, and plots when matplotlib is importable) beside
# them. cluster_study_runs.py writes the grid and runs it: one run after
# another here, or with --ray as Ray tasks, on this machine's cores or on
# the cluster --address (or RAY_ADDRESS) names; PYTHON must then import ray.
#
#   testbed/scripts/cluster_study.sh                  # the study as published
#   SEEDS="1" LOADS="0.6" POOLS="2048" testbed/scripts/cluster_study.sh   # one point
#   PYTHON=venv/bin/python testbed/scripts/cluster_study.sh --ray        # on Ray, here
#   PYTHON=venv/bin/python testbed/scripts/cluster_study.sh --address auto   # a Ray cluster
#
# Knobs (environment): ESA (the binary), OUT, SEEDS, LOADS, POOLS, JOBS,
# WORKERS, ITERATIONS, WINDOW, SCALE, LOAD_POOL, VARIANTS (a TOML array),
# PYTHON; their defaults are in cluster_study_runs.py.
set -euo pipefail

cd "$(dirname "$0")/../.."
exec "${PYTHON:-python3}" testbed/scripts/cluster_study_runs.py "$@"
