// Benchmark: a round trip through the HTTP recording proxy (`tapedeck record
// --transport http`) against the same round trip straight to the server, side
// by side in one run (interleaved batches, medians). Target: at most 1.3x.
// Two servers: the seed-000 example agent server (POST /v1/agent, a fresh
// connection per request as seed 000 says) and MCP server-everything in
// Streamable HTTP mode (POST ping in one session, SSE answers, keep-alive).
// Measured beside them, the floors: a raw Node TCP relay (any Node process in
// the path costs at least this), a node:http relay, and socat when installed
// (a native relay; it forks per connection).
//   node bench/http-proxy.mjs [requests per batch] [batches]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median, onPath, quartiles, row } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const n = Number(process.argv[2] ?? 50);
const batches = Number(process.argv[3] ?? 31);
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-bench-'));
const children = [];

const freePort = () =>
  new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

/** Starts a process and waits until its stderr/stdout says `pattern`. */
function start(command, env, pattern) {
  const child = spawn(command[0], command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((res, rej) => {
    let out = '';
    const look = (c) => {
      out += c;
      const m = pattern.exec(out);
      if (m) res(m);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('exit', (code) => rej(new Error(`${command.join(' ')} exited ${code}: ${out}`)));
  });
}

function call(port, path, body, headers, agent) {
  return new Promise((res, rej) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-length': Buffer.byteLength(body), ...headers }, agent }, (r) => {
      const chunks = [];
      r.on('data', (c) => chunks.push(c));
      r.on('end', () => res({ headers: r.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', rej);
    req.end(body);
  });
}

async function proxyFor(upstream, name) {
  const m = await start(['node', join(root, 'dist/bundle/tapedeck.js'), 'record', '--out', join(dir, `${name}.ndjson`), '--transport', 'http', '--upstream', upstream], {}, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  return Number(m[1]);
}

async function relayFor(upstreamPort, file = 'bare-http-relay.mjs') {
  const m = await start(['node', join(root, 'bench/support', file), String(upstreamPort)], {}, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  return Number(m[1]);
}

/** A native relay for reference: socat, forking per connection, Nagle off upstream. */
async function socatFor(upstreamPort) {
  const port = await freePort();
  start(['socat', `TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr`, `TCP:127.0.0.1:${upstreamPort},nodelay`], {}, /$^/).catch(() => {});
  // socat says nothing when it listens: wait until it accepts.
  for (;;) {
    const ok = await new Promise((res) => connect(port, '127.0.0.1').once('connect', function () { this.destroy(); res(true); }).once('error', () => res(false)));
    if (ok) return port;
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** Every relay beside direct, the recording proxy last. */
async function sidesFor(upstreamPort, upstream, name) {
  const sides = { direct: upstreamPort, 'raw Node TCP relay': await relayFor(upstreamPort, 'raw-tcp-relay.mjs'), 'node:http relay': await relayFor(upstreamPort) };
  if (onPath('socat')) sides['socat (native)'] = await socatFor(upstreamPort);
  sides['tapedeck proxy'] = await proxyFor(upstream, name);
  return sides;
}

/** Batches of round trips to each port in turn, the order rotated per batch; medians. */
async function measure(name, ports, trip) {
  const sides = Object.entries(ports).map(([label, port]) => ({ label, port, ms: [] }));
  for (let b = 0; b < batches; b++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(b + k) % sides.length];
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await trip(side.port);
      side.ms.push(performance.now() - t0);
    }
  }
  const direct = sides[0];
  const d = median(direct.ms);
  const us = (ms) => ((ms / n) * 1000).toFixed(0);
  console.log(`HTTP recording proxy, ${name}, ${n} sequential round trips per batch, median of ${batches} interleaved batches (middle half of the per-batch ratios):`);
  const ratios = {};
  for (const s of sides) {
    ratios[s.label] = median(s.ms) / d;
    const spread = s === direct ? '' : ` (${ratios[s.label].toFixed(2)}x; ${quartiles(s.ms.map((x, i) => x / direct.ms[i]))})`;
    console.log(`  ${s.label.padEnd(20)} ${us(median(s.ms)).padStart(6)} us/round trip${spread}`);
  }
  const p = median(sides.at(-1).ms);
  const floor = median(sides[1].ms);
  console.log(`  the proxy is ${(p / floor).toFixed(2)}x the raw Node relay, the floor for any Node process in the path`);
  const floors = sides.slice(1, -1).map((s) => `${s.label.replace(/ \(native\)| relay/g, '')} ${ratios[s.label].toFixed(2)}x`).join(', ');
  // The target is against the floor an HTTP proxy has: a node:http relay (it parses requests and responses too; issue 30).
  const httpFloor = median(sides.find((s) => s.label === 'node:http relay').ms);
  row({ path: `HTTP recording proxy, ${name}`, tapedeck: (p / n) * 1000, baseline: (httpFloor / n) * 1000, unit: 'us/trip', target: 1.1, note: `node:http relay; direct ${us(d)} us: ${floors}, proxy ${ratios[sides.at(-1).label].toFixed(2)}x` });
}

try {
  // Seed 000: a fresh connection per request (the server closes it).
  const agentPort = await freePort();
  const agentServer = start(['node', join(root, 'examples/agent-server.mjs'), '--transport', 'http', '--listen', `127.0.0.1:${agentPort}`], {}, /$^/);
  agentServer.catch(() => {});
  const body = '{"op":"check","path":"main.mty","include_source":true}';
  const agentSides = await sidesFor(agentPort, `http://127.0.0.1:${agentPort}`, 'agent');
  await measure('seed-000 example server (POST /v1/agent check)', agentSides, (port) => call(port, '/v1/agent', body, {}, false));

  // MCP: one session per side, ping over keep-alive connections, SSE answers.
  const mcpPort = await freePort();
  await start(['node', join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'], { PORT: String(mcpPort) }, /listening on port/);
  const mcpSides = await sidesFor(mcpPort, `http://127.0.0.1:${mcpPort}`, 'mcp');
  const sessions = new Map();
  const keepAlive = new Agent({ keepAlive: true });
  const mcpHeaders = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  for (const port of Object.values(mcpSides)) {
    const init = await call(port, '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }), mcpHeaders, keepAlive);
    sessions.set(port, init.headers['mcp-session-id']);
    await call(port, '/mcp', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { ...mcpHeaders, 'mcp-session-id': sessions.get(port) }, keepAlive);
  }
  let id = 1;
  await measure('MCP server-everything (Streamable HTTP ping)', mcpSides, (port) =>
    call(port, '/mcp', JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'ping' }), { ...mcpHeaders, 'mcp-session-id': sessions.get(port) }, keepAlive),
  );
} finally {
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
