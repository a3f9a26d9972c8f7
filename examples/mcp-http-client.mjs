#!/usr/bin/env node
// An MCP client over Streamable HTTP, built on the official SDK
// (@modelcontextprotocol/sdk's Client and StreamableHTTPClientTransport):
// initialize, list tools, call echo, call a long-running tool whose progress
// notifications arrive over SSE (or `hello`, when the server has that tool),
// then end the session (DELETE, when the server gave one). Prints one
// JSON line per result and per notification, so two runs can be compared.
//   mcp-http-client.mjs URL        (e.g. http://127.0.0.1:3001/mcp)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = process.argv[2];
if (!url) {
  console.error('usage: mcp-http-client.mjs URL');
  process.exit(2);
}
const print = (kind, value) => process.stdout.write(`${JSON.stringify({ kind, value })}\n`);
const client = new Client({ name: 'tapedeck-example', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
print('server', client.getServerVersion());
const { tools } = await client.listTools();
print('tools', tools.map((t) => t.name).sort());
const names = new Set(tools.map((t) => t.name));
if (names.has('hello')) print('hello', await client.callTool({ name: 'hello', arguments: {} }));
if (names.has('echo')) print('echo', await client.callTool({ name: 'echo', arguments: { message: 'hello over http' } }));
if (names.has('trigger-long-running-operation')) {
  const progress = [];
  const long = await client.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 0, steps: 3 } },
    undefined,
    { onprogress: (p) => progress.push(p) },
  );
  print('progress', progress);
  print('long', long);
}
await transport.terminateSession();
await client.close();
