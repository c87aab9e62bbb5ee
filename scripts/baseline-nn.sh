#!/usr/bin/env bash
# Builds the `nn` player of an earlier commit, REV, and prints the spec
# that plays it through the engine protocol:
#
#   yolah match nn:time=100ms "$(scripts/baseline-nn.sh REV),time=100ms" --games 400
#
# REV f871246 is `nn` as issue 32 found it (gen2, the 128-wide network of
# issue 15, and that search): the baseline the issue's +200 Elo is
# measured against. Without REV, eb9ee86: `nn` before issue 15 (the net
# and search of commit 36f1313, which plays identically; eb9ee86 also
# speaks the engine protocol).
#
# The build lives in target/baseline/ and is reused.
set -euo pipefail
rev=${1:-eb9ee86}
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
bin="$root/target/baseline/$rev/yolah"
if [ ! -x "$bin" ]; then
    src=$(mktemp -d)
    trap 'rm -rf "$src"' EXIT
    git -C "$root" archive "$rev" | tar -x -C "$src"
    (cd "$src" && cargo build --release --locked -q -p yolah-cli --no-default-features \
        --target-dir "$root/target/baseline/build" >&2)
    mkdir -p "$(dirname "$bin")"
    cp "$root/target/baseline/build/release/yolah" "$bin"
fi
echo "engine:cmd=$bin engine --player nn,name=nn-$rev"
