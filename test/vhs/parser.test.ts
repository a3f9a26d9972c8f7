import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { compileGoRegex, formatDiagnostics, loadTape, parseTape, MAX_SOURCE_DEPTH } from '../../src/tape/vhs/index.js';
import { tempDir } from '../helpers/cli.js';

const tmp = tempDir('tapedeck-vhs-parse-');
afterAll(() => tmp.cleanup());

const parse = (text: string) => parseTape(text, 'demo.tape');
const kinds = (text: string) => parse(text).commands.map((c) => ({ ...c, at: undefined }));

describe('VHS grammar', () => {
  test('every command and setting parses as VHS reads it', () => {
    const tape = [
      'Output demo.gif', 'Output demo.webm', 'Output demo.mp4', 'Output demo.txt', 'Output demo.ascii', 'Output demo.cast', 'Output frames/',
      'Require bash', 'Set Shell "bash"', 'Set FontSize 32', 'Set FontFamily "Monoid"', 'Set Width 1200', 'Set Height 600',
      'Set LetterSpacing 1.5', 'Set LineHeight 1.2', 'Set Theme "Catppuccin Frappe"', 'Set Theme { "name": "x", "background": "#000000" }',
      'Set Padding 10', 'Set Margin 20', 'Set MarginFill "#6B50FF"', 'Set MarginFill #6B50FF', 'Set WindowBar Colorful', 'Set WindowBarSize 40',
      'Set BorderRadius 8', 'Set Framerate 24', 'Set PlaybackSpeed 2.0', 'Set TypingSpeed 75ms', 'Set TypingSpeed 1', 'Set LoopOffset 20%',
      'Set LoopOffset 5', 'Set CursorBlink false', 'Set WaitTimeout 3s', 'Set WaitPattern /\\$ $/',
      'Sleep 500ms', 'Sleep 2', 'Sleep .5', 'Sleep 1m',
      'Type "double" \'single\' `back`', 'Type@10ms "fast"', 'Type bare words',
      'Backspace 3', 'Delete', 'Insert', 'Enter@200ms 2', 'Space', 'Tab 2', 'Escape', 'Up', 'Down 4', 'Left', 'Right@1s',
      'PageUp', 'PageDown 2', 'Home', 'End', 'ScrollUp 3', 'ScrollDown',
      'Ctrl+C', 'Ctrl+Alt+Shift+P', 'Ctrl+[', 'Ctrl+@', 'Ctrl+Enter', 'Alt+.', 'Alt+Enter', 'Shift+Tab', 'Shift+A',
      'Hide', 'Show', 'Screenshot shot.png', 'Copy "clip"', 'Paste', 'Env GREETING "hi"',
      'Wait', 'Wait /done/', 'Wait+Screen /a\\/b/', 'Wait+Line@5s />$/',
      '# a comment',
    ].join('\n');
    const r = parse(tape);
    expect(r.errors).toEqual([]);
    const c = r.commands;
    expect(c.filter((x) => x.kind === 'Output').map((x) => (x as { format: string }).format)).toEqual(['gif', 'webm', 'mp4', 'txt', 'ascii', 'cast', 'frames']);
    expect(c.filter((x) => x.kind === 'Set')).toHaveLength(25);
    expect(c.find((x) => x.kind === 'Set' && x.setting === 'MarginFill' && x.raw === '#6B50FF')).toBeDefined();
    expect(c.filter((x) => x.kind === 'Sleep').map((x) => (x as { ms: number }).ms)).toEqual([500, 2000, 500, 60000]);
    expect(c.filter((x) => x.kind === 'Type').map((x) => (x as { text: string }).text)).toEqual(['double single back', 'fast', 'bare words']);
    expect(kinds('Enter@200ms 2')).toEqual([{ kind: 'Key', key: 'Enter', speedMs: 200, count: 2, at: undefined }]);
    expect(kinds('Ctrl+Alt+Shift+P')).toEqual([{ kind: 'Ctrl', modifiers: ['Alt', 'Shift'], key: 'P', at: undefined }]);
    expect(kinds('Wait+Line@5s />$/')).toEqual([{ kind: 'Wait', scope: 'Line', timeoutMs: 5000, pattern: '>$', at: undefined }]);
    expect(kinds('Wait+Screen /a\\/b/')[0]).toMatchObject({ pattern: 'a\\/b' });
    expect(c.at(-1)).toMatchObject({ kind: 'Wait', at: { line: tape.split('\n').length - 1 } });
  });

  test('several errors in one pass, each with file:line:column, the line and a caret, and what was expected', () => {
    const r = parse('Output demo.txt\nSet Foo 3\nType\nSleep soon\nCtrl+Banana\nWait+Page /x/\nSet FontSize big\nBogus 3\nWait /(/\n');
    expect(r.errors.map((e) => `${e.line}:${e.column}`)).toEqual(['2:5', '3:5', '4:7', '5:6', '6:6', '7:14', '8:1', '9:6']);
    const text = formatDiagnostics(r.errors);
    expect(text).toContain('demo.tape:2:5: error: unknown setting "Foo": expected one of Shell, FontFamily');
    expect(text).toContain('2 | Set Foo 3\n  |     ^^^');
    expect(text).toContain('demo.tape:7:14: error: Set FontSize expects a whole number, got "big"');
    expect(text).toContain('Wait+ expects Line or Screen, got "Page"');
    expect(text).toContain('invalid regular expression /(/');
  });

  test('hostile input: NUL and escape bytes, CRLF, a BOM, a 10 MB Type string, a catastrophic regex', () => {
    expect(parse('Type "a\x00b"').errors[0].message).toMatch(/NUL byte/);
    expect(parse('Type "a"\n\x00').errors[0].message).toMatch(/NUL byte in the tape/);
    expect(parse('Type "\x1b[31mred"').commands[0]).toMatchObject({ text: '\x1b[31mred' });
    expect(formatDiagnostics(parse('Bogus "\x1b[2J"').errors)).not.toMatch(/\x1b/);
    expect(parse('Type "a"\r\nEnter\r\nSleep 1\r\n').commands.map((c) => c.kind)).toEqual(['Type', 'Key', 'Sleep']);
    const bom = join(tmp.dir, 'bom.tape');
    writeFileSync(bom, '\ufeffType "x"\nEnter\n');
    expect(loadTape(bom).tape?.commands.map((c) => c.kind)).toEqual(['Type', 'Key']);
    const t0 = performance.now();
    const huge = parse(`Type "${'x'.repeat(10 * 1024 * 1024)}"`);
    expect(huge.errors[0].message).toMatch(/Type string is 10485760 characters long; at most 65536/);
    expect(performance.now() - t0).toBeLessThan(2000);
    const t1 = performance.now();
    expect(compileGoRegex('(a+)+$').test(`${'a'.repeat(5000)}b`)).toBe(false);
    expect(performance.now() - t1).toBeLessThan(1000);
    expect(parse('Wait /(a)\\1/').errors[0].message).toMatch(/not RE2 syntax/);
  });

  test('Source: relative to the tape, Output dropped, a cycle and 10,000-deep nesting (TAPEDECK_SOAK) are errors naming the line', () => {
    const d = join(tmp.dir, 'src');
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'setup.tape'), 'Output other.gif\nType "setup"\n');
    writeFileSync(join(d, 'main.tape'), 'Source setup.tape\nEnter\n');
    expect(loadTape(join(d, 'main.tape')).tape?.commands.map((c) => c.kind)).toEqual(['Type', 'Key']);
    writeFileSync(join(d, 'a.tape'), 'Type "a"\nSource b.tape\n');
    writeFileSync(join(d, 'b.tape'), 'Source a.tape\n');
    const cyc = loadTape(join(d, 'a.tape'), { display: 'a.tape' });
    expect(cyc.errors.map((e) => e.message).join('\n')).toMatch(/Source cycle: .*a\.tape -> .*b\.tape -> .*a\.tape/);
    // A 10,000-deep chain under TAPEDECK_SOAK=1 (10,000 files); 200 deep otherwise: either way far past the limit.
    const depth = process.env.TAPEDECK_SOAK === '1' ? 10_000 : 200;
    for (let i = 0; i < depth; i++) writeFileSync(join(d, `n${i}.tape`), i === depth - 1 ? 'Enter\n' : `Source n${i + 1}.tape\n`);
    const t0 = performance.now();
    const deep = loadTape(join(d, 'n0.tape'));
    expect(deep.errors).toHaveLength(1);
    expect(deep.errors[0].message).toBe(`Source nested more than ${MAX_SOURCE_DEPTH} tapes deep`);
    expect(performance.now() - t0).toBeLessThan(3000);
    const missing = loadTape(join(d, 'm.tape'));
    expect(missing.errors[0].message).toMatch(/not found/);
  });
});
