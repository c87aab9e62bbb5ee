#!/usr/bin/env bash
# Rebuild crates/players/nets/default.bin from nothing and check it is byte for byte the
# committed one. About 10 minutes on 2 cores: two self-play runs of the
# depth-4 tuned alpha-beta (8,000 and 40,000 games, ~2.1 M positions, ~67 MB)
# and 12 epochs of training.
#
#   bash crates/players/nets/reproduce.sh [WORKDIR]    # WORKDIR defaults to a fresh temp dir
set -euo pipefail
nets="$(cd "$(dirname "$0")" && pwd)"
cd "$nets/../../.."
work="${1:-$(mktemp -d)}"
mkdir -p "$work"

cargo build --release --quiet -p yolah-cli
yolah=target/release/yolah

"$yolah" selfplay --player alphabeta:depth=4 --games 8000 --seed 7 --threads 2 --out "$work/d4_8k.bin"
"$yolah" selfplay --player alphabeta:depth=4 --games 40000 --seed 8 --threads 2 --out "$work/d4_40k.bin"
"$yolah" train --data "$work/d4_8k.bin" "$work/d4_40k.bin" --out "$work/net.bin" --epochs 12 --seed 1

if cmp -s "$work/net.bin" "$nets/default.bin"; then
    echo "reproduced: $work/net.bin is identical to $nets/default.bin"
else
    echo "differs: $work/net.bin is not $nets/default.bin" >&2
    exit 1
fi
