#!/usr/bin/env node
// A scripted client for the example agent server over its network transports
// (seed 000), printing every response line:
//   agent-net-client.mjs http URL REQUESTS.ndjson [--token T]
//       each request as POST /v1/agent, then the first two again as one
//       POST /v1/agent/batch, then GET /v1/agent/version
//   agent-net-client.mjs unix PATH REQUESTS.ndjson
//       one connection, each request sent once the previous done line arrived
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';

const [transport, where, file, ...rest] = process.argv.slice(2);
if (!transport || !where || !file) {
  console.error('usage: agent-net-client.mjs http URL|unix PATH REQUESTS.ndjson [--token T]');
  process.exit(2);
}
const requests = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
const token = rest[0] === '--token' ? rest[1] : undefined;

if (transport === 'http') {
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  const call = async (method, path, body) => {
    const res = await fetch(`${where}${path}`, { method, body, headers: { ...headers, 'content-type': 'application/x-ndjson' } });
    process.stdout.write(await res.text());
    return res.status;
  };
  for (const r of requests) if (JSON.parse(r).op !== 'halt') await call('POST', '/v1/agent', r);
  await call('POST', '/v1/agent/batch', `${requests.slice(0, 2).join('\n')}\n`);
  await call('GET', '/v1/agent/version');
} else {
  const socket = connect(where);
  const lines = createInterface({ input: socket });
  let next = 0;
  const sendNext = () => (next < requests.length ? socket.write(`${requests[next++]}\n`) : socket.end());
  lines.on('line', (line) => {
    process.stdout.write(`${line}\n`);
    if (JSON.parse(line).kind === 'done') sendNext();
  });
  socket.once('connect', sendNext);
  socket.once('close', () => process.exit(0));
}
