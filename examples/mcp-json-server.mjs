#!/usr/bin/env node
// A small MCP server on the official SDK in Streamable HTTP's other mode:
// stateless (no Mcp-Session-Id), answers as plain application/json bodies
// instead of SSE streams. One tool, `hello`. Shows that the recorder, replay
// and serve handle JSON answers as well as SSE.
//   mcp-json-server.mjs PORT          (serves POST /mcp on 127.0.0.1:PORT)
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const port = Number(process.argv[2]);
createServer(async (req, res) => {
  const server = new McpServer({ name: 'json-example', version: '1.0.0' });
  server.registerTool('hello', { description: 'Says hello' }, async () => ({ content: [{ type: 'text', text: 'hello from a JSON answer' }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}).listen(port, '127.0.0.1');
