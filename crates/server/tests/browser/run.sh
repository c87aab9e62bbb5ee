#!/usr/bin/env bash
# Browser end-to-end test: installs Debian's Chromium and playwright-core if
# missing, builds yolah, and plays the site in two browsers (a desktop and a
# phone) and a watcher: see e2e.mjs.
# Usage: bash crates/server/tests/browser/run.sh [SCREENSHOT_DIR]
#   SCREENSHOT_DIR: where each screen's PNG goes (docs/site to refresh the
#   docs' screenshots); YOLAH=path/to/yolah to test a binary already built.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
if ! command -v chromium >/dev/null 2>&1; then
  bash "$root/.ci/apt-install" chromium
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && npm install --no-audit --no-fund --silent)
fi
if [ -z "${YOLAH:-}" ]; then
  cargo build --release -q -p yolah-cli --manifest-path "$root/Cargo.toml"
  YOLAH="$root/target/release/yolah"
fi
node "$here/e2e.mjs" "$YOLAH" "${1:-}"
# Screenshots for the docs are kept small: 256 colours (Debian's pngquant).
if [ -n "${1:-}" ] && command -v pngquant >/dev/null 2>&1; then
  pngquant --quality 60-90 --speed 1 --force --ext .png "$1"/*.png
fi
