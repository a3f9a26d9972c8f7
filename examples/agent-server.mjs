#!/usr/bin/env node
// A small server speaking seed 000's `mty agent` wire format over stdio: one JSON
// request per line in, log/progress/envelope/result/error lines out, and a
// {"kind":"done","exit_code":N} terminator per request. It "checks" a toy
// language: a line calling fs.write(..., user_input) is tainted (MT4099), a line
// with trailing spaces needs formatting. A realistic target for tapedeck's
// protocol recorder and replayer; not a real compiler.
//
// Transports (seed 000): stdio by default;
//   --transport http --listen HOST:PORT (or --port N) [--auth-token T]
//       POST /v1/agent, POST /v1/agent/batch, GET /v1/agent/version; a fresh session per request
//   --transport unix --listen PATH (or --socket PATH)
//       the stdio wire format per connection, each connection its own session
//
// Environment knobs used by tests to play a changed server:
//   AGENT_SERVER_CRASH_ON=<op>   exit 3 (with a message on stderr) when that op arrives
//   AGENT_SERVER_HANG_ON=<op>    never answer that op
//   AGENT_SERVER_VERSION=<v>     report another mty_version
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';

const VERSION = '0.35.0';
const REPORTED_VERSION = process.env.AGENT_SERVER_VERSION ?? VERSION;
const root = process.env.AGENT_SERVER_ROOT ?? new URL('./project/', import.meta.url).pathname;

const EXPLAIN = {
  MT4099: 'A value of type Tainted[Str] reached a sink that requires untainted input. Constrain it with a regex, pass it through a sanitizer, or parse it against an allowlist.',
  MT1001: 'A name was used that is not declared in scope. Check the spelling or import it.',
};

// Where the current request's response goes: stdout, an HTTP response or a socket.
let write = (text) => process.stdout.write(text);
const send = (obj) => write(`${JSON.stringify(obj)}\n`);
let lastExitCode = 0;
const done = (code) => {
  lastExitCode = code;
  send({ kind: 'done', exit_code: code });
};

function readSource(path) {
  try {
    return readFileSync(resolve(root, path), 'utf8');
  } catch {
    return undefined;
  }
}

function check(req) {
  if (typeof req.path !== 'string') return protocolError('check: missing "path"');
  const source = readSource(req.path);
  if (source === undefined) {
    send({ kind: 'error', message: `path not found: ${req.path}` });
    return done(1);
  }
  send({ kind: 'log', stream: 'stderr', text: `checking ${req.path}` });
  send({ kind: 'progress', phase: 'parse', pct: 0.5 });
  send({ kind: 'progress', phase: 'typecheck', pct: 1 });
  const lines = source.split('\n');
  let offset = 0;
  let diagnostics = 0;
  lines.forEach((text, i) => {
    const col = text.indexOf('fs.write(');
    if (col >= 0 && text.includes('user_input')) {
      diagnostics++;
      const fixed = text.replace('user_input', 'sanitize(user_input)');
      const envelope = {
        kind: 'envelope',
        schema_version: '1.0',
        code: 'MT4099',
        severity: 'error',
        span: { file: req.path, line: i + 1, col: col + 1, len: 9, byte_start: offset + col, byte_end: offset + col + 9 },
        title: 'tainted value flows to fs.write',
        prose: EXPLAIN.MT4099,
        fix: {
          kind: 'untaint',
          confidence: 0.92,
          alternatives: [{ label: 'Apply a sanitizer', diff: `--- a/${req.path}\n+++ b/${req.path}\n@@ -${i + 1},1 +${i + 1},1 @@\n-${text}\n+${fixed}\n`, rationale: 'Routes the value through a typed sanitizer.', confidence: 0.92 }],
        },
      };
      if (req.include_source) envelope.source = { start_line: Math.max(1, i), lines: lines.slice(Math.max(0, i - 1), i + 2) };
      send(envelope);
    }
    offset += Buffer.byteLength(text) + 1;
  });
  send({ kind: 'result', op: 'check', ok: diagnostics === 0, diagnostics_count: diagnostics, fix_count: diagnostics });
  done(diagnostics === 0 ? 0 : 1);
}

function explain(req) {
  const text = EXPLAIN[req.code];
  if (!text) {
    send({ kind: 'error', message: `unknown code: ${req.code}` });
    return done(1);
  }
  send({ kind: 'result', op: 'explain', ok: true, code: req.code, text });
  done(0);
}

function fmt(req) {
  if (typeof req.path !== 'string') return protocolError('fmt: missing "path"');
  const source = readSource(req.path);
  if (source === undefined) {
    send({ kind: 'error', message: `path not found: ${req.path}` });
    return done(1);
  }
  const wouldReformat = source.split('\n').some((l) => /[ \t]+$/.test(l));
  send({ kind: 'result', op: 'fmt', ok: true, would_reformat: wouldReformat });
  done(0);
}

function protocolError(message) {
  send({ kind: 'error', message });
  done(2);
}

/**
 * Handles one request line, its response written through `out`. Returns
 * 'halt' after a halt, 'hang' when it will never answer, else undefined.
 */
export function handleLine(line, out) {
  if (line.trim() === '') return undefined;
  write = out;
  let req;
  try {
    req = JSON.parse(line);
  } catch (err) {
    return protocolError(`malformed JSON: ${err.message}`);
  }
  if (req === null || typeof req !== 'object' || typeof req.op !== 'string') return protocolError('missing "op"');
  if (process.env.AGENT_SERVER_CRASH_ON === req.op) {
    process.stderr.write(`agent-server: panic while handling ${req.op}: index out of bounds\n`);
    process.exit(3);
  }
  if (process.env.AGENT_SERVER_HANG_ON === req.op) return 'hang';
  switch (req.op) {
    case 'check': return check(req);
    case 'explain': return explain(req);
    case 'fmt': return fmt(req);
    case 'version':
      send({ kind: 'result', op: 'version', ok: true, mty_version: REPORTED_VERSION, agent_protocol: '1.0' });
      return done(0);
    case 'halt':
      done(0);
      return 'halt';
    default:
      return protocolError(`unknown op: ${req.op}`);
  }
}

export const versionBody = () => ({ mty_version: REPORTED_VERSION, agent_protocol: '1.0' });

const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const transport = flag('--transport') ?? 'stdio';
// The network transports load only when asked for, so the stdio server stays one self-contained file.
if (transport === 'http') {
  const { serveHttp } = await import('./agent-server-transports.mjs');
  const port = flag('--port');
  serveHttp(flag('--listen') ?? (port ? `127.0.0.1:${port}` : '127.0.0.1:9090'), flag('--auth-token'), handleLine, versionBody);
} else if (transport === 'unix') {
  const { serveUnix } = await import('./agent-server-transports.mjs');
  serveUnix(flag('--listen') ?? flag('--socket') ?? '/tmp/mty-agent.sock', handleLine);
} else if (process.argv.includes('--single-shot')) {
  // Seed 000's --single-shot: the whole of stdin is one request; exit with its done code.
  const chunks = [];
  process.stdin.on('data', (c) => chunks.push(c));
  process.stdin.on('end', () => {
    handleLine(Buffer.concat(chunks).toString('utf8').trim(), (text) => process.stdout.write(text));
    process.exitCode = lastExitCode;
  });
} else {
  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const toStdout = (text) => process.stdout.write(text);
  rl.on('line', (line) => {
    if (handleLine(line, toStdout) === 'halt') rl.close();
  });
  rl.on('close', () => process.exit(0));
}
