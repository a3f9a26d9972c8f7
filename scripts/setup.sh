#!/usr/bin/env bash
# One idempotent set-up step shared by the quick start, the tests and CI:
# system packages the tests drive (no compiler: node-pty comes prebuilt), npm
# dependencies, and the TypeScript build. Screenshots need none of them (the
# raster renderer and its fonts come from npm); chromium is for the HTML
# report/player and the tests' reference renderer, ffmpeg for webm export.
# Fast when everything is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
for pair in vim:vim less:less htop:htop tmux:tmux asciinema:asciinema python3:python3 \
            chromium:chromium ffmpeg:ffmpeg git:git nano:nano whiptail:whiptail dialog:dialog tig:tig mc:mc \
            useradd:passwd runuser:util-linux setpriv:util-linux; do
  bin=${pair%%:*}; pkg=${pair##*:}
  command -v "$bin" >/dev/null 2>&1 || need_apt+=("$pkg")
done
# Python modules the tests drive (pip is not reachable from CI machines; Debian packages them).
python3 -c 'import prompt_toolkit' >/dev/null 2>&1 || need_apt+=(python3-prompt-toolkit)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup: installing ${need_apt[*]} with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >&2
  else
    echo "setup: missing ${need_apt[*]}; install them (Debian: apt-get install ${need_apt[*]})" >&2
  fi
fi

# npm dependencies: reinstall when the lockfile changed since the last install.
stamp=node_modules/.tapedeck-lock-stamp
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  echo "setup: npm ci" >&2
  npm ci --no-audit --no-fund >&2
  echo "$lock_sum" > "$stamp"
fi

bash scripts/build-if-stale.sh
