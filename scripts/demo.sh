#!/usr/bin/env bash
# The quick start's first command: set up, then do tapedeck's main job on the
# bundled examples — record fresh protocol tapes through the tap with scripted
# clients, and replay both them and the checked-in goldens against fresh servers.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
tapedeck() { node dist/bundle/tapedeck.js "$@"; }
everything=(node node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== record: the example agent server (seed 000 wire format), through the tap"
node examples/agent-client.mjs examples/agent-requests.ndjson -- \
  node dist/bundle/tapedeck.js record --out "$work/agent.ndjson" -- node examples/agent-server.mjs >/dev/null
echo "   $(wc -l < "$work/agent.ndjson") pairs in $work/agent.ndjson"

echo "== record: @modelcontextprotocol/server-everything (JSON-RPC over stdio)"
node examples/jsonrpc-client.mjs examples/mcp-everything.script.ndjson -- \
  node dist/bundle/tapedeck.js record --out "$work/mcp.ndjson" -- "${everything[@]}" >/dev/null 2>&1
echo "   $(wc -l < "$work/mcp.ndjson") pairs in $work/mcp.ndjson"

echo "== record: a terminal program in a PTY, as an asciicast"
tapedeck record --out "$work/hello.cast" --rows 8 --cols 60 -- \
  bash --norc --noprofile -c 'printf "\033[1;32mhello\033[0m from tapedeck\n"; ls examples/files'
tapedeck snapshot "$work/hello.cast"

echo "== replay: the fresh tapes and the checked-in goldens"
status=0
tapedeck replay "$work/agent.ndjson" goldens/agent-server.ndjson -- node examples/agent-server.mjs || status=$?
tapedeck replay "$work/mcp.ndjson" goldens/mcp-everything.ndjson -- "${everything[@]}" || status=$?
# hello.cast is outside the project (a temp folder): its recorded command runs only with --trust-tape.
tapedeck replay "$work/hello.cast" goldens/terminal/*.cast --trust-tape || status=$?
exit $status
