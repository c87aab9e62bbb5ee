#!/usr/bin/env bash
# Rebuild the shipped networks from nothing and check each is byte for byte
# the committed one.
#
# gen0.bin, gen1.bin and gen2.bin were made by self-play with the
# search of their time and trained with candle, both as they were at commit
# f871246: this script runs that commit's recipe (its own reproduce.sh,
# about 35 minutes on 2 cores) in a copy of that commit, and compares the
# results with the committed files here. default.bin (gen3) is then made by
# this tree's `yolah`: gen2 plays itself, the solver labels what it settles,
# and the Rust trainer fits the net (README.md, about 25 minutes more).
#
#   bash crates/players/nets/reproduce.sh [WORKDIR] [FIRST]
#
# WORKDIR defaults to a fresh temp dir; FIRST=1 starts from the committed
# gen0.bin instead of rebuilding it, FIRST=3 makes gen3 alone.
set -euo pipefail
nets="$(cd "$(dirname "$0")" && pwd)"
root="$(git -C "$nets" rev-parse --show-toplevel)"
work="${1:-$(mktemp -d)}"
first="${2:-0}"
mkdir -p "$work"

same() {
    if cmp -s "$1" "$2"; then
        echo "reproduced: $1 is identical to $2"
    else
        echo "differs: $1 is not $2" >&2
        exit 1
    fi
}

# The networks of the first format, in the tree where they were made.
if [ "$first" -le 1 ]; then
    old=f871246
    tree="$work/tree-$old"
    if [ ! -d "$tree" ]; then
        mkdir -p "$tree"
        git -C "$root" archive "$old" | tar -x -C "$tree"
    fi
    bash "$tree/crates/players/nets/reproduce.sh" "$work/$old" "$first"
    if [ "$first" -le 0 ]; then
        same "$work/$old/gen0.bin" "$nets/gen0.bin"
    fi
    same "$work/$old/gen1.bin" "$nets/gen1.bin"
    same "$work/$old/gen2.bin" "$nets/gen2.bin"
fi

# gen3, with this tree's yolah: the search as gen2's games were played
# (aspiration windows and time management off), 28 shards of one run.
(cd "$root" && cargo build --release --locked -q -p yolah-cli)
yolah="$root/target/release/yolah"
gen3="$work/gen3"
mkdir -p "$gen3"
shards=()
for k in $(seq 1 28); do
    out="$gen3/sp_$k.bin"
    if [ ! -f "$out.shard.json" ]; then
        "$yolah" selfplay --player "nn:depth=5,net=$nets/gen2.bin,asp=0,tm=0" --games 100000 \
            --seed 3201 --threads 2 --shard "$k/50" --out "$out"
    fi
    shards+=("$out")
done
"$yolah" label --data "${shards[@]}" --out-dir "$gen3/exact" --threads 2
labelled=()
for k in $(seq 1 28); do labelled+=("$gen3/exact/sp_$k.bin"); done
"$yolah" train --data "${labelled[@]}" --out "$gen3/gen3.bin" --epochs 12 --seed 1 --dedup \
    --width 128 --batch 512 --threads 2
same "$gen3/gen3.bin" "$nets/default.bin"
