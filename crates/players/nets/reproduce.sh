#!/usr/bin/env bash
# Rebuild the shipped networks from nothing and check each is byte for byte
# the committed one. Two generations:
#
# 0. gen0.bin (the first shipped net, issue 6): the depth-4 tuned alpha-beta
#    plays itself (8,000 and 40,000 games, ~2.1 M positions), 12 epochs.
#    About 10 minutes on 2 cores.
# 1. gen1.bin: the nn player with gen0.bin, at depth 5, plays itself
#    (32,000 games, ~1.4 M positions, labelled by its own search), trained
#    with repeated positions dropped, 12 epochs, 64 wide. About 10 minutes more.
# 2. default.bin (gen2): the same with gen1.bin, 32,000 games more, and a
#    128-wide net trained on both sets. About 15 minutes more.
#
# Self-play depends on the search as well as the net: a later change to the
# search gives other games, so this reproduces with the search of the commit
# that shipped the net.
#
#   bash crates/players/nets/reproduce.sh [WORKDIR] [FIRST]
#
# WORKDIR defaults to a fresh temp dir; FIRST=1 starts from the committed
# gen0.bin instead of rebuilding it.
set -euo pipefail
nets="$(cd "$(dirname "$0")" && pwd)"
cd "$nets/../../.."
work="${1:-$(mktemp -d)}"
first="${2:-0}"
mkdir -p "$work"

cargo build --release --quiet -p yolah-cli
yolah=target/release/yolah

same() {
    if cmp -s "$1" "$2"; then
        echo "reproduced: $1 is identical to $2"
    else
        echo "differs: $1 is not $2" >&2
        exit 1
    fi
}

if [ "$first" -le 0 ]; then
    "$yolah" selfplay --player alphabeta:depth=4 --games 8000 --seed 7 --threads 2 --out "$work/d4_8k.bin"
    "$yolah" selfplay --player alphabeta:depth=4 --games 40000 --seed 8 --threads 2 --out "$work/d4_40k.bin"
    "$yolah" train --data "$work/d4_8k.bin" "$work/d4_40k.bin" --out "$work/gen0.bin" --epochs 12 --seed 1 --width 64
    same "$work/gen0.bin" "$nets/gen0.bin"
fi

"$yolah" selfplay --player "nn:depth=5,net=$nets/gen0.bin" --games 32000 --seed 9 --threads 2 --out "$work/gen0_d5_32k.bin"
"$yolah" train --data "$work/gen0_d5_32k.bin" --out "$work/gen1.bin" --epochs 12 --seed 1 --dedup --width 64
same "$work/gen1.bin" "$nets/gen1.bin"

"$yolah" selfplay --player "nn:depth=5,net=$nets/gen1.bin" --games 32000 --seed 21 --threads 2 --out "$work/gen1_d5_32k.bin"
"$yolah" train --data "$work/gen1_d5_32k.bin" "$work/gen0_d5_32k.bin" --out "$work/gen2.bin" --epochs 12 --seed 1 --dedup --width 128
same "$work/gen2.bin" "$nets/default.bin"
