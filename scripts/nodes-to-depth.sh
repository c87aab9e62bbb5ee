#!/usr/bin/env bash
# Nodes and seconds a player takes to search a fixed depth, summed over a
# list of positions (one line of moves from the start each): a repeatable
# measure of how well a search change or a table size spends its nodes,
# without the noise of a match.
#
#   scripts/nodes-to-depth.sh YOLAH SPEC [POSITIONS]
#   scripts/nodes-to-depth.sh target/release/yolah nn:depth=12,hash=16
#
# POSITIONS defaults to scripts/middle-game-16.txt: 16 positions after 16
# plies. Line g (1 to 16): ply p from 1 to 4 is the move of
# `yolah analyse --player random:seed=$((7000 + 10 * g + p))`, plies 5 to 16
# those of nn:depth=3, each from the moves before it (commit 3a39695).
set -euo pipefail
yolah=$1
spec=$2
positions=${3:-$(dirname "$0")/middle-game-16.txt}
while read -r moves; do
    "$yolah" analyse --moves "$moves" --player "$spec" --json
    echo
done < "$positions" | python3 -c '
import json, sys
nodes = seconds = 0
for line in sys.stdin:
    if line.strip():
        r = json.loads(line)
        nodes += r["nodes"]
        seconds += r["seconds"]
print(f"{nodes} nodes in {seconds:.2f} s ({nodes / seconds / 1e6:.2f} M nodes/s)")'
