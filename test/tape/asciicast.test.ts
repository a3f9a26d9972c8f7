import { afterAll, describe, expect, it } from 'vitest';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BYTES_EVENT, eventBytes, type CastEvent } from '../../src/tape/asciicast/events.js';
import { CastWriter } from '../../src/tape/asciicast/write.js';
import { jsonStringMaxBytes, writeJsonStringBytes } from '../../src/tape/protocol/json-bytes.js';
import { playCast, readCast, TapedeckError, recordTerminal } from '../../src/index.js';
import { openCast } from '../../src/tape/asciicast/read.js';
import { spawnTerminal } from '../../src/session/index.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/casts');
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-cast-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function outputOf(events: CastEvent[]): Buffer {
  return Buffer.concat(events.flatMap((e) => (e.code === 'o' ? [eventBytes(e)] : [])));
}

async function castError(content: string, name = 'bad.cast'): Promise<TapedeckError> {
  const path = join(dir, name);
  writeFileSync(path, content);
  try {
    await readCast(path);
  } catch (err) {
    expect(err).toBeInstanceOf(TapedeckError);
    return err as TapedeckError;
  }
  throw new Error('expected the cast to be rejected');
}

describe('reading asciicast fixtures', () => {
  it('reads v1 (relative delays, one JSON document)', async () => {
    const { header, events } = await readCast(join(FIXTURES, 'v1.cast'));
    expect(header).toMatchObject({ version: 1, cols: 20, rows: 4, title: 'v1 demo', command: '/bin/sh', termType: 'xterm-256color' });
    expect(events.map((e) => [e.code, +e.time.toFixed(6)])).toEqual([['o', 0.1], ['o', 0.6], ['o', 1.5]]);
    const played = await playCast(join(FIXTURES, 'v1.cast'));
    expect(played.screen.text()).toBe('hello world\nbold café');
    played.screen.dispose();
  });

  it('reads v2 (absolute times) with markers, input and resize', async () => {
    const { header, events } = await readCast(join(FIXTURES, 'v2.cast'));
    expect(header).toMatchObject({ version: 2, cols: 20, rows: 4, timestamp: 1700000000, title: 'v2 demo', termType: 'xterm-256color' });
    expect(events.map((e) => [e.time, e.code, e.data])).toEqual([
      [0.1, 'o', 'hello '], [0.5, 'o', 'world\r\n'], [0.7, 'm', 'greeted'], [0.8, 'i', 'q'], [0.9, 'r', '30x5'], [1.2, 'o', 'café ✓'],
    ]);
    expect(events.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7]);
    const played = await playCast(join(FIXTURES, 'v2.cast'));
    expect(played.screen.snapshot()).toMatchObject({ rows: 5, cols: 30, visibleLines: ['hello world', 'café ✓', '', '', ''] });
    played.screen.dispose();
  });

  it('reads v3 (intervals, comments, exit)', async () => {
    const { header, events } = await readCast(join(FIXTURES, 'v3.cast'));
    expect(header).toMatchObject({ version: 3, cols: 20, rows: 4, termType: 'xterm-256color', command: 'bash', env: { SHELL: '/bin/bash' } });
    expect(events.map((e) => [+e.time.toFixed(6), e.code, e.data])).toEqual([
      [0.1, 'o', 'hello '], [0.5, 'o', 'world\r\n'], [0.7, 'm', 'greeted'], [0.8, 'i', 'q'], [0.9, 'r', '30x5'], [1.2, 'o', 'café ✓'], [1.7, 'x', '0'],
    ]);
    const atMarker = await playCast(join(FIXTURES, 'v3.cast'), { marker: 'greeted' });
    expect(atMarker.screen.text()).toBe('hello world');
    expect(atMarker.screen.cols).toBe(20);
    atMarker.screen.dispose();
    const atTime = await playCast(join(FIXTURES, 'v3.cast'), { seconds: 0.3 });
    expect(atTime.screen.text()).toBe('hello '); // the written space is kept
    atTime.screen.dispose();
    const end = await playCast(join(FIXTURES, 'v3.cast'));
    expect(end.exitStatus).toBe(0);
    end.screen.dispose();
  });

  it('reads a cast asciinema 2.2 wrote without a terminal size (0x0 means 80x24)', async () => {
    const played = await playCast(join(FIXTURES, 'asciinema-2.2-no-size.cast'));
    expect(played.header).toMatchObject({ version: 2, cols: 80, rows: 24 });
    expect(played.screen.text()).toBe('hello green');
    played.screen.dispose();
  });

  it('reads a cast recorded live by `asciinema rec` under a PTY', async () => {
    const out = join(dir, 'asciinema-live.cast');
    const t = spawnTerminal('asciinema', ['rec', '--quiet', '--stdin', '-c', 'printf "from asciinema \\033[1mbold\\033[0m"', out], {
      rows: 6, cols: 40, env: { HOME: dir },
    });
    try {
      expect((await t.waitForExit({ timeoutMs: 20_000 })).exitCode).toBe(0);
    } finally {
      await t.dispose();
    }
    const played = await playCast(out);
    expect(played.header).toMatchObject({ version: 2, cols: 40, rows: 6 });
    expect(played.screen.text()).toBe('from asciinema bold');
    expect(played.screen.snapshot({ includeCells: true }).cells![0][15]).toMatchObject({ char: 'b', bold: true });
    played.screen.dispose();
  });
});

