import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, run, tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';
import { readProtocolTape, TapedeckError } from '../../src/index.js';
import { withFileLock, lockPathFor } from '../../src/core/files/file-lock.js';
import { rewriteTape } from '../../src/replayer/protocol/update.js';

const temp = useTempDirs();

// Answers every JSON-RPC request with its own pid: each replaying process drifts differently.
const PID_SERVER = `
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  for (let i; (i = buf.indexOf('\\n')) >= 0; ) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { pid: process.pid, pad: 'x'.repeat((process.pid + m.id) % 9) } }) + '\\n');
  }
});
`;

function staleTape(pairs: number): string {
  const lines: string[] = [];
  for (let id = 1; id <= pairs; id++) {
    const request = JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: {} });
    lines.push(JSON.stringify({ request, response: `${JSON.stringify({ jsonrpc: '2.0', id, result: { stale: true } })}\n` }));
  }
  return `${lines.join('\n')}\n`;
}

describe('tape writers serialise', () => {
  // The full acceptance run is 20 rounds (TAPEDECK_CONCURRENCY_ROUNDS=20); one keeps the suite fast.
  const rounds = Number(process.env.TAPEDECK_CONCURRENCY_ROUNDS) || 1;
  it(`8 parallel replay --update leave a valid tape (${rounds} round(s))`, async () => {
    const dir = temp();
    const server = join(dir, 'server.cjs');
    writeFileSync(server, PID_SERVER);
    const tape = join(dir, 'shared.ndjson');
    for (let round = 0; round < rounds; round++) {
      writeFileSync(tape, staleTape(50));
      const results = await Promise.all(
        Array.from({ length: 8 }, () => tapedeck(['replay', tape, '--update', '--', 'node', server], { cwd: dir, timeoutMs: 120_000 })),
      );
      for (const r of results) {
        expect(r.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
        expect(r.code).toBe(0);
        expect(r.stderr).toContain('rewrote 50 pair');
      }
      const read = await readProtocolTape(tape);
      expect(read.pairs).toHaveLength(50);
      expect(read.partialLine).toBeUndefined();
      const pids = new Set<number>();
      read.pairs.forEach((p, i) => {
        const res = JSON.parse(p.response) as { id: number; result: { pid: number } };
        expect(res.id).toBe(i + 1);
        pids.add(res.result.pid);
      });
      // Every pair comes from a live run (the last writer's, built on the others').
      expect(pids.size).toBeGreaterThanOrEqual(1);
      expect(readFileSync(tape, 'utf8')).not.toContain('stale');
      expect(readdirSync(dir).filter((f) => f.includes('tapedeck-lock') || f.endsWith('.tmp'))).toEqual([]);
    }
  }, 300_000);

  it('a rewrite builds on a writer that ran in between (fresh offsets), and refuses a tape whose requests changed', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    writeFileSync(tape, staleTape(3));
    const stale = await readProtocolTape(tape);
    // Another writer rewrites pair 1 with a much longer response after this one read the tape.
    const other = await readProtocolTape(tape);
    rewriteTape(other, new Map([[0, `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'x'.repeat(500) })}\n`]]));
    rewriteTape(stale, new Map([[1, `${JSON.stringify({ jsonrpc: '2.0', id: 2, result: 'mine' })}\n`]]));
    const after = await readProtocolTape(tape);
    expect(after.pairs.map((p) => JSON.parse(p.response).result)).toEqual(['x'.repeat(500), 'mine', { stale: true }]);
    // A tape whose requests are no longer the ones replayed is left alone, with TD2006.
    writeFileSync(tape, staleTape(2));
    const before = readFileSync(tape, 'utf8');
    let err: unknown;
    try {
      rewriteTape(stale, new Map([[1, 'late\n']]));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TapedeckError);
    expect((err as TapedeckError).code).toBe('TD2006');
    expect((err as TapedeckError).exitCode).toBe(2);
    expect(readFileSync(tape, 'utf8')).toBe(before);
  });

  it('a lock left by a killed writer is taken over; a live one is waited for', () => {
    const dir = temp();
    const file = join(dir, 'golden.txt');
    writeFileSync(file, 'x');
    // pid 2^22+ is past pid_max on Linux: no such process.
    writeFileSync(lockPathFor(file), '4194399\n');
    expect(withFileLock(file, () => 'ran')).toBe('ran');
    expect(() => readFileSync(lockPathFor(file))).toThrow();
    writeFileSync(lockPathFor(file), `${process.ppid}\n`);
    expect(() => withFileLock(file, () => 'never', 100)).toThrow(/another tapedeck process .* is writing this file/);
    rmSync(lockPathFor(file));
  });
});

