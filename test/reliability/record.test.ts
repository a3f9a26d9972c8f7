import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, ROOT, childEnv, run, tapedeck, useTempDirs } from '../helpers/cli.js';

/**
 * Issue 26.5 and 26.6 (the recorder's part): the stdio tap holds a flood in
 * the pipe, not in memory, when the client reads slowly; a recording that lost
 * pairs exits 2; a client that ends in the middle of a line leaves no pair
 * whose request is the fragment.
 */
const temp = useTempDirs();
const ECHO = join(ROOT, 'examples/echo-server.mjs');
const rpc = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params: { n: id } });

/** Answers one request with `mib` MiB of output lines, then its result. */
function floodServer(dir: string, mib: number): string {
  const path = join(dir, 'flood.mjs');
  writeFileSync(
    path,
    `import { createInterface } from 'node:readline';
const block = Buffer.from(('x'.repeat(1023) + '\\n').repeat(1024));
createInterface({ input: process.stdin }).once('line', () => {
  let sent = 0;
  const pump = () => {
    while (sent < ${mib}) { sent++; if (!process.stdout.write(block)) return void process.stdout.once('drain', pump); }
    process.stdout.write('{"jsonrpc":"2.0","id":1,"result":"done"}\\n');
  };
  pump();
});
`,
  );
  return path;
}

describe('the stdio tap has backpressure (26.5)', () => {
  test('a 256 MiB flood to a client that reads slowly: every byte arrives, tapedeck record stays under 150 MB resident', async () => {
    const dir = temp();
    const MIB = 256;
    // The tape keeps at most 1 MiB of a response (the line limit): what is left is the relay's own holding.
    const child = spawn('node', [CLI, 'record', '--out', join(dir, 'flood.ndjson'), '--', 'node', floodServer(dir, MIB)], {
      env: childEnv({ TAPEDECK_MAX_LINE_BYTES: String(2 ** 20) }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let peakKb = 0;
    const sample = () => {
      try {
        peakKb = Math.max(peakKb, Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]));
      } catch {
        // exited
      }
    };
    const sampler = setInterval(sample, 25);
    let received = 0;
    let tail = '';
    child.stdout.on('data', (d: Buffer) => {
      received += d.length;
      tail = (tail + d.toString('latin1')).slice(-64);
      // A slow reader: one chunk per turn of the event loop, after a look at the tap's memory.
      sample();
      child.stdout.pause();
      setImmediate(() => child.stdout.resume());
      if (tail.includes('"result":"done"')) child.stdin.end();
    });
    child.stdin.write(`${rpc(1)}\n`);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearInterval(sampler);
    expect(received).toBe(MIB * 2 ** 20 + '{"jsonrpc":"2.0","id":1,"result":"done"}\n'.length);
    expect(stderr).toContain('over the 1048576-byte tape line limit');
    expect(code).toBe(2); // the response could not be recorded (26.6)
    console.log(`tapedeck record peak RSS with a ${MIB} MiB flood to a slow client: ${Math.round(peakKb / 1024)} MiB`);
    expect(peakKb / 1024).toBeLessThan(150);
  }, 180_000);
});

describe('tapedeck record says "not recorded" with its exit code too (26.6)', () => {
  test('a full file-size limit (EFBIG) and a full disk (/dev/full, ENOSPC): exit 2, the session itself went through', async () => {
    const dir = temp();
    const requests = Array.from({ length: 300 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'echo', params: { text: 'y'.repeat(200) } })).join('\n') + '\n';
    const tape = join(dir, 'rec.ndjson');
    const big = await run(['sh', '-c', `ulimit -f 32 && exec node ${CLI} record --out ${tape} -- node ${ECHO}`], { input: requests, cwd: dir });
    expect(big.stdout.trim().split('\n')).toHaveLength(300);
    expect(big.stderr).toMatch(/pair\(s\) were not recorded to /);
    expect(big.code).toBe(2);
    const full = await run(['node', CLI, 'record', '--out', '/dev/full', '--kind', 'protocol', '--', 'node', ECHO], { input: requests, cwd: dir });
    expect(full.stdout.trim().split('\n')).toHaveLength(300);
    expect(full.stderr).toContain('300 pair(s) were not recorded to /dev/full');
    expect(full.code).toBe(2);
    // A whole recording is still exit 0.
    const whole = await tapedeck(['record', '--out', join(dir, 'ok.ndjson'), '--', 'node', ECHO], { input: requests, cwd: dir });
    expect(whole.code).toBe(0);
  });

  test('a client that dies in the middle of a line: the fragment is no pair, the tape replays its whole pairs, exit 2', async () => {
    const dir = temp();
    const server = join(dir, 'tolerant.mjs');
    // Answers what it cannot parse with a JSON-RPC parse error, as real servers do.
    writeFileSync(
      server,
      `import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return void process.stdout.write('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\\n'); }
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: msg.params }) + '\\n');
});
`,
    );
    const tape = join(dir, 'cut.ndjson');
    const fragment = rpc(3).slice(0, 25);
    const r = await tapedeck(['record', '--out', tape, '--', 'node', server], { input: `${rpc(1)}\n${rpc(2)}\n${fragment}`, cwd: dir });
    expect(r.stdout).toContain('Parse error'); // the client got what the server said: the tap is transparent
    expect(r.stderr).toContain('the client ended in the middle of a line: its last request (25 bytes, no newline, not a whole JSON message) was not recorded');
    expect(r.code).toBe(2);
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(pairs.map((p) => p.request)).toEqual([rpc(1), rpc(2)]);
    expect(pairs[1].response).toBe(`${JSON.stringify({ jsonrpc: '2.0', id: 2, result: { n: 2 } })}\n`); // the parse error is no one's response
    const replay = await tapedeck(['replay', tape, '--', 'node', server], { cwd: dir });
    expect(replay.code).toBe(0);

    // A last request that is whole JSON, only without its newline, is still recorded.
    const whole = await tapedeck(['record', '--out', join(dir, 'whole.ndjson'), '--', 'node', server], { input: `${rpc(1)}\n${rpc(2)}`, cwd: dir });
    expect(whole.code).toBe(0);
    expect(readFileSync(join(dir, 'whole.ndjson'), 'utf8').trim().split('\n')).toHaveLength(2);
  });
});

