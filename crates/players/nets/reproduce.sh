#!/usr/bin/env bash
# Rebuild the shipped networks from nothing and check each is byte for byte
# the committed one.
#
# gen0.bin, gen1.bin and gen2.bin were made by self-play with the
# search of their time and trained with candle, both as they were at commit
# f871246: this script runs that commit's recipe (its own reproduce.sh,
# about 35 minutes on 2 cores) in a copy of that commit, and compares the
# results with the committed files here. gen3.bin, gen4.bin and then
# default.bin (maps100h) are made by this tree's `yolah`: the previous net
# plays itself, the solver labels what it settles, and the Rust trainer fits
# the next (README.md; about 25 minutes more for gen3, 80 for gen4 and 90
# for maps100h on 2 cores).
#
#   bash crates/players/nets/reproduce.sh [WORKDIR] [FIRST]
#
# WORKDIR defaults to a fresh temp dir; FIRST=1 starts from the committed
# gen0.bin instead of rebuilding it, FIRST=3 starts from the committed
# gen2.bin, FIRST=4 makes gen4 and maps100h from the committed gen3.bin,
# FIRST=5 makes maps100h alone from the committed gen4.bin.
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

# gen3 and gen4, with this tree's yolah: the search as the games were played
# (aspiration windows and time management off, the 16 MiB table and the
# late-move reductions of then, and no exact regions: `nwr` and `xr` became
# defaults later),
# the first shards of one run.
(cd "$root" && cargo build --release --locked -q -p yolah-cli)
yolah="$root/target/release/yolah"

# generation NAME TEACHER SEED GAMES SHARDS_OF USED EXPLORE EXPECTED TRAIN_FLAGS...
generation() {
    local name=$1 teacher=$2 seed=$3 games=$4 of=$5 used=$6 explore=$7 expected=$8
    shift 8
    local dir="$work/$name"
    mkdir -p "$dir"
    local shards=() labelled=()
    for k in $(seq 1 "$used"); do
        local out="$dir/sp_$k.bin"
        if [ ! -f "$out.shard.json" ]; then
            "$yolah" selfplay --player "nn:depth=5,net=$teacher,asp=0,tm=0,hash=16,nwr=0,xr=0" --games "$games" \
                --seed "$seed" --explore "$explore" --threads 2 --shard "$k/$of" --out "$out"
        fi
        shards+=("$out")
        labelled+=("$dir/exact/sp_$k.bin")
    done
    "$yolah" label --data "${shards[@]}" --out-dir "$dir/exact" --threads 2
    "$yolah" train --data "${labelled[@]}" --out "$dir/$name.bin" --epochs 12 --seed 1 --dedup \
        --batch 512 --threads 2 "$@"
    same "$dir/$name.bin" "$expected"
}

# gen3 and gen4 stepped the first layer at the full rate, maps100h at half.
if [ "$first" -le 3 ]; then
    generation gen3 "$nets/gen2.bin" 3201 100000 50 28 0 "$nets/gen3.bin" --width 128 --first-layer-rate 1
fi
if [ "$first" -le 4 ]; then
    generation gen4 "$nets/gen3.bin" 4201 400000 200 74 0 "$nets/gen4.bin" --width 256 --first-layer-rate 1
fi
# gen4's games, straying one move in ten while more than 26 squares are
# free, and a layer on the maps.
generation maps100h "$nets/gen4.bin" 4401 400000 200 100 0.1 "$nets/default.bin" \
    --width 256 --maps --first-layer-rate 0.5
