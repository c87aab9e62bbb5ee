#!/usr/bin/env bash
# Browser end-to-end test: installs Debian's Chromium and playwright-core if
# missing, builds yolah, and plays a game by clicking.
# Usage: bash crates/server/tests/browser/run.sh [SCREENSHOT.png]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq chromium
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && npm install --no-audit --no-fund --silent)
fi
cargo build --release -q -p yolah-cli --manifest-path "$root/Cargo.toml"
node "$here/e2e.mjs" "$root/target/release/yolah" "${1:-}"
