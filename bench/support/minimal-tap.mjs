// The least a recording tap can do, measured beside tapedeck's tap and the bare
// relay (bench/protocol-tap.mjs): forward bytes both ways first, then split
// lines, parse each JSON-RPC message once to pair responses with requests by
// id, and write each pair to the tape as one seed-000 line as soon as it is
// complete (one write per pair, as tapedeck does so that a killed tap loses at
// most the exchange in flight). No notifications, server requests, redaction,
// limits or other framings: it shows what parsing and a write per pair cost
// on this machine, which no recorder can skip.
//   node bench/support/minimal-tap.mjs TAPE COMMAND [ARGS...]
import { spawn } from 'node:child_process';
import { openSync, writeSync } from 'node:fs';

const fd = openSync(process.argv[2], 'a');
const server = spawn(process.argv[3], process.argv.slice(4), { stdio: ['pipe', 'pipe', 'inherit'] });
const waiting = new Map();

/** Calls `onLine` with each complete line of a stream of chunks (UTF-8 split across chunks is kept whole). */
function lines(onLine) {
  let rest = '';
  const decoder = new TextDecoder();
  return (chunk) => {
    const text = rest + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      onLine(text.slice(start, nl));
      start = nl + 1;
    }
    rest = text.slice(start);
  };
}

const idOf = (line) => {
  try {
    return JSON.stringify(JSON.parse(line).id);
  } catch {
    return undefined;
  }
};
const onRequest = lines((line) => {
  const id = idOf(line);
  if (id !== undefined) waiting.set(id, line.trim());
});
const onResponse = lines((line) => {
  const id = idOf(line);
  const request = waiting.get(id);
  if (request === undefined) return;
  waiting.delete(id);
  writeSync(fd, `${JSON.stringify({ request, response: `${line}\n` })}\n`);
});

process.stdin.on('data', (chunk) => {
  server.stdin.write(chunk);
  onRequest(chunk);
});
process.stdin.on('end', () => server.stdin.end());
server.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  onResponse(chunk);
});
server.on('close', (code) => process.exit(code ?? 1));
