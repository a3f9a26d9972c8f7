#!/usr/bin/env bash
# Rebuilds dist/ when any source is newer than the last build (tests drive the built CLI),
# then bundles the bin into dist/bundle/ (scripts/bundle-cli.mjs says why).
# The stamp takes the time the build started, so a source saved during a build makes the next one rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f dist/.build-stamp ] || [ -n "$(find src tsconfig.json package.json scripts/bundle-cli.mjs scripts/bundle-loader.cjs scripts/bundle-code-cache.cjs scripts/vendor-fonts.mjs -newer dist/.build-stamp 2>/dev/null | head -n1)" ]; then
  echo "build: tsc" >&2
  started=$(mktemp)
  npx tsc -p tsconfig.json >&2
  node scripts/bundle-cli.mjs
  node scripts/vendor-fonts.mjs
  mv "$started" dist/.build-stamp
fi
