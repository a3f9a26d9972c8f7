import { Readable } from 'node:stream';
import { usageError } from '../../core/diagnostics/errors.js';
import { parseIntOption } from '../args.js';
import { defineCommand } from '../command.js';
import { listenAddress, listenAliasOptions } from '../listen-aliases.js';

// The definition and help load eagerly; the agent (replayer/agent/) loads inside run.
export const command = defineCommand({
  name: 'agent',
  summary: "tapedeck's own operations as an NDJSON agent (seed 000's wire format): replay, explain, fix, snapshot, review, version",
  usage: ['[--single-shot]', '--transport http [--listen HOST:PORT | --port N] [--auth-token T]', '--transport unix (--listen PATH | --socket PATH)'],
  description: `Seed 000's agent mode for tapedeck: one JSON request per line on stdin ({"op":"replay",
"path":"t.ndjson","command":["node","server.js"]}), and per request zero or more JSON lines
on stdout, each with a "kind" (envelope, progress, result, patch, error), ending with
{"kind":"done","exit_code":N}, N what the tapedeck command would exit with. Ops: replay,
explain, fix (over the envelopes of the session's last replay), snapshot, review, version,
halt. Loops until {"op":"halt"} or end of input; --single-shot reads all of stdin as one
request and exits with its code. Over HTTP: POST /v1/agent, POST /v1/agent/batch and
GET /v1/agent/version, one request per connection; over a Unix socket: the stdio format
per connection. docs/formats.md describes every op.`,
  options: {
    'single-shot': { type: 'boolean', default: false, help: 'all of stdin is one request; exit with its exit code' },
    transport: { type: 'string', default: 'stdio', arg: 'T', help: 'stdio (default), http or unix' },
    listen: { type: 'string', arg: 'ADDR', help: 'http: HOST:PORT (default 127.0.0.1 and a free port); unix: the socket path (0600, unlinked on bind and on exit)' },
    ...listenAliasOptions,
    'auth-token': { type: 'string', arg: 'T', help: 'http: every request must carry Authorization: Bearer T (else 401)' },
    'max-body': { type: 'string', arg: 'BYTES', help: 'http: refuse larger request bodies with 413 (default 8 MiB)' },
  },
  positionals: { max: 0, message: 'takes no arguments (requests come on stdin)' },
  async run({ values, io }) {
    const transport = values.transport;
    if (transport !== 'stdio' && transport !== 'http' && transport !== 'unix') throw usageError(`agent: --transport must be stdio, http or unix, got ${JSON.stringify(transport)}`);
    const agentIO = { cwd: io.cwd, env: io.env };
    const serve = await import('../../replayer/agent/serve.js');
    const write = (text: string) => void io.stdout.write(text);
    if (transport === 'stdio') {
      const given = (['listen', 'port', 'socket', 'auth-token', 'max-body'] as const).find((k) => values[k] !== undefined);
      if (given) throw usageError(`agent: --${given} applies to --transport http or unix`);
      const input = (io.stdin as Readable | undefined) ?? Readable.from([]);
      if (values['single-shot']) {
        const chunks: Buffer[] = [];
        for await (const c of input) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
        return serve.serveSingleShot(Buffer.concat(chunks).toString('utf8'), write, agentIO);
      }
      const { AgentSession } = await import('../../replayer/agent/session.js');
      await serve.serveLines(input, write, new AgentSession(agentIO));
      return 0;
    }
    if (values['single-shot']) throw usageError('agent: --single-shot applies to --transport stdio');
    const listen = listenAddress('agent', transport, values);
    if (transport === 'unix' && !listen) throw usageError('agent: --transport unix needs --listen PATH (or --socket PATH)');
    if (transport === 'unix' && values['auth-token'] !== undefined) throw usageError('agent: --auth-token applies to --transport http');
    const { parseHostPort } = await import('../../plumbing/net/endpoint.js');
    let close: () => Promise<void>;
    if (transport === 'http') {
      const { server, address } = await serve.listenAgentHttp(listen?.startsWith('unix:') ? { kind: 'unix', path: listen.slice(5) } : parseHostPort(listen ?? '127.0.0.1:0'), {
        ...agentIO,
        authToken: values['auth-token'],
        bodyLimit: parseIntOption('max-body', values['max-body'], 8 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
      });
      io.stderr.write(`tapedeck agent: listening on ${address}\n`);
      close = () => new Promise((r) => { server.close(() => r()); server.closeAllConnections(); });
    } else {
      const server = await serve.listenAgentUnix(listen!, agentIO);
      io.stderr.write(`tapedeck agent: listening on unix:${listen}\n`);
      close = () => new Promise((r) => server.close(() => r()));
    }
    // Serves until SIGINT, SIGTERM or SIGHUP; exit 0.
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    let onSignal = () => {};
    const stopped = new Promise<void>((r) => (onSignal = r));
    for (const s of signals) process.on(s, onSignal);
    await stopped;
    for (const s of signals) process.off(s, onSignal);
    await close();
    return 0;
  },
});
