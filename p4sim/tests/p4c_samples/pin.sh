#!/usr/bin/env bash
# Copies, from a p4c checkout at the pinned commit (fetch.sh), the files
# tests/all/p4c_samples.rs reads into the pinned copy beside this script
# (p4c/), which the tests use when ESA_P4C_DIR is not set:
#
#   p4sim/tests/p4c_samples/fetch.sh /tmp/p4c
#   p4sim/tests/p4c_samples/pin.sh /tmp/p4c
#
# The copy holds the programs that include v1model.p4 or BMv2's psa.p4
# (bmv2/psa.p4) and have a BMv2 STF test (*-bmv2.p4 with an .stf), every
# program with a P4Info golden, the files they include with "...", their
# STF files and goldens, p4c's p4include, and p4c's license: about 3 MB
# of p4c's testdata, not p4c itself.
set -euo pipefail
SRC=${1:?usage: pin.sh P4C_CHECKOUT}
SRC=$(cd "$SRC" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
DEST="$here/p4c"
samples="$SRC/testdata/p4_16_samples"
outputs="$SRC/testdata/p4_16_samples_outputs"
[[ -d $samples && -d $outputs && -d $SRC/p4include ]] || {
    echo "$SRC is not a p4c checkout (fetch.sh)" >&2
    exit 1
}
commit=$(sed -n 's/^COMMIT=\([0-9a-f]*\).*/\1/p' "$here/fetch.sh")
if head=$(git -C "$SRC" rev-parse --verify -q HEAD 2>/dev/null) && [[ $head != "$commit" ]]; then
    echo "$SRC is at $head, fetch.sh pins $commit" >&2
    exit 1
fi

runs() { grep -Eq 'include.*(v1model\.p4|bmv2/psa\.p4)' "$1"; }

declare -A keep=()
for stf in "$samples"/*-bmv2.stf; do
    p4=${stf%.stf}.p4
    [[ -f $p4 ]] && runs "$p4" && keep[${p4#"$SRC"/}]=1 && keep[${stf#"$SRC"/}]=1
done
for golden in "$outputs"/*.p4.p4info.txtpb; do
    name=$(basename "$golden" .p4info.txtpb)
    p4="$samples/$name"
    [[ -f $p4 ]] && keep[${p4#"$SRC"/}]=1 && keep[${golden#"$SRC"/}]=1
done
# Files the programs include by a relative path, and what those include.
queue=("${!keep[@]}")
while ((${#queue[@]})); do
    file=${queue[0]}
    queue=("${queue[@]:1}")
    [[ $file == *.p4 ]] || continue
    while read -r inc; do
        target=$(realpath -m "$SRC/$(dirname "$file")/$inc")
        rel=${target#"$SRC"/}
        if [[ -f $target && -z ${keep[$rel]:-} ]]; then
            keep[$rel]=1
            queue+=("$rel")
        fi
    done < <(sed -n 's/^[[:space:]]*#include[[:space:]]*"\([^"]*\)".*/\1/p' "$SRC/$file")
done

rm -rf "$DEST"
mkdir -p "$DEST"
(cd "$SRC" && printf '%s\n' "${!keep[@]}" | sort | tar -cf - -T - p4include testdata/REUSE.toml LICENSES/Apache-2.0.txt) |
    tar -C "$DEST" -xf -
cat > "$DEST/PINNED" <<PIN
p4lang/p4c $commit
Made by ../pin.sh from a checkout at that commit; do not edit by hand.
Apache-2.0 (LICENSES/Apache-2.0.txt, testdata/REUSE.toml).
PIN
echo "$DEST: $(find "$DEST" -type f | wc -l) files, $(du -sh "$DEST" | cut -f1), p4c $commit" >&2
