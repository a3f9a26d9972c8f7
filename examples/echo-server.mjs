#!/usr/bin/env node
// A trivial JSON-RPC echo server over NDJSON stdio: answers every request with
// its params. The baseline server of the replay benchmark.
import { createInterface } from 'node:readline';

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id !== undefined) process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":${JSON.stringify(msg.params ?? null)}}\n`);
});
