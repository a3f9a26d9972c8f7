import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { agentHome, ok, processesMentioning, running, socketsUnder } from '../helpers/agent-tty.js';
import { runs } from '../helpers/soak.js';

/**
 * Many sessions at once: sessions created, driven and destroyed in parallel
 * through the CLI leave no host, no program and no socket behind once destroy
 * and gc are done. 8 (more than the 6 calls in flight) by default; 20 under
 * TAPEDECK_SOAK=1.
 */
const N = runs(8, 20);
const { home, cleanup } = agentHome();
afterAll(async () => cleanup());

/** Runs `fn` over `items` with at most `limit` in flight (20 node processes at once would only thrash 2 cores). */
async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }));
  return out;
}

/** One request, one response line (what the CLI does for every call). */
function socketRequest(path: string, request: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    const socket = connect(path, () => socket.end(`${JSON.stringify(request)}\n`));
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('end', () => resolve(JSON.parse(text)));
    socket.on('error', reject);
  });
}

describe('agent-tty parallel sessions', () => {
  it(`${N} sessions in parallel leave no process and no socket behind`, async () => {
    const indexes = Array.from({ length: N }, (_, i) => i);
    const ids = await pool(indexes, 6, async (i) => (await ok(home, ['create', '--rows', '5', '--cols', '30', '--', 'sh', '-c', `read x; echo "got-$x-${i}"; exec sleep 600`], { bin: true })).sessionId as string);
    expect(new Set(ids).size).toBe(N);
    const listed = (await ok(home, ['list'])).sessions;
    expect(listed).toHaveLength(N);
    const pids = listed.flatMap((s: { pid: number }) => [s.pid]);
    const hosts = processesMentioning(home);
    expect(hosts.length).toBeGreaterThanOrEqual(N);
    expect(socketsUnder(home)).toHaveLength(N);

    // Driven over the control sockets directly (seed 004: one JSON request per connection, the CLI's
    // result shapes), all at once: in-process clients cost nothing next to 40 more CLI processes.
    await Promise.all(listed.map(async (s: { sessionId: string }) => {
      const i = ids.indexOf(s.sessionId);
      const { socketPath } = (JSON.parse(readFileSync(join(home, 'sessions', s.sessionId, 'session.json'), 'utf8')));
      const typed = await socketRequest(socketPath, { command: 'type', args: { text: `s${i}\n` } });
      expect(typed).toMatchObject({ ok: true, command: 'type', result: { sessionId: s.sessionId, bytesWritten: `s${i}\n`.length } });
      const waited = await socketRequest(socketPath, { command: 'wait', args: { mode: 'text', text: `got-s${i}-${i}`, timeoutMs: 30_000 } });
      expect(waited).toMatchObject({ ok: true, command: 'wait', result: { matched: true, timedOut: false } });
    }));
    await pool(ids, 6, async (id) => expect(await ok(home, ['destroy', id], { bin: true })).toEqual({ sessionId: id, destroyed: true }));
    const gc = await ok(home, ['gc', '--older-than', '1ms']);
    expect(gc.removedCount).toBe(N);

    expect(processesMentioning(home)).toEqual([]);
    expect(pids.filter((pid: number) => running(pid))).toEqual([]);
    expect(socketsUnder(home)).toEqual([]);
    expect((await ok(home, ['list', '--all'])).sessions).toEqual([]);
  });
});
