import { readdirSync, readlinkSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readPairStore } from '../../src/tape/protocol/tape.js';
import { prepareProtocolTape } from '../../src/replayer/protocol/prepare.js';
import { replayProtocolTape } from '../../src/replayer/protocol/replay.js';
import { TapedeckError } from '../../src/core/diagnostics/errors.js';
import { CLI, ROOT, run, tapedeck, useTempDirs } from '../helpers/cli.js';

// A replay reads each pair back from the tape file by the offsets its first scan noted
// (src/tape/protocol/tape-bytes.ts): these check the bytes come back exact, that a tape
// changed under a replay is refused rather than read at stale offsets, and that no file
// is left open.
const temp = useTempDirs();
const ECHO = ['node', join(ROOT, 'examples/echo-server.mjs')];

const line = (request: string, response: string) => JSON.stringify({ request, response });
const rpc = (id: number, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params });
const answer = (id: number, result: unknown) => `${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`;

/** Descriptors of this process open on `path`. */
function openOn(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
}

async function thrown(fn: () => unknown): Promise<TapedeckError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TapedeckError);
    return err as TapedeckError;
  }
  throw new Error('expected a TapedeckError');
}

describe('pairs read back from the tape file', () => {
  test('come back byte for byte: Unicode, emoji across a 64 KB read, lines longer than a read, CRLF and a BOM', async () => {
    const tape = join(temp(), 't.ndjson');
    const texts = ['é中文 ✓', '😀👍🏽 family 👨‍👩‍👧', 'x'.repeat(300_000) + '🫠', 'tab\tquote" backslash\\ nul\u0000 end'];
    const lines = texts.map((t, i) => line(rpc(i + 1, { t }), answer(i + 1, { t })));
    // Pad the first line so that the 4-byte emoji of the second starts 2 bytes before the first 64 KB read ends.
    const head = '\uFEFF';
    const first = (pad: number) => line(rpc(1, { t: texts[0], pad: 'p'.repeat(pad) }), answer(1, { t: texts[0] }));
    const emojiAt = (pad: number) => Buffer.byteLength(head) + Buffer.byteLength(first(pad)) + 2 + Buffer.from(lines[1]).indexOf(Buffer.from('😀'));
    lines[0] = first(65_534 - emojiAt(0));
    const text = `${head}${lines[0]}\r\n${lines.slice(1).join('\n')}\n`;
    writeFileSync(tape, text);
    expect(Buffer.from(text).indexOf(Buffer.from('😀'))).toBe(65_534); // the emoji straddles the first read

    const seen: string[] = [];
    const store = await readPairStore(tape, (pair) => seen.push(pair.raw));
    expect(store.count).toBe(4);
    expect(openOn(tape)).toBe(1); // the scan's descriptor is kept for the reads back
    for (let i = 0; i < 4; i++) {
      const pair = store.pair(i);
      expect(pair.raw).toBe(lines[i]);
      expect(pair.raw).toBe(seen[i]);
      expect(pair.response).toBe(answer(i + 1, { t: texts[i] }));
      expect(Buffer.from(text).subarray(pair.byteStart, pair.byteEnd).toString('utf8')).toBe(lines[i]);
    }
    expect(store.pair(2).request.length).toBeGreaterThan(300_000);
    expect(openOn(tape)).toBe(1);
    store.release();
    expect(openOn(tape)).toBe(0);
    expect(store.pair(1).raw).toBe(lines[1]); // read again after a release: opened again
    store.release();
  });

  test('a replay reads them back, leaves no descriptor open, and its outcomes are built from the file afterwards', async () => {
    const tape = join(temp(), 't.ndjson');
    const texts = ['ünïcödé', '🙂 emoji', 'y'.repeat(100_000)];
    writeFileSync(tape, `${texts.map((t, i) => line(rpc(i + 1, { t }), answer(i + 1, { t }))).join('\n')}\n`);
    const result = await replayProtocolTape(tape, { command: ECHO });
    expect(result.drifts).toEqual([]);
    expect(openOn(tape)).toBe(0);
    expect(result.pairs.map((p) => p.status)).toEqual(['ok', 'ok', 'ok']);
    expect(result.pairs.map((p) => p.actual)).toEqual(texts.map((t, i) => answer(i + 1, { t })));
    expect(openOn(tape)).toBe(0);
  });

  test('a tape changed after its scan is refused (TD2006) at the next read from the file, never read at stale offsets', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    const original = `${[1, 2].map((i) => line(rpc(i, { i }), answer(i, { i }))).join('\n')}\n`;
    writeFileSync(tape, original);
    const store = await readPairStore(tape, () => {});
    expect(store.pair(0).request).toBe(rpc(1, { i: 1 }));
    writeFileSync(tape, `${line(rpc(9, {}), answer(9, {}))}\n${original}`); // the same file, rewritten a pair longer
    // Pair 2 came in the 64 KB read that brought pair 1 (checked then): those are the scanned bytes.
    expect(store.pair(1).request).toBe(rpc(2, { i: 2 }));
    store.release();
    const reopened = await thrown(() => store.pair(1));
    expect(reopened.code).toBe('TD2006');
    expect(reopened.message).toContain('the tape changed during the replay');

    // Pairs longer than a read: each is its own read, checked.
    const long = (i: number) => line(rpc(i, { pad: 'z'.repeat(70_000) }), answer(i, { pad: 'z'.repeat(70_000) }));
    writeFileSync(tape, `${long(1)}\n${long(2)}\n`);
    const longStore = await readPairStore(tape, () => {});
    expect(longStore.pair(0).raw).toBe(long(1));
    // In place and the same size: only its modification time tells (set apart here: a file system's clock may
    // not have ticked since the scan).
    writeFileSync(tape, `${long(2)}\n${long(1)}\n`, { flag: 'r+' });
    utimesSync(tape, new Date(), new Date(Date.now() + 5_000));
    expect((await thrown(() => longStore.pair(1))).code).toBe('TD2006');
    longStore.release();

    // Another file renamed over it (a parallel `replay --update` writes so): the scanned file is still open and is
    // what the replay reads; once released, the file at its path is another one, even with the same bytes.
    writeFileSync(tape, original);
    const prepared = await prepareProtocolTape(tape);
    const other = join(dir, 'other.ndjson');
    writeFileSync(other, `${line(rpc(7, { other: true }), answer(7, {}))}\n${original}`);
    renameSync(other, tape);
    expect(prepared.at(0).pair.request).toBe(rpc(1, { i: 1 }));
    const replayed = await replayProtocolTape(prepared, { command: ECHO });
    expect(replayed.drifts).toEqual([]);
    expect(replayed.pairCount).toBe(2);
    expect(openOn(tape)).toBe(0);
    expect((await thrown(() => prepared.at(0))).code).toBe('TD2006');
    prepared.release();
  });

  test('through the CLI: a tape the server rewrites mid-replay stops the replay with exit 2', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    // Answers like the echo server, but the request "rewrite" first rewrites the tape: its first line twice, so
    // every later pair sits one line further on (read at the old offsets, it would be another pair's bytes).
    const server = join(dir, 'rewriter.mjs');
    writeFileSync(
      server,
      `import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (l) => {
  const msg = JSON.parse(l);
  if (msg.method === 'rewrite') {
    const text = readFileSync(process.env.TAPE, 'utf8');
    writeFileSync(process.env.TAPE, text.slice(0, text.indexOf('\\n') + 1) + text);
  }
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: msg.params ?? null }) + '\\n');
});
`,
    );
    // Each pair longer than one 64 KB read, so that each is read from the file when the replay needs it.
    const params = (i: number) => ({ i, pad: 'z'.repeat(40_000) });
    const pairs = (second: string) => [1, 2, 3, 4, 5].map((i) => line(JSON.stringify({ jsonrpc: '2.0', id: i, method: i === 2 ? second : 'echo', params: params(i) }), answer(i, params(i))));
    writeFileSync(tape, `${pairs('rewrite').join('\n')}\n`);
    const res = await tapedeck(['replay', tape, '--', 'node', server], { env: { TAPE: tape } });
    expect(res.stderr).toContain(`${tape}: the tape changed during the replay`);
    expect(res.code).toBe(2);
    // Unchanged, the same tape replays clean.
    writeFileSync(tape, `${pairs('echo').join('\n')}\n`);
    const clean = await tapedeck(['replay', tape, '--', 'node', server], { env: { TAPE: tape } });
    expect(clean.stderr).toContain('0 drift(s)');
    expect(clean.code).toBe(0);
  });

  test('a tape given as a stream (/dev/stdin) cannot be read twice: its bytes are kept and it replays', async () => {
    const tape = join(temp(), 't.ndjson');
    writeFileSync(tape, `${[1, 2].map((i) => line(rpc(i, { s: '→ 🌊' }), answer(i, { s: '→ 🌊' }))).join('\n')}\n`);
    // Through a shell pipe: a spawned process's stdin is a socket, which /dev/stdin cannot open.
    const res = await run(['sh', '-c', `cat "$0" | node "$1" replay /dev/stdin -- "$2" "$3"`, tape, CLI, ...ECHO]);
    expect(res.stderr).toContain('2 pair(s), 0 drift(s)');
    expect(res.code).toBe(0);
  });
});