describe('writing casts', () => {
  const events = (w: CastWriter) => {
    // "é" (c3 a9) and "✓" (e2 9c 93) split across chunks, plus bytes that are not UTF-8.
    w.output(0.1, Buffer.from('caf\xc3', 'latin1'));
    w.output(0.2, Buffer.from('\xa9 \xe2\x9c', 'latin1'));
    w.output(0.3, Buffer.from('\x93 ok\r\n', 'latin1'));
    w.input(0.4, Buffer.from('q'));
    w.marker(0.5, 'checkpoint');
    w.resize(0.6, 30, 6);
    w.output(0.7, Buffer.from([0x62, 0x61, 0x64, 0xff, 0xfe, 0x21]));
    w.exit(0.8, 3);
  };
  const expectedOutput = Buffer.concat([Buffer.from('café ✓ ok\r\n'), Buffer.from([0x62, 0x61, 0x64, 0xff, 0xfe, 0x21])]);

  for (const format of ['v3', 'v2'] as const) {
    it(`round-trips ${format}: split UTF-8 joined, invalid bytes exact, times, markers, resize, exit`, async () => {
      const path = join(dir, `round-${format}.cast`);
      const w = new CastWriter(path, { format, cols: 20, rows: 4, termType: 'xterm-256color', title: 't', argv: ['sh', '-c', "echo 'x y'"], timestamp: 1700000000 });
      expect(existsSync(path)).toBe(false); // nothing under the real name until close()
      events(w);
      w.close();
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
      const header = JSON.parse(lines[0]);
      if (format === 'v3') {
        expect(header).toEqual({ version: 3, term: { cols: 20, rows: 4, type: 'xterm-256color' }, timestamp: 1700000000, title: 't', command: "sh -c 'echo '\\''x y'\\'''", tapedeck: { argv: ['sh', '-c', "echo 'x y'"] } });
        expect(JSON.parse(lines[1])).toEqual([0.1, 'o', 'caf']);
        expect(JSON.parse(lines[2])).toEqual([0.1, 'o', 'é ']);
      } else {
        expect(header).toMatchObject({ version: 2, width: 20, height: 4, env: { TERM: 'xterm-256color' } });
        expect(JSON.parse(lines[2])).toEqual([0.2, 'o', 'é ']);
      }
      // Each event line is valid JSON with a valid UTF-8 string (no split characters).
      for (const line of lines.slice(1)) expect(() => JSON.parse(line)).not.toThrow();
      const bytesLine = lines.findIndex((l) => l.includes(BYTES_EVENT));
      expect(JSON.parse(lines[bytesLine - 1])[2]).toBe('bad\ufffd\ufffd!');
      const { header: h, events: read } = await readCast(path);
      expect(h).toMatchObject({ cols: 20, rows: 4, argv: ['sh', '-c', "echo 'x y'"] });
      expect(outputOf(read).equals(expectedOutput)).toBe(true);
      expect(read.filter((e) => e.code !== 'o').map((e) => [+e.time.toFixed(6), e.code, e.data])).toEqual([
        [0.4, 'i', 'q'], [0.5, 'm', 'checkpoint'], [0.6, 'r', '30x6'], [0.8, 'x', '3'],
      ]);
    });
  }

  it('escapes output bytes exactly as JSON.stringify escapes their text (every byte value, multi-byte characters, BOM)', () => {
    const all = Buffer.concat([Buffer.from(Array.from({ length: 128 }, (_, i) => i)), Buffer.from('é✓😀\ufeff\u2028"\\\r\n', 'utf8')]);
    const out = Buffer.alloc(jsonStringMaxBytes(all.length));
    for (const bytes of [all, Buffer.from('1\r\n2\r\n'), Buffer.alloc(0)]) {
      const end = writeJsonStringBytes(out, 0, bytes);
      expect(out.subarray(0, end).toString('utf8')).toBe(JSON.stringify(bytes.toString('utf8')));
    }
  });

  it('writes the lines JSON.stringify would, chunk sizes and bytes of all kinds', () => {
    // Output escaped from its bytes, input, markers and invalid bytes go different ways into one buffer.
    const path = join(dir, 'lines.cast');
    const w = new CastWriter(path, { cols: 20, rows: 4, timestamp: 1 });
    const chunks = [Buffer.from('a"\\\x01\x1b[1mé'), Buffer.alloc(300_000, 'x\r\n'), Buffer.from([0xff, 0x41]), Buffer.from('✓\t')];
    const expected: unknown[] = [];
    for (const [i, chunk] of chunks.entries()) {
      w.output(i, chunk);
      expected.push([i === 0 ? 0 : 1, 'o', chunk.toString('utf8')]);
      if (i === 2) expected.push([0, BYTES_EVENT, chunk.toString('base64')]);
      w.input(i, Buffer.from(`k${i}`));
      expected.push([0, 'i', `k${i}`]);
    }
    w.close();
    const lines = readFileSync(path, 'utf8').split('\n').slice(1, -1);
    expect(lines).toEqual(expected.map((e) => JSON.stringify(e)));
  });

  for (const how of ['close', 'closeAsync'] as const) {
    it(`${how}() reports a disk full at the last write as such, and leaves no file`, async () => {
      const path = join(dir, `full-${how}.cast`);
      const w = new CastWriter(path, { cols: 10, rows: 3 });
      w.output(0, Buffer.from('x'));
      // The pending lines go out on close, into a full disk.
      const inner = w as unknown as { fd: number };
      closeSync(inner.fd);
      inner.fd = openSync('/dev/full', 'w');
      await expect(async () => w[how]()).rejects.toMatchObject({ code: 'STORAGE_WRITE_ERROR', message: expect.stringContaining('no space left on device') });
      expect(readdirSync(dir).filter((f) => f.includes(`full-${how}`))).toEqual([]);
    });
  }

  it('abort() leaves no file behind', () => {
    const path = join(dir, 'aborted.cast');
    const w = new CastWriter(path, { cols: 10, rows: 3 });
    w.output(0, Buffer.from('x'));
    w.abort();
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('aborted'))).toEqual([]);
  });

  it('records a program that writes invalid UTF-8 and gets the exact bytes back', async () => {
    const out = join(dir, 'binary.cast');
    const { done } = await recordTerminal({ out, command: 'printf', args: ['A\\377\\376B\\342\\234\\223'] });
    expect((await done).exitCode).toBe(0);
    const { events } = await readCast(out);
    expect([...outputOf(events)]).toEqual([0x41, 0xff, 0xfe, 0x42, 0xe2, 0x9c, 0x93]);
    expect(readFileSync(out, 'utf8')).toContain(`"${BYTES_EVENT}"`);
  });

  it('writes v2 that `asciinema cat` plays (exit and byte events are skipped by it)', async () => {
    const path = join(dir, 'for-asciinema.cast');
    const w = new CastWriter(path, { format: 'v2', cols: 30, rows: 5, termType: 'xterm-256color' });
    w.output(0.1, Buffer.from('played by \x1b[1masciinema\x1b[0m\r\n'));
    w.marker(0.2, 'm1');
    w.output(0.3, Buffer.from([0x6f, 0x6b, 0xff]));
    w.exit(0.4, 0);
    w.close();
    // asciinema cat reads /dev/tty, so it needs a terminal: run it in one.
    const t = spawnTerminal('asciinema', ['cat', path], { rows: 5, cols: 30, env: { HOME: dir } });
    try {
      expect((await t.waitForExit({ timeoutMs: 20_000 })).exitCode).toBe(0);
      expect(await t.text()).toBe('played by asciinema\nok\ufffd');
    } finally {
      await t.dispose();
    }
  });
});

