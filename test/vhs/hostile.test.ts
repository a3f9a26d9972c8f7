import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { useVhsProjects } from '../helpers/vhs.js';

/**
 * The hostile tapes, through `tapedeck vhs` as a user runs it: each
 * gets a clear error naming the file and line (exit 2, nothing written, no
 * raw control byte on the terminal) or a run that ends in bounded time.
 */
const { project, vhs } = useVhsProjects('hostile');
// No raw control byte but newlines reaches the user's terminal.
const RAW = /[\x00-\x09\x0b-\x1f\x7f]/;

describe('hostile tapes', () => {
  test('a 10 MB Type string, a NUL byte, escape bytes in an error: exit 2 naming file:line:column, quickly, nothing written', async () => {
    const cases: [string, string | Buffer, RegExp][] = [
      ['huge', `Output a.txt\nType "${'x'.repeat(10 * 1024 * 1024)}"\n`, /a\.tape:2:6: error: Type string is 10485760 characters long; at most 65536/],
      ['nul', Buffer.from('Output a.txt\nType "a\0b"\n'), /a\.tape:2:6: error: Type string holds a NUL byte/],
      ['escape', 'Output a.txt\nBogus "\x1b]0;pwned\x07\x1b[2J"\n', /a\.tape:2:1: error: [^\n]*\n[\s\S]*\\x1b\]0;pwned\\x07\\x1b\[2J/],
    ];
    for (const [name, text, message] of cases) {
      const dir = project({ 'a.tape': text });
      const t0 = performance.now();
      const r = await vhs(dir, ['a.tape']);
      expect(r.stderr, name).toMatch(message);
      expect(r.stderr, name).not.toMatch(RAW);
      expect(r.code, name).toBe(2);
      expect(performance.now() - t0, name).toBeLessThan(5000);
      expect(existsSync(join(dir, 'a.txt')), name).toBe(false);
    }
  });

  test('Source nested 10,000 deep (200 without TAPEDECK_SOAK) and a Source cycle: exit 2 naming the line', async () => {
    const depth = process.env.TAPEDECK_SOAK === '1' ? 10_000 : 200;
    const files: Record<string, string> = { 'c1.tape': 'Source c2.tape\n', 'c2.tape': 'Type "x"\nSource c1.tape\n' };
    for (let i = 0; i < depth; i++) files[`n${i}.tape`] = i === depth - 1 ? 'Enter\n' : `Source n${i + 1}.tape\n`;
    const dir = project(files);
    const deep = await vhs(dir, ['n0.tape']);
    expect(deep.stderr).toMatch(/n63\.tape:1:8: error: Source nested more than 64 tapes deep/);
    expect(deep.code).toBe(2);
    const cycle = await vhs(dir, ['c1.tape']);
    expect(cycle.stderr).toMatch(/c2\.tape:2:8: error: Source cycle: c1\.tape -> c2\.tape -> c1\.tape/);
    expect(cycle.code).toBe(2);
  });

  test('a Wait with a catastrophically backtracking regex over a long line fails in bounded time with the line it saw', async () => {
    const dir = project({ 'r.tape': 'Output r.txt\nType "printf \'a%.0s\' $(seq 60); echo b"\nEnter\nWait+Screen@20s /(a+)+$/\n' });
    const t0 = performance.now();
    const r = await vhs(dir, ['r.tape']);
    expect(r.stderr).toMatch(/r\.tape:4: Wait\+Screen \/\(a\+\)\+\$\/ timed out after 20000 ms; the screen was:\n\s+> printf/);
    expect(r.code).toBe(2);
    // The screen stopped changing: the Wait gives up a second later, not after its 20 s.
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(existsSync(join(dir, 'r.txt'))).toBe(false);
  });

  test('a CRLF tape with a byte order mark runs exactly as its LF form', async () => {
    const lf = 'Output o.txt\nSet Width 600\nSet Height 300\nType "echo crlf"\nEnter\nSleep 200ms\n';
    const a = project({ 'o.tape': lf });
    const b = project({ 'o.tape': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lf.replaceAll('\n', '\r\n'))]) });
    expect((await vhs(a, ['o.tape'])).code).toBe(0);
    const r = await vhs(b, ['o.tape']);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(b, 'o.txt'), 'utf8');
    expect(text).toContain('> echo crlf\ncrlf\n');
    expect(text).toBe(readFileSync(join(a, 'o.txt'), 'utf8'));
  });
});
