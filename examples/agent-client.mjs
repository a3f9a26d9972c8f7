#!/usr/bin/env node
// A scripted client for the example agent server: sends the requests in
// requests.ndjson one at a time, waiting for each {"kind":"done"} line, and
// prints the responses. Used by the quick start to drive `tapedeck record`.
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const [requestsFile, ...command] = process.argv.slice(2);
if (!requestsFile || command.length === 0) {
  console.error('usage: agent-client.mjs REQUESTS.ndjson -- CMD ARGS...');
  process.exit(2);
}
const requests = readFileSync(requestsFile, 'utf8').split('\n').filter((l) => l.trim() !== '');
const cmd = command[0] === '--' ? command.slice(1) : command;
const server = spawn(cmd[0], cmd.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = createInterface({ input: server.stdout });
let next = 0;
const sendNext = () => {
  if (next < requests.length) server.stdin.write(`${requests[next++]}\n`);
  else server.stdin.end();
};
lines.on('line', (line) => {
  process.stdout.write(`${line}\n`);
  try {
    if (JSON.parse(line).kind === 'done') sendNext();
  } catch {
    /* not JSON */
  }
});
server.on('close', (code) => process.exit(code ?? 1));
sendNext();
