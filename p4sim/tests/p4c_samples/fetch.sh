#!/usr/bin/env bash
# Fetches p4c's test programs and includes at the commit p4sim is checked
# against (testdata/p4_16_samples, testdata/p4_16_samples_outputs and
# p4include; about 40 MB). The tests read the pinned copy of the part they
# use (p4c/, made from such a checkout by pin.sh), so this is for moving the
# pin to another commit (change COMMIT, fetch, pin.sh, update the known
# failures) or for running the tests on a whole checkout:
#
#   p4sim/tests/p4c_samples/fetch.sh /tmp/p4c
#   ESA_P4C_DIR=/tmp/p4c cargo test -p p4sim --test all p4c_samples -- --nocapture
#
# P4C_REMOTE names another clone of p4c to fetch from (a mirror). Needs git
# and access to GitHub.
set -euo pipefail
COMMIT=34b86e9bacb932c799aaf1b83495ce1e386ea047 # p4lang/p4c, 2026-08-07
REMOTE=${P4C_REMOTE:-https://github.com/p4lang/p4c.git}
DEST=${1:?usage: fetch.sh DIR}
mkdir -p "$DEST"
cd "$DEST"
[ -d .git ] || git init -q
git remote remove origin 2>/dev/null || true
git remote add origin "$REMOTE"
git sparse-checkout set --no-cone /testdata/p4_16_samples/ /testdata/p4_16_samples_outputs/ /p4include/
echo "fetching p4lang/p4c at $COMMIT ..." >&2
git fetch -q --depth 1 --filter=blob:none origin "$COMMIT"
git checkout -q --detach "$COMMIT"
echo "$DEST: $(ls testdata/p4_16_samples/*-bmv2.stf | wc -l) BMv2 STF tests" >&2
