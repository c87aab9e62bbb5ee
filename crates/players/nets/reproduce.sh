#!/usr/bin/env bash
# Rebuild the shipped networks from nothing and check each is byte for byte
# the committed one.
#
# gen0.bin, gen1.bin and default.bin (gen2) were made by self-play with the
# search of their time and trained with candle, both as they were at commit
# f871246: this script runs that commit's recipe (its own reproduce.sh,
# about 35 minutes on 2 cores) in a copy of that commit, and compares the
# results with the committed files here.
#
#   bash crates/players/nets/reproduce.sh [WORKDIR] [FIRST]
#
# WORKDIR defaults to a fresh temp dir; FIRST=1 starts from the committed
# gen0.bin instead of rebuilding it.
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
same "$work/$old/gen2.bin" "$nets/default.bin"