describe('recording on a full disk keeps complete pairs', () => {
  const requests = Array.from({ length: 400 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'echo', params: { text: 'y'.repeat(200) } })).join('\n') + '\n';
  const echo = join(import.meta.dirname, '../../examples/echo-server.mjs');

  async function expectCutTape(tape: string, stderr: string): Promise<void> {
    expect(stderr).toMatch(/cannot write the tape .*complete pair\(s\) before it/);
    expect(stderr.match(/cannot write the tape/g)).toHaveLength(1); // reported once
    const text = readFileSync(tape, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const read = await readProtocolTape(tape);
    expect(read.pairs.length).toBeGreaterThan(10);
    expect(read.pairs.length).toBeLessThan(400);
    expect(read.partialLine).toBeUndefined();
  }

  it('under ulimit -f the last pair is taken back whole and the tape replays', async () => {
    const dir = temp();
    const tape = join(dir, 'rec.ndjson');
    // 64 blocks of 512 bytes: 32 KiB, room for a part of the session only.
    const r = await run(['sh', '-c', `ulimit -f 64 && exec node ${CLI} record --out ${tape} -- node ${echo}`], { input: requests, cwd: dir });
    expect(r.code).toBe(2); // some pairs were not recorded;
    await expectCutTape(tape, r.stderr);
    const replay = await tapedeckInProcess(['replay', tape, '--', 'node', echo], { cwd: dir });
    expect(replay.stderr).not.toContain('warning');
    expect(replay.code).toBe(0);
  });

  it('on a 64 KiB tmpfs (root only; otherwise the ulimit case above stands for it)', async () => {
    const dir = temp();
    const mnt = join(dir, 'mnt');
    mkdirSync(mnt);
    let mounted = false;
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { stdio: 'ignore' });
      mounted = true;
    } catch {
      mounted = false;
    }
    try {
      const tape = join(mounted ? mnt : dir, 'rec.ndjson');
      const many = mounted ? requests.repeat(2) : requests;
      const cmd = mounted ? `exec node ${CLI} record --out ${tape} -- node ${echo}` : `ulimit -f 100 && exec node ${CLI} record --out ${tape} -- node ${echo}`;
      const r = await run(['sh', '-c', cmd], { input: many, cwd: dir });
      expect(r.code).toBe(2); // some pairs were not recorded;
      await expectCutTape(tape, r.stderr);
      const replay = await tapedeckInProcess(['replay', tape, '--', 'node', echo], { cwd: dir });
      expect(replay.code).toBe(0);
    } finally {
      if (mounted) execFileSync('umount', [mnt]);
    }
  });

  it('a tape whose last line was cut short replays its complete pairs, with a warning naming the line', async () => {
    const dir = temp();
    const tape = join(dir, 'cut.ndjson');
    const echoReq = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params: { n: id } });
    const pair = (id: number) => JSON.stringify({ request: echoReq(id), response: `{"jsonrpc":"2.0","id":${id},"result":{"n":${id}}}\n` });
    writeFileSync(tape, `${pair(1)}\n${pair(2)}\n`);
    appendFileSync(tape, pair(3).slice(0, 40));
    const r = await tapedeck(['replay', tape, '--', 'node', echo], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: ${tape}:3: the last line is incomplete`);
    expect(r.stderr).toContain('2 complete pair(s)');
    // A cut line in the middle is still bad input.
    writeFileSync(tape, `${pair(1)}\n${pair(2).slice(0, 30)}\n${pair(3)}\n`);
    const bad = await tapedeckInProcess(['replay', tape, '--', 'node', echo], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${tape}:2:`);
  });

  it('a cast whose last line was cut short plays its complete events, with a warning', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'cut.cast'), '{"version":2,"width":20,"height":3}\n[0.1,"o","kept"]\n[0.2,"o","lo');
    const r = await tapedeck(['snapshot', 'cut.cast'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('kept');
    expect(r.stderr).toBe('tapedeck: warning: cut.cast:3: the last line is incomplete (a write cut short?); the events before it are used\n');
  });

  it('a tape starting with a UTF-8 byte order mark reads, and --update keeps the mark', async () => {
    const dir = temp();
    const tape = join(dir, 'bom.ndjson');
    const req = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: { a: 1 } });
    writeFileSync(tape, `\ufeff${JSON.stringify({ request: req, response: '{"jsonrpc":"2.0","id":1,"result":{"a":2}}\n' })}\n`);
    const r = await tapedeckInProcess(['replay', tape, '--update', '--', 'node', echo], { cwd: dir });
    expect(r.stderr).not.toContain('not a valid tape pair');
    expect(r.code).toBe(0);
    const bytes = readFileSync(tape);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8')).toContain('\\"a\\":1}}');
  });
});
