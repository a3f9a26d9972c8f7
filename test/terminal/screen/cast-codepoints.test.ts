import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../helpers/cli.js';
import { codepointsOf, textOf } from '../../../src/core/text/codepoints.js';
import { mayHoldRepeatIn, RepeatGuard } from '../../../src/session/screen/vt-guard.js';

/**
 * A large cast's output reaches the screen as code points decoded on the
 * reader thread (session/cast/steps-worker.ts), not as UTF-8 bytes: the same
 * screen, REP guard and all, as the bytes would give. The worker runs only
 * from the build, so the playing is driven through dist/.
 */
const dist = (path: string) => import(join(ROOT, 'dist', path)) as Promise<Record<string, never>>;
const dir = mkdtempSync(join(tmpdir(), 'tapedeck-cast-cp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A seeded generator, so a failure names a case that runs again the same. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

const PIECES = ['a', 'Z', ' ', 'é', '✓', '😀', '🫠', '\ud800', '\udfff', '\u0301', '\u200b', '\u009b', '\x1b', '\x1b[', '[', '9', '99999', ';', ':', 'b', 'm', '\r\n', '\x1b[31m', '\x1b[0m', '\x1b[999999999b'];

function randomText(next: () => number, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

describe('code points decoded off the screen thread', () => {
  it('are what UTF-8 bytes of the same text decode to, lone surrogates (U+FFFD) and astral characters included', () => {
    const next = random(7);
    for (let n = 0; n < 500; n++) {
      const text = randomText(next, 1 + Math.floor(next() * 40));
      const viaBytes = [...Buffer.from(text, 'utf8').toString('utf8')].map((c) => c.codePointAt(0));
      expect([...codepointsOf(text)], JSON.stringify(text)).toEqual(viaBytes);
    }
  });

  it('pass the REP guard exactly as the same text does, split anywhere (a sequence cut across events and writes, counts past a screenful)', () => {
    const next = random(11);
    for (let n = 0; n < 300; n++) {
      const text = randomText(next, 20 + Math.floor(next() * 60));
      // Events as a cast holds them (whole JSON strings: a surrogate pair is never cut), then writes of 1-4 events.
      const events: string[] = [];
      for (let at = 0; at < text.length; ) {
        const end = Math.min(text.length, at + 1 + Math.floor(next() * 12));
        const cut = end < text.length && /[\ud800-\udbff]/.test(text[end - 1]) && /[\udc00-\udfff]/.test(text[end]) ? end + 1 : end;
        events.push(text.slice(at, cut));
        at = cut;
      }
      const size = () => ({ rows: 3, cols: 20 });
      const asText = new RepeatGuard(size);
      const asCodepoints = new RepeatGuard(size);
      let viaText = '';
      let viaCodepoints = '';
      for (let e = 0; e < events.length; ) {
        const write = events.slice(e, (e += 1 + Math.floor(next() * 4)));
        viaText += asText.filter(write.join('')) as string;
        // Each event decoded on its own, as the reader does, into one batch.
        const batch = Uint32Array.from(write.flatMap((event) => [...codepointsOf(event)]));
        viaCodepoints += textOf(asCodepoints.filterCodepoints(batch, mayHoldRepeatIn(batch)));
      }
      // The text guard works on the UTF-16 text (lone surrogates kept); compare the screen's view of both.
      expect(textOf(codepointsOf(viaCodepoints)), JSON.stringify(events)).toBe(textOf(codepointsOf(viaText)));
    }
  });

  /** A cast of about 1.4 MB (numbered lines, colours, wide characters, C1 CSI, a REP cut across events), with its output bytes. */
  /** Python's json.dumps (asciinema 2) escapes every non-ASCII character, astral ones as surrogate pairs, and puts spaces after commas. */
  const pythonJson = (event: [number, string, string]) =>
    JSON.stringify(event).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(/^\[([^,]*),"o",/, '[$1, "o", ');

  function largeCast(cols: number, exact?: { at: number; events: Buffer[] }, write: (event: [number, string, string]) => string = JSON.stringify): { path: string; bytes: Buffer; lines: number } {
    const lines: string[] = [];
    const parts: Buffer[] = [];
    let size = 0;
    for (let i = 0; size < 1_400_000; i++) {
      let out = `\x1b[3${i % 8}m${String(i).padStart(6, '0')}\x1b[0m café ✓ 😀 ${'ipsum '.repeat(i % 5)}\r\n`;
      if (i % 500 === 0) out += `\u009b1;${(i % cols) + 1}H\x1b[7m${i}\x1b[27m\r\n`; // C1 CSI, as a code point
      if (i === 3000) out += 'A\x1b[9999'; // a REP past a screenful, cut across two events
      if (i === 3001) out = `99999b\r\n${out}`;
      lines.push(write([0.001, 'o', out]));
      parts.push(Buffer.from(out, 'utf8'));
      if (exact && i === exact.at) {
        // Events whose bytes are not UTF-8 alone: the text with U+FFFD, then the exact bytes (tapedeck.bytes).
        for (const bytes of exact.events) {
          lines.push(JSON.stringify([0, 'o', bytes.toString('utf8')]), JSON.stringify([0, 'tapedeck.bytes', bytes.toString('base64')]));
          parts.push(bytes);
        }
      }
      size += Buffer.byteLength(out);
    }
    const path = join(dir, `large-${exact ? 'exact' : 'text'}-${write === JSON.stringify ? 'js' : 'py'}.cast`);
    writeFileSync(path, `${JSON.stringify({ version: 2, width: cols, height: 12 })}\n${lines.join('\n')}\n`);
    expect(statSync(path).size).toBeGreaterThan(1024 * 1024); // large enough for the reader thread
    return { path, bytes: Buffer.concat(parts), lines: lines.length };
  }

  it.each([
    ['text only', undefined],
    ['written as Python writes JSON (every non-ASCII character escaped, emoji as surrogate pairs)', undefined, pythonJson],
    // ✓ (e2 9c 93) cut across two events: as bytes it is joined again, as text each half would be U+FFFD.
    ['a character cut across events late in the cast (from there on bytes)', { at: 24_000, events: [Buffer.from([0x41, 0xe2, 0x9c]), Buffer.from([0x93, 0x0d, 0x0a, 0xff, 0x42])] }],
  ] as [string, { at: number; events: Buffer[] } | undefined, ((e: [number, string, string]) => string)?][])('a cast over 1 MB plays through the reader thread to the same screen and scrollback as its bytes written whole: %s', async (_name, exact, write) => {
    const { playCast } = await dist('index.js');
    const { Screen } = await dist('session/screen/screen.js');
    type Played = { write(b: Uint8Array): Promise<void>; scrollbackLines(): string[]; snapshot(o: object): unknown; dispose(): void };
    const cast = largeCast(50, exact, write);
    if (write) expect(readFileSync(cast.path, 'latin1')).toMatch(/^\[0\.001, "o", "\\u001b\[3\dm.*caf\\u00e9 \\u2713 \\ud83d\\ude00/m);
    const scrollback = cast.lines * 3; // every line kept: a lost or doubled byte anywhere shows
    const played = (await (playCast as (p: string, at: undefined, o: object) => Promise<{ screen: Played }>)(cast.path, undefined, { scrollback })).screen;
    const reference = new (Screen as unknown as new (o: object) => Played)({ rows: 12, cols: 50, scrollback });
    try {
      await reference.write(cast.bytes);
      expect(played.scrollbackLines().length).toBeGreaterThan(20_000);
      expect(played.scrollbackLines()).toEqual(reference.scrollbackLines());
      expect(played.snapshot({ includeCells: true })).toEqual(reference.snapshot({ includeCells: true }));
    } finally {
      reference.dispose();
      played.dispose();
    }
  });

  it('a cast whose events outgrow a slot of the reader ring (events of 40,000 characters among small ones) plays to the bytes\' screen', async () => {
    const { playCast } = await dist('index.js');
    const { Screen } = await dist('session/screen/screen.js');
    type Played = { write(b: Uint8Array): Promise<void>; scrollbackLines(): string[]; dispose(): void };
    // Lines of 200 columns that fit the screen's width: over 1 MB of cast in few rows, so the two screens stay small.
    const line = (label: string) => `${label} ✓ ${'x'.repeat(190 - label.length)}\r\n`;
    const outs: string[] = [];
    for (let i = 0; i < 6_000; i++) outs.push(line(String(i).padStart(5, '0')));
    // 40,000 code points in one event (a slot holds 36,864), every 500 lines: however far this thread reads
    // before the worker takes over, the worker meets some.
    for (let at = 500; at < outs.length; at += 500) outs[at] = Array.from({ length: 200 }, (_, k) => line(`big ${at} ${String(k).padStart(3, '0')} 😀`)).join('');
    const path = join(dir, 'giant-event.cast');
    writeFileSync(path, `${JSON.stringify({ version: 2, width: 200, height: 8 })}\n${outs.map((o) => JSON.stringify([0.001, 'o', o])).join('\n')}\n`);
    expect(statSync(path).size).toBeGreaterThan(1024 * 1024);
    const scrollback = 10_000;
    const played = (await (playCast as (p: string, at: undefined, o: object) => Promise<{ screen: Played }>)(path, undefined, { scrollback })).screen;
    const reference = new (Screen as unknown as new (o: object) => Played)({ rows: 8, cols: 200, scrollback });
    try {
      await reference.write(Buffer.from(outs.join(''), 'utf8'));
      expect(played.scrollbackLines().some((l) => l.startsWith('big 5500 199 😀'))).toBe(true);
      expect(played.scrollbackLines()).toEqual(reference.scrollbackLines());
    } finally {
      reference.dispose();
      played.dispose();
    }
  });

  it('a malformed line deep in a cast over 1 MB is the same error, naming its line, whichever thread reads it', async () => {
    const { playCast } = await dist('index.js');
    const { readCast } = await import('../../../src/tape/asciicast/read.js');
    const good = JSON.stringify([0.001, 'o', `${'x'.repeat(100)}\r\n`]);
    const lines = Array.from({ length: 15_000 }, () => good);
    lines[12_000] = '[0.001, "o", "a raw \x01 control character"]'; // JSON.parse refuses it; the byte decoder leaves it to JSON.parse
    const path = join(dir, 'malformed-large.cast');
    writeFileSync(path, `${JSON.stringify({ version: 2, width: 40, height: 5 })}\n${lines.join('\n')}\n`);
    const viaWorker = await (playCast as (p: string) => Promise<unknown>)(path).then(() => undefined, (e: unknown) => e as { code?: string; message: string; location?: unknown });
    const viaThisThread = await readCast(path).then(() => undefined, (e: unknown) => e as { code?: string; message: string; location?: unknown });
    expect(viaThisThread).toMatchObject({ code: 'MALFORMED_CAST', location: { file: path, line: 12_002 } });
    expect(viaThisThread?.message).toMatch(/not valid JSON/);
    expect({ code: viaWorker?.code, message: viaWorker?.message, location: viaWorker?.location }).toEqual({ code: viaThisThread?.code, message: viaThisThread?.message, location: viaThisThread?.location });
  });
});