describe('SIGKILL of the tap mid-session leaves a tape of whole lines', () => {
  test('killed while requests flow, one at a time and pipelined: every line is a whole pair, in order, one at a time all but at most the last answered one are there, and the tape replays', async () => {
    const dir = temp();
    const echoed = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, result: { n: id } })}\n`;
    for (const pipelined of [false, true]) {
      const tape = join(dir, `killed-${pipelined ? 'pipelined' : 'sequential'}.ndjson`);
      // stderr piped: the orphaned server may say EPIPE once the tap is gone.
      const child = spawn('node', [CLI, 'record', '--out', tape, '--', 'node', ECHO], { env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdin.on('error', () => {});
      child.stderr.resume();
      let answered = 0;
      let pending = '';
      let sent = 0;
      const send = (n: number) => {
        let text = '';
        for (let i = 0; i < n; i++) text += `${rpc(++sent)}\n`;
        child.stdin.write(text);
      };
      const killed = new Promise<NodeJS.Signals | null>((resolve) => child.once('close', (_code, signal) => resolve(signal)));
      child.stdout.on('data', (d: Buffer) => {
        pending += d.toString('utf8');
        for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
          pending = pending.slice(nl + 1);
          answered++;
          // Killed in the middle: the tap is between two exchanges, with pairs not yet written.
          if (answered === 300) child.kill('SIGKILL');
          else if (answered < 300 && !pipelined) send(1);
        }
      });
      send(pipelined ? 2000 : 1);
      expect(await killed).toBe('SIGKILL');
      const text = readFileSync(tape, 'utf8');
      expect(text === '' || text.endsWith('\n'), 'the tape ends with a whole line').toBe(true);
      const lines = text.split('\n').slice(0, -1);
      // One request at a time, each pair is written in the tick its response is forwarded: only the kill's own race may
      // miss one. Pipelined, the tap may have forwarded answers it has not framed yet (278-299 of 300 seen).
      if (!pipelined) expect(lines.length).toBeGreaterThanOrEqual(299);
      expect(lines.length).toBeGreaterThan(0);
      // Each line is a whole pair, and the pairs are the first exchanges, in order.
      for (const [i, line] of lines.entries()) expect(JSON.parse(line)).toEqual({ request: rpc(i + 1), response: echoed(i + 1) });
      if (lines.length > 0) expect((await tapedeck(['replay', tape, '--', 'node', ECHO], { cwd: dir })).code).toBe(0);
    }
  });
});
