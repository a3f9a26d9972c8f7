import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

/**
 * Issue 30, items 1 and 6: plain NDJSON (no JSON-RPC) is paired right whatever the
 * client's pace: the next request ends the exchange, requests written before the
 * server is up are paired in order, --pair-by pairs by an id field; output after the
 * end of input is waited for on replay.
 */
const temp = useTempDirs();
const FIX = join(ROOT, 'test/fixtures/protocol');
const KV = ['node', join(FIX, 'kv-server.mjs')];
const pairsOf = (tape: string) => readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { request: string; response: string });

describe('plain NDJSON pairing', () => {
  test('the issue repro: cat, a second request 150 ms after the first answer: one answer per pair, replay exits 0', async () => {
    const tape = join(temp(), 't.ndjson');
    const script = `(sleep 0.5; echo '{"a":1}'; sleep 0.15; echo '{"a":2}'; sleep 0.5) | node ${CLI} record --out ${tape} -- cat`;
    const rec = await run(['sh', '-c', script]);
    expect(rec.code, rec.stderr).toBe(0);
    expect(pairsOf(tape)).toEqual([
      { request: '{"a":1}', response: '{"a":1}\n' },
      { request: '{"a":2}', response: '{"a":2}\n' },
    ]);
    const replay = await tapedeckInProcess(['replay', tape, '--', 'cat']);
    expect(replay.stderr).toContain('0 drift(s)');
    expect(replay.code).toBe(0);
  });

  test('a key-value server whose client sends each request the moment the answer arrives: 8 pairs, 8 answers', async () => {
    const tape = join(temp(), 'kv.ndjson');
    const lines = [1, 2, 3, 4].flatMap((i) => [JSON.stringify({ set: `k${i}`, value: i }), JSON.stringify({ get: `k${i}` })]);
    const rec = await run(['node', join(FIX, 'line-client.mjs'), ...lines, '--', 'node', CLI, 'record', '--out', tape, '--', ...KV]);
    expect(rec.code, rec.stderr).toBe(0);
    const pairs = pairsOf(tape);
    expect(pairs.map((p) => p.request)).toEqual(lines);
    expect(pairs.map((p) => p.response)).toEqual([1, 2, 3, 4].flatMap((i) => ['{"ok":true}\n', `{"value":${i}}\n`]));
    const replay = await tapedeckInProcess(['replay', tape, '--', ...KV]);
    expect(replay.stderr).toContain('8 pair(s), 0 drift(s)');
    expect(replay.code).toBe(0);
    // A changed answer is still drift, on its own pair.
    const changed = join(temp(), 'changed.ndjson');
    const edited = pairs.map((p, i) => (i === 5 ? { ...p, response: '{"value":33}\n' } : p));
    writeFileSync(changed, `${edited.map((p) => JSON.stringify(p)).join('\n')}\n`);
    const drift = await tapedeckInProcess(['replay', changed, '--', ...KV]);
    expect(drift.code).toBe(1);
    expect(drift.stderr).toMatch(/pair 6[^\n]*\n[\s\S]*\$\.value: expected 33, got 3/);
  });

  test('requests written before the server is up (it reads nothing for 400 ms) are paired in order, even with idle:50', async () => {
    const tape = join(temp(), 'ahead.ndjson');
    const lines = [JSON.stringify({ set: 'a', value: 1 }), JSON.stringify({ set: 'b', value: 2 }), JSON.stringify({ get: 'a' }), JSON.stringify({ get: 'b' })];
    const server = [...KV, '--start-ms', '400'];
    const rec = await run(['node', join(FIX, 'line-client.mjs'), '--ahead', ...lines, '--', 'node', CLI, 'record', '--boundary', 'idle:50', '--out', tape, '--', ...server]);
    expect(rec.code, rec.stderr).toBe(0);
    expect(pairsOf(tape).map((p) => p.response)).toEqual(['{"ok":true}\n', '{"ok":true}\n', '{"value":1}\n', '{"value":2}\n']);
    const replay = await tapedeckInProcess(['replay', tape, '--boundary', 'idle:50', '--', ...server]);
    expect(replay.code, replay.stderr).toBe(0);
  });

  test('--pair-by id: a CDP-style server answering out of order, with events, is paired by the id field and replays 0', async () => {
    const tape = join(temp(), 'cdp.ndjson');
    const cdp = ['node', join(FIX, 'cdp-server.mjs')];
    const lines = [JSON.stringify({ id: 1, method: 'slow' }), JSON.stringify({ id: 2, method: 'fast' })];
    const rec = await run(['node', join(FIX, 'line-client.mjs'), '--ahead', ...lines, '--', 'node', CLI, 'record', '--pair-by', 'id', '--out', tape, '--', ...cdp]);
    expect(rec.code, rec.stderr).toBe(0);
    const pairs = pairsOf(tape);
    expect(pairs.map((p) => p.request)).toEqual(lines);
    // Each pair holds the answer carrying its own id (events go to the oldest waiting request).
    expect(pairs[0].response).toContain('{"id":1,"result":{"method":"slow"}}\n');
    expect(pairs[1].response).toBe('{"id":2,"result":{"method":"fast"}}\n');
    const replay = await tapedeckInProcess(['replay', tape, '--pair-by', 'id', '--', ...cdp]);
    expect(replay.stderr).toContain('0 drift(s)');
    expect(replay.code).toBe(0);
    // A bad path is exit 2 naming the flag.
    const bad = await tapedeckInProcess(['replay', tape, '--pair-by', 'a..b', '--', ...cdp]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--pair-by must be a dot-separated key path');
  });

  test('output written after end of input (500 ms after stdin closed) is recorded in the last pair and waited for on replay', async () => {
    const tape = join(temp(), 'bye.ndjson');
    const server = [...KV, '--bye-ms', '500'];
    const lines = [JSON.stringify({ set: 'a', value: 1 }), JSON.stringify({ get: 'a' })];
    const rec = await run(['node', join(FIX, 'line-client.mjs'), ...lines, '--', 'node', CLI, 'record', '--out', tape, '--', ...server]);
    expect(rec.code, rec.stderr).toBe(0);
    expect(pairsOf(tape).at(-1)!.response).toBe('{"value":1}\n{"bye":2}\n');
    for (let i = 0; i < 3; i++) {
      const replay = await tapedeckInProcess(['replay', tape, '--', ...server]);
      expect(replay.stderr).toContain('0 drift(s)');
      expect(replay.code).toBe(0);
    }
    // A different last line after the end of input is drift on that pair.
    const other = [...KV, '--bye-ms', '10', '--start-ms', '0'];
    const changed = join(temp(), 'changed.ndjson');
    writeFileSync(changed, readFileSync(tape, 'utf8').replace('{\\"bye\\":2}', '{\\"bye\\":3}'));
    const drift = await tapedeckInProcess(['replay', changed, '--', ...other]);
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain('expected 3, got 2');
  });
});
