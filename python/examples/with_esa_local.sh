#!/usr/bin/env bash
# Runs a command against a fresh `esa local` (switch + controller on this
# machine, ports over UDP, no root) and stops it afterwards:
#
#   python/examples/with_esa_local.sh torchrun --standalone --nproc_per_node 4 \
#       python/examples/train_digits.py --backend esa
#
# ESA_BIN: the esa command (default: `esa` on PATH, else cargo run --release).
# ESA_LOCAL_ARGS: flags for `esa local` (default: none; see `esa local --help`).
set -euo pipefail
if [[ $# -eq 0 ]]; then
    echo "usage: $0 COMMAND [ARGS...]" >&2
    exit 2
fi
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [[ -n ${ESA_BIN:-} ]]; then
    esa=("$ESA_BIN")
elif command -v esa >/dev/null; then
    esa=(esa)
else
    esa=(cargo run --quiet --release --manifest-path "$root/Cargo.toml" --)
fi
log="$(mktemp -t esa-local.XXXXXX)"
# shellcheck disable=SC2086
"${esa[@]}" local ${ESA_LOCAL_ARGS:-} >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 600); do
    grep -q '^ready$' "$log" && break
    if ! kill -0 $pid 2>/dev/null; then
        echo "esa local did not start:" >&2
        cat "$log" >&2
        exit 1
    fi
    sleep 0.5
done
grep -q '^ready$' "$log" || { echo "esa local not ready after 300 s:" >&2; cat "$log" >&2; exit 1; }
head -n 1 "$log" >&2
# For commands that read the switch's CPU time (bench_allreduce.py).
export ESA_LOCAL_PID=$pid
"$@"
