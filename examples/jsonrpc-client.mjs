#!/usr/bin/env node
// A scripted JSON-RPC 2.0 client over NDJSON stdio (MCP's stdio transport):
// sends each message of a script in order, waits for the response to every
// request (by id), answers requests the server makes of its own with an empty
// result, and prints every server line. Used to drive `tapedeck record` against
// MCP servers.
//
// usage: jsonrpc-client.mjs SCRIPT.ndjson -- CMD ARGS...
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const sep = args.indexOf('--');
if (sep !== 1 || args.length < 3) {
  console.error('usage: jsonrpc-client.mjs SCRIPT.ndjson -- CMD ARGS...');
  process.exit(2);
}
const script = readFileSync(args[0], 'utf8').split('\n').filter((l) => l.trim() !== '');
const [cmd, ...cmdArgs] = args.slice(2);
const server = spawn(cmd, cmdArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
const timeout = setTimeout(() => {
  console.error('jsonrpc-client: timed out waiting for the server');
  process.exit(1);
}, Number(process.env.JSONRPC_CLIENT_TIMEOUT_MS ?? 20000));
let waitingFor;
let next = 0;
const sendNext = () => {
  while (next < script.length) {
    const line = script[next++];
    server.stdin.write(`${line}\n`);
    const msg = JSON.parse(line);
    if (msg.id !== undefined && typeof msg.method === 'string') {
      waitingFor = JSON.stringify(msg.id);
      return;
    }
  }
  server.stdin.end();
};
createInterface({ input: server.stdout }).on('line', (line) => {
  process.stdout.write(`${line}\n`);
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (typeof msg.method === 'string' && msg.id !== undefined) {
    server.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} })}\n`);
  } else if (msg.id !== undefined && JSON.stringify(msg.id) === waitingFor) {
    waitingFor = undefined;
    sendNext();
  }
});
server.on('close', (code) => {
  clearTimeout(timeout);
  process.exit(code ?? 1);
});
sendNext();