describe('malformed casts are usage errors that name file and line', () => {
  it.each([
    ['empty file', '', 1, 'empty file'],
    ['not JSON', 'hello\n', 1, 'not an asciicast'],
    ['unknown version', '{"version": 7, "width": 1, "height": 1}\n', 1, 'unsupported asciicast version 7'],
    ['v2 bad size', '{"version": 2, "width": -3, "height": 4}\n', 1, 'width/height'],
    ['v3 missing term', '{"version": 3}\n', 1, '"term"'],
    ['bad event JSON', '{"version": 2, "width": 10, "height": 3}\n[0.1, "o", "ok"]\n[0.2, "o", \n', 3, 'not valid JSON'],
    ['event not an array', '{"version": 3, "term": {"cols": 10, "rows": 3}}\n{"t": 1}\n', 2, 'event must be [interval, code, data]'],
    ['negative interval', '{"version": 3, "term": {"cols": 10, "rows": 3}}\n[-1, "o", "x"]\n', 2, 'interval must be a number >= 0'],
    ['bad resize', '{"version": 2, "width": 10, "height": 3}\n[0.1, "r", "wide"]\n', 2, 'COLSxROWS'],
    ['data not a string', '{"version": 2, "width": 10, "height": 3}\n[0.1, "o", 5]\n', 2, 'data must be a string'],
    ['orphan bytes event', `{"version": 2, "width": 10, "height": 3}\n[0.1, "m", "x"]\n[0.1, "${BYTES_EVENT}", "AA=="]\n`, 3, 'must directly follow'],
    ['v1 bad frame', '{"version": 1, "width": 10, "height": 3, "stdout": [[0.1, 3]]}', 1, 'stdout[0]'],
  ])('%s', async (name, content, line, message) => {
    const err = await castError(content, `${name.replace(/ /g, '-')}.cast`);
    expect(err.code).toBe('MALFORMED_CAST');
    expect(err.exitCode).toBe(2);
    expect(err.location).toEqual({ file: join(dir, `${name.replace(/ /g, '-')}.cast`), line });
    expect(err.message).toContain(message);
    expect(err.describe()).toMatch(new RegExp(`\\.cast:${line}: `));
  });

  it('a missing file is an IO error naming it', async () => {
    await expect(openCast(join(dir, 'missing.cast'))).rejects.toMatchObject({ code: 'STORAGE_READ_ERROR', location: { file: join(dir, 'missing.cast') } });
  });

  it('an unknown marker names the markers the tape has', async () => {
    await expect(playCast(join(FIXTURES, 'v3.cast'), { marker: 'nope' })).rejects.toMatchObject({
      code: 'MARKER_NOT_FOUND',
      message: expect.stringContaining('"greeted"'),
    });
  });
});
