import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AGENT_SERVER, ROOT, run, tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';
import { startTapedeck } from '../helpers/net.js';
import '../../src/matchers/index.js';
import { readProtocolTape, type TapePair } from '../../src/tape/protocol/tape.js';
import type { WireNote } from '../../src/tape/protocol/wire.js';

const temp = useTempDirs();
const SERVER_UNIX = [...AGENT_SERVER, '--transport', 'unix', '--listen', '{{socket}}'];
const GOLDEN = join(ROOT, 'goldens/agent-server-unix.ndjson');
const CLIENT = ['node', join(ROOT, 'examples/agent-net-client.mjs')];
const REQUESTS = join(ROOT, 'examples/agent-requests.ndjson');

/** One connection: sends each request once the previous response's done line arrived; returns every line. */
function converse(path: string, requests: string[], between?: (i: number) => Promise<void>): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const lines: string[] = [];
    let buf = '';
    let next = 0;
    const sendNext = async () => {
      if (next >= requests.length) return void socket.end();
      await between?.(next);
      socket.write(`${requests[next++]}\n`);
    };
    socket.on('data', (c: Buffer) => {
      buf += c.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(line);
        if (JSON.parse(line).kind === 'done') void sendNext();
      }
    });
    socket.once('connect', () => void sendNext());
    socket.once('error', reject);
    socket.once('close', () => resolve(lines));
  });
}

