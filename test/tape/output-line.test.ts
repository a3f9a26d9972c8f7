import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plainOutputLine } from '../../src/tape/asciicast/output-line.js';
import { openCast } from '../../src/tape/asciicast/read.js';
import { codepointsOf } from '../../src/core/text/codepoints.js';
import { TapedeckError } from '../../src/core/diagnostics/errors.js';
import { rng } from '../helpers/fuzz-gen.js';

// The one-pass reader of `[time, "o", "text"]` lines against JSON.parse and codepointsOf, the
// general path it stands in for: whatever it accepts it must read the same, and everything
// JSON.parse refuses (or reads differently from UTF-8) it must leave to the general reader.

const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

const TEXT = ['abc', ' ', '"', '\\', '/', 'é', '✓', '中', '😀', '🫠', '\ud800', '\udfff', '\x00', '\x1b[31m', '\x7f', '\u0080', '\u009b', '\u2028', '\ufeff', '\r\n', '\t', '\b\f'];
const TIMES = ['0', '-0', '0.001', '1.5', '12', '1e3', '1E-3', '2.5e+2', '-1', '1e400', '1000000001', '01', '.5', '1.', '1e', '-', '0x1', 'NaN', '"1"'];
const SPACES = ['', ' ', '  ', '\t', '\r', ' \t '];
/** Escapes JSON allows but JSON.stringify never writes, spliced into the string's source text. */
const ESCAPES = ['\\u0041', '\\u00e9', '\\u00E9', '\\/', '\\ud83d\\ude00', '\\uD83D\\uDE00', '\\ud83d', '\\ude00', '\\ud83dx', '\\u001b', '\\u0000', '\\uffff'];
/** Bytes that are not JSON or not UTF-8, spliced in raw. */
const HOSTILE: Buffer[] = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x9c], [0xf4, 0x90, 0x80, 0x80], [0xf0, 0x9f, 0x98], [0x01], [0x1f], [0x0a], [0xe0, 0x80, 0x80], [0xf0, 0x80, 0x80, 0x80], [0x5c], [0x5c, 0x78], [0x5c, 0x75, 0x31, 0x32], [0x22]].map((b) => Buffer.from(b));

function randomLine(rand: () => number): Buffer {
  let text = '';
  for (let n = Math.floor(rand() * 12); n > 0; n--) text += pick(rand, TEXT);
  let body = JSON.stringify(text).slice(1, -1);
  if (rand() < 0.3) body += pick(rand, ESCAPES) + JSON.stringify(pick(rand, TEXT)).slice(1, -1);
  const s = () => pick(rand, SPACES);
  const code = rand() < 0.9 ? '"o"' : pick(rand, ['"i"', '"m"', '"x"', '"oo"', 'o', '"\\u006f"']);
  const tail = rand() < 0.9 ? ']' : pick(rand, [', 5]', ',]', '', ']]', '] x']);
  const head = rand() < 0.95 ? '[' : pick(rand, ['{', '[[', '']);
  const line = Buffer.from(`${head}${s()}${pick(rand, TIMES)}${s()},${s()}${code}${s()},${s()}"${body}"${s()}${tail}${s()}`, 'utf8');
  if (rand() > 0.1) return line;
  // A hostile byte somewhere inside the string.
  const quote = line.indexOf(0x22, line.indexOf(0x2c, line.indexOf(0x2c) + 1));
  const at = quote + 1 + Math.floor(rand() * Math.max(1, line.length - quote - 3));
  return Buffer.concat([line.subarray(0, at), pick(rand, HOSTILE), line.subarray(at)]);
}

describe('output lines read from their bytes', () => {
  it('read as JSON.parse and codepointsOf read them, and leave every other line to the general reader (20,000 random lines)', () => {
    const rand = rng(30);
    const counts = { fast: 0, general: 0, refused: 0 };
    for (let i = 0; i < 20_000; i++) {
      const line = randomLine(rand);
      const text = line.toString('utf8');
      const fast = plainOutputLine(line);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        expect(fast, `JSON.parse refuses ${JSON.stringify(text)}`).toBeUndefined();
        counts.refused++;
        continue;
      }
      if (!fast) {
        counts.general++;
        continue;
      }
      counts.fast++;
      // Accepted: exactly [number, "o", string], from bytes that are UTF-8 (else toString would have replaced some).
      expect(Buffer.from(text, 'utf8').equals(line), `not UTF-8: ${JSON.stringify(text)}`).toBe(true);
      expect(Array.isArray(value) && value.length === 3 && value[1] === 'o' && typeof value[2] === 'string', text).toBe(true);
      const [stamp, , data] = value as [number, string, string];
      expect(Object.is(fast.stamp, stamp), text).toBe(true);
      expect([...fast.codepoints], text).toEqual([...codepointsOf(data)]);
    }
    // Each path taken often enough to mean something.
    expect(counts.fast).toBeGreaterThan(5_000);
    expect(counts.general).toBeGreaterThan(1_000);
    expect(counts.refused).toBeGreaterThan(1_000);
  });

  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-output-line-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('give a cast the same events either way: comments, blank lines, markers, exact bytes, a last line cut short', async () => {
    const rand = rng(31);
    const lines: string[] = [JSON.stringify({ version: 3, term: { cols: 20, rows: 4 } })];
    for (let i = 0; i < 400; i++) {
      let text = '';
      for (let n = Math.floor(rand() * 8); n > 0; n--) text += pick(rand, TEXT);
      lines.push(JSON.stringify([Math.round(rand() * 1000) / 1000, 'o', text]));
      if (i % 50 === 7) lines.push('# a comment', '', JSON.stringify([0, 'm', `mark ${i}`]));
      if (i % 90 === 3) lines.push(JSON.stringify([0, 'tapedeck.bytes', Buffer.from([0x41, 0xff]).toString('base64')]));
      if (i % 70 === 5) lines.push(`[ 0.5 ,\t"o" , "spaced \\u00e9\\/" ]`);
    }
    const path = join(dir, 'mixed.cast');
    writeFileSync(path, `${lines.join('\n')}\n[0.1, "o", "cut sh`);
    const read = async (outputCodepoints: boolean) => {
      const out: unknown[] = [];
      for await (const e of (await openCast(path)).events({ outputCodepoints })) {
        out.push({ time: e.time, code: e.code, line: e.line, bytes: e.bytes?.toString('hex'), data: e.codepoints ? [...e.codepoints] : e.code === 'o' ? [...codepointsOf(e.data)] : e.data });
      }
      return out;
    };
    const general = await read(false);
    expect(general.length).toBeGreaterThan(400);
    expect(await read(true)).toEqual(general);
    // The one-pass path was taken: the output events carry code points.
    let withCodepoints = 0;
    for await (const e of (await openCast(path)).events({ outputCodepoints: true })) if (e.codepoints) withCodepoints++;
    expect(withCodepoints).toBeGreaterThan(300);
  });

  it('leave a bad time to the general reader, which names the file and line', async () => {
    const path = join(dir, 'bad-time.cast');
    writeFileSync(path, `${JSON.stringify({ version: 3, term: { cols: 20, rows: 4 } })}\n[0.1, "o", "ok"]\n[1e400, "o", "x"]\n`);
    const events = (await openCast(path)).events({ outputCodepoints: true });
    const err = await (async () => {
      for await (const _ of events);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TapedeckError);
    expect((err as TapedeckError).location).toEqual({ file: path, line: 3 });
    expect((err as Error).message).toMatch(/interval must be a number/);
  });
});
