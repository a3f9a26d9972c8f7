#!/usr/bin/env bash
# Rebuilds dist/ when any source is newer than the last build (tests drive the built CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f dist/.build-stamp ] || [ -n "$(find src tsconfig.json package.json -newer dist/.build-stamp 2>/dev/null | head -n1)" ]; then
  echo "build: tsc" >&2
  npx tsc -p tsconfig.json >&2
  touch dist/.build-stamp
fi