describe('seed 000 over a Unix socket', () => {
  test('record: a response past the tape line limit still reaches the client; the tape keeps the pairs before it', async () => {
    const dir = temp();
    const sock = join(dir, 'upstream.sock');
    const reply = (text: string) => `${JSON.stringify({ kind: 'log', text })}\n{"kind":"done","exit_code":0}\n`;
    const upstream = createServer((c) => {
      let buf = '';
      c.on('data', (d: Buffer) => {
        buf += d.toString();
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          c.write(reply(line.includes('big') ? 'x'.repeat(300_000) : 'ok'));
        }
      });
      c.on('end', () => c.end());
    });
    await new Promise<void>((r) => upstream.listen(sock, r));
    try {
      const tape = join(dir, 'big.ndjson');
      const rec = await startTapedeck(['record', '--out', tape, '--transport', 'unix', '--upstream', `unix:${sock}`], { TAPEDECK_MAX_LINE_BYTES: '200000' });
      const lines = await converse(rec.address.replace(/^unix:/, ''), ['{"op":"small"}', '{"op":"big"}', '{"op":"after"}']);
      expect(`${lines.join('\n')}\n`).toBe(reply('ok') + reply('x'.repeat(300_000)) + reply('ok'));
      const stopped = await rec.stop();
      expect(readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l).request)).toEqual(['{"op":"small"}']);
      expect(stopped.stderr).toContain(`a response over the 200000-byte tape line limit (raise it with TAPEDECK_MAX_LINE_BYTES) cannot be recorded; the tape ${tape} keeps the 1 complete pair(s) before it`);
      expect(stopped.stderr).toContain(`2 pair(s) were not recorded to ${tape}`);
    } finally {
      upstream.close();
    }
  });

  test('record: each connection its own session, concurrent sessions never mixed inside a line; replays clean', async () => {
    const dir = temp();
    const tape = join(dir, 'unix.ndjson');
    const rec = await startTapedeck(['record', '--out', tape, '--transport', 'unix', '--', ...SERVER_UNIX]);
    const path = rec.address.replace(/^unix:/, '');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Two clients in lockstep: A's request k goes out only after B has had its request k answered.
    const a = ['{"op":"check","path":"main.mty"}', '{"op":"explain","code":"MT4099"}', '{"op":"halt"}'];
    const b = ['{"op":"fmt","path":"main.mty","check":true}', '{"op":"check","path":"clean.mty"}', '{"op":"halt"}'];
    const release: Array<() => void> = [];
    const gates = a.map((_, i) => new Promise<void>((r) => (release[i] = r)));
    const [la, lb] = await Promise.all([converse(path, a, (i) => gates[i]), converse(path, b, async (i) => void setImmediate(() => release[i]()))]);
    expect(la.at(-1)).toBe('{"kind":"done","exit_code":0}');
    expect(lb.at(-1)).toBe('{"kind":"done","exit_code":0}');
    await rec.stop();
    expect(readFileSync(tape, 'utf8').trim().split('\n').map((l) => Object.keys(JSON.parse(l)).join())).toEqual(Array(6).fill('request,response'));
    const pairs = (await readProtocolTape(tape)).pairs as Array<TapePair & { wire: WireNote }>;
    expect(pairs).toHaveLength(6);
    const bySession = (s: number) => pairs.filter((p) => p.wire.session === s).map((p) => p.request);
    const sessions = [...new Set(pairs.map((p) => p.wire.session))].sort();
    expect(sessions).toEqual([1, 2]);
    const first = bySession(1)[0] === a[0] ? 1 : 2;
    expect(bySession(first)).toEqual(a);
    expect(bySession(3 - first)).toEqual(b);
    for (const p of pairs) expect(p.response.trim().split('\n').at(-1)).toMatch(/"kind":"done"/);

    // Appending another recording (seed 000's append mode): its session numbers on, never merged.
    const again = await startTapedeck(['record', '--out', tape, '--transport', 'unix', '--', ...SERVER_UNIX]);
    await converse(again.address.replace(/^unix:/, ''), ['{"op":"explain","code":"MT4099"}', '{"op":"halt"}']);
    await again.stop();
    const all = (await readProtocolTape(tape)).pairs as Array<TapePair & { wire: WireNote }>;
    expect(all.slice(6).map((p) => p.wire.session)).toEqual([3, 3]);

    const replay = await tapedeckInProcess(['replay', tape, '--transport', 'unix', '--', ...SERVER_UNIX]);
    expect(replay.stderr).toContain('0 drift(s)');
    expect(replay.code).toBe(0);
  });

  test('the golden recorded over a socket replays 0; a changed response is 1 with its JSON path; --socket uses a running server', async () => {
    // Without --transport, a tape replays over the transport it was recorded on.
    const clean = await tapedeckInProcess(['replay', GOLDEN, '--', ...SERVER_UNIX]);
    expect(clean.stderr).toContain('0 drift(s)');
    expect(clean.code).toBe(0);
    const stdioCommand = await tapedeckInProcess(['replay', GOLDEN, '--', ...AGENT_SERVER]);
    expect(stdioCommand.code).toBe(2);
    expect(stdioCommand.stderr).toContain(`${GOLDEN}: replaying over unix: the server command must say where to listen with {{socket}}`);
    const dir = temp();
    const tape = join(dir, 'edited.ndjson');
    writeFileSync(tape, readFileSync(GOLDEN, 'utf8').replace('\\"diagnostics_count\\":1', '\\"diagnostics_count\\":2'));
    const drifted = await tapedeckInProcess(['replay', tape, '--transport', 'unix', '--', ...SERVER_UNIX], { env: { CI: 'true' } });
    expect(drifted.code).toBe(1);
    expect(drifted.stderr).toContain(`${tape}:1: pair 1: response drifted [TD1001]`);
    expect(drifted.stderr).toContain('$.diagnostics_count: expected 2, got 1');

    // An already running server, reached through --socket.
    const sock = join(dir, 'agent.sock');
    const server = spawn(AGENT_SERVER[0], [...AGENT_SERVER.slice(1), '--transport', 'unix', '--listen', sock], { stdio: 'ignore' });
    try {
      await waitForSocket(sock);
      const res = await tapedeckInProcess(['replay', GOLDEN, '--socket', sock]);
      expect(res.code).toBe(0);
      // Recording in front of it: --upstream unix:PATH, clients on a private socket of ours.
      const tape2 = join(dir, 'proxied.ndjson');
      const rec = await startTapedeck(['record', '--out', tape2, '--transport', 'unix', '--upstream', `unix:${sock}`]);
      const client = await run([...CLIENT, 'unix', rec.address.replace(/^unix:/, ''), REQUESTS]);
      expect(client.code).toBe(0);
      expect((await rec.stop()).code).toBe(0);
      const recorded = readFileSync(tape2, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const golden = readFileSync(GOLDEN, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(recorded).toEqual(golden);
    } finally {
      server.kill('SIGTERM');
    }
  });

  test('the vitest matcher replays a socket tape over the transport it was recorded on', async () => {
    await expect(GOLDEN).toReplayCleanly(SERVER_UNIX);
  });

  test('a server that dies on a request is TD1003 with its exit status and stderr', async () => {
    const res = await tapedeckInProcess(['replay', GOLDEN, '--', ...SERVER_UNIX], { env: { AGENT_SERVER_CRASH_ON: 'fmt', CI: 'true' } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`${GOLDEN}:4: pair 4: server exited (exit code 3) before completing this response [TD1003]`);
    expect(res.stderr).toContain('panic while handling fmt');
    expect(res.stderr).toContain('3 later pair(s) not replayed');
  });

  test('serve on a socket: 0600, a stale socket replaced, answers like the server, unlinked on exit', async () => {
    const dir = temp();
    chmodSync(dir, 0o700);
    const path = join(dir, 'serve.sock');
    // A stale socket from a crashed run must not stop the bind.
    const stale = createServer();
    await new Promise<void>((r) => stale.listen(path, r));
    stale.close();
    const srv = await startTapedeck(['serve', GOLDEN, '--transport', 'unix', '--listen', path]);
    expect(srv.address).toBe(`unix:${path}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const real = await run([...AGENT_SERVER], { input: readFileSync(REQUESTS, 'utf8') });
    const served = await run([...CLIENT, 'unix', path, REQUESTS]);
    expect(served.stdout).toBe(real.stdout);
    const stopped = await srv.stop();
    expect(stopped.code).toBe(0);
    expect(existsSync(path)).toBe(false);
  });

  test('bad input is exit 2 with a message: a world-writable directory, nothing at --socket, a command without {{socket}}', async () => {
    const dir = join(temp(), 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const res = await tapedeckInProcess(['serve', GOLDEN, '--transport', 'unix', '--listen', join(dir, 's.sock')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('is world-writable');
    const absent = await tapedeckInProcess(['replay', GOLDEN, '--socket', join(dir, 'none.sock')]);
    expect(absent.code).toBe(2);
    expect(absent.stderr).toBe(`tapedeck: replay: nothing accepts connections at unix:${join(dir, 'none.sock')}\n`);
    const rec = await tapedeckInProcess(['record', '--out', join(dir, 't.ndjson'), '--transport', 'unix', '--', ...AGENT_SERVER]);
    expect(rec.code).toBe(2);
    expect(rec.stderr).toContain('the server command must say where to listen with {{socket}}');
  });
});

async function waitForSocket(path: string): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(path);
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20)); // polling a condition
  }
}
