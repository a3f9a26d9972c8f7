import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codepointsOf } from '../../src/core/text/codepoints.js';
import { decodeOutputLine } from '../../src/tape/asciicast/output-line.js';
import { openCast } from '../../src/tape/asciicast/read.js';
import { rng } from '../helpers/fuzz-gen.js';

// An output line decoded straight from its bytes must be exactly what the ordinary way gives
// (JSON.parse of the UTF-8 text, then code points), or be left to it: never a third answer.

const MAX = 1e9;
const TEXTS = ['a', 'Z', ' ', '!', '"', '\\', '/', 'é', '✓', '😀', '🫠', '\u0301', '\u200b', '\u009b', '\x1b', '\x1b[31m', '\r\n', '\t', '\x7f', '\x00', '\ud800', '\udfff', '\u2028', '9b', ''];

/** What the cast reader's ordinary way makes of a line: [time, code points] of an "o" event, or undefined. */
function ordinary(bytes: Buffer): { time: number; codepoints: number[] } | 'error' | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'error';
  }
  if (!Array.isArray(value) || value.length !== 3 || value[1] !== 'o' || typeof value[2] !== 'string' || typeof value[0] !== 'number') return undefined;
  return { time: value[0], codepoints: [...codepointsOf(value[2])] };
}

function fast(bytes: Buffer) {
  const into = new Uint32Array(bytes.length);
  const line = decodeOutputLine(bytes, into, MAX);
  return line && { time: line.time, codepoints: [...into.subarray(0, line.length)] };
}

/** JSON text for a string the way writers spell it: plain (JSON.stringify), every non-ASCII escaped (Python's ensure_ascii), or escapes in capitals. */
function spell(text: string, style: number): string {
  const plain = JSON.stringify(text);
  if (style === 0) return plain;
  return plain.replace(/[\u007f-\uffff]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${style === 1 ? hex : hex.toUpperCase()}`;
  });
}

describe('output lines decoded from their bytes', () => {
  it('give the time and code points JSON.parse gives, for lines as asciinema, Python and tapedeck write them', () => {
    const rand = rng(41);
    let decoded = 0;
    for (let n = 0; n < 2000; n++) {
      let text = '';
      for (let k = Math.floor(rand() * 30); k > 0; k--) text += TEXTS[Math.floor(rand() * TEXTS.length)];
      const time = [0, 0.001, 1.5, 123.456789, 1e-7, 2.5e3, 1e9][Math.floor(rand() * 7)];
      const gap = rand() < 0.5 ? '' : ' ';
      const line = Buffer.from(`[${time},${gap}"o",${gap}${spell(text, Math.floor(rand() * 3))}]`);
      const want = ordinary(line);
      const got = fast(line);
      const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
      if (got) decoded++;
      // Left to the ordinary way only when the text has an unpaired surrogate (which only a string decodes, to U+FFFD).
      expect(got ?? (lone ? 'left' : 'missed'), line.toString()).toEqual(lone ? 'left' : want);
    }
    expect(decoded).toBeGreaterThan(500);
  });

  it('leave every other or broken line to the ordinary way (which gives the event or the error)', () => {
    const cases = [
      '[0.5, "i", "x"]', '[0.5, "m", ""]', '[0.5, "r", "80x24"]', '[0.5, "o"]', '[0.5, "o", "x", 1]', '{"o": 1}', '["0.5", "o", "x"]',
      '[-1, "o", "x"]', '[1e10, "o", "x"]', '[01, "o", "x"]', '[1., "o", "x"]', '[.5, "o", "x"]', '[0x1, "o", "x"]', '[NaN, "o", "x"]',
      '[0.5, "o", "x"] trailing', '[0.5, "o", "x"', '[0.5, "o", "x]', '[0.5, "o", "a\\"]', '[0.5, "o", "bad \\q escape"]', '[0.5, "o", "\\u12"]',
      '[0.5, "o", "\\ud83d"]', '[0.5, "o", "\\ude00"]', '[0.5, "o", "\\ud83d\\u0041"]', '[0.5,, "o", "x"]', '[0.5 "o" "x"]', '',
    ];
    for (const text of cases) {
      const line = Buffer.from(text);
      expect(fast(line), text).toBeUndefined();
    }
    // Bytes that are not UTF-8 (a lone continuation, an overlong NUL, a surrogate, a cut sequence, past U+10FFFF): U+FFFD through a string.
    for (const bad of [[0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x9c], [0xf4, 0x90, 0x80, 0x80], [0xff]]) {
      const line = Buffer.concat([Buffer.from('[1, "o", "a'), Buffer.from(bad), Buffer.from('b"]')]);
      expect(fast(line), JSON.stringify(bad)).toBeUndefined();
    }
    // And the escapes that are whole: a surrogate pair, every short escape.
    expect(fast(Buffer.from('[0, "o", "\\ud83d\\ude00\\"\\\\\\/\\b\\f\\n\\r\\t"]'))?.codepoints).toEqual([0x1f600, 0x22, 0x5c, 0x2f, 8, 12, 10, 13, 9]);
  });

  it('read from a cast, are the events the ordinary reader gives: times, data when asked, exact bytes, markers and resizes between', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-output-line-'));
    try {
      const path = join(dir, 'mixed.cast');
      const lines = [
        JSON.stringify({ version: 3, term: { cols: 20, rows: 4 } }),
        '[0.5, "o", "caf\\u00e9 \\ud83d\\ude00\\r\\n"]',
        '# a comment',
        JSON.stringify([0.25, 'o', 'two\r\n']),
        JSON.stringify([0, 'o', 'A\ufffd']),
        JSON.stringify([0, 'tapedeck.bytes', Buffer.from([0x41, 0xff]).toString('base64')]),
        JSON.stringify([0.1, 'm', 'mark']),
        JSON.stringify([0.1, 'r', '30x5']),
        '[0.125,"o","\\u001b[31mred\\u001b[0m"]',
        '',
        JSON.stringify([1, 'o', 'last']),
      ];
      writeFileSync(path, `${lines.join('\n')}\n`);
      const plain = [];
      for await (const e of (await openCast(path)).events()) plain.push({ ...e });
      const decoded = [];
      for await (const e of (await openCast(path)).events({ outputCodepoints: true })) {
        // The code points are read as each event comes (the array is reused after the next).
        decoded.push({ time: e.time, code: e.code, line: e.line, bytes: e.bytes, codepoints: e.codepoints && [...e.codepoints], data: e.data });
      }
      expect(decoded.map((e) => ({ time: e.time, code: e.code, line: e.line, data: e.data, bytes: e.bytes }))).toEqual(plain.map((e) => ({ time: e.time, code: e.code, line: e.line, data: e.data, bytes: e.bytes })));
      // Every output line but the one with exact bytes' text (plain JSON, decoded too) came decoded, and as its data reads.
      const outputs = decoded.filter((e) => e.code === 'o');
      expect(outputs.filter((e) => e.codepoints).length).toBe(5);
      for (const e of outputs.filter((o) => o.codepoints)) expect(e.codepoints).toEqual([...codepointsOf(e.data)]);
      expect(outputs.find((e) => e.bytes)?.bytes).toEqual(Buffer.from([0x41, 0xff]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
