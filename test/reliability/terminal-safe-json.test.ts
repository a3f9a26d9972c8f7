import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import xterm from '@xterm/headless';
import { describe, expect, test } from 'vitest';
import { tapedeck, useTempDirs } from '../helpers/cli.js';

/**
 * Issue 26.3: `replay --json` and JUnit carried C1 controls (U+0080–U+009F)
 * from a tape raw; an xterm-compatible terminal showing them wrote the
 * clipboard (OSC 52), changed its title and typed back cursor reports. Here the
 * output is fed to @xterm/headless (the emulator VS Code's terminal is built
 * on), which must do none of that, and the bytes must hold no raw C1.
 */
const temp = useTempDirs();
const { Terminal } = xterm;

// 8-bit forms: OSC (U+009D) ... ST (U+009C), and CSI (U+009B).
const HOSTILE = '\u009d52;c;cGF5bG9hZA==\u009c \u009d0;pwned\u009c \u009b6n \u009bc \u009b>c';

interface Effects {
  clipboard: number;
  titles: number;
  replies: number;
}

/** What a terminal does when `text` is printed to it. */
async function effectsOf(text: string): Promise<Effects> {
  const term = new Terminal({ cols: 200, rows: 50, allowProposedApi: true });
  const effects: Effects = { clipboard: 0, titles: 0, replies: 0 };
  term.parser.registerOscHandler(52, () => (effects.clipboard++, true));
  term.onTitleChange(() => effects.titles++);
  term.onData(() => effects.replies++);
  await new Promise<void>((resolve) => term.write(text.replace(/\n/g, '\r\n'), resolve));
  term.dispose();
  return effects;
}

const C1 = /[\u0080-\u009f]/;

describe('CLI JSON and JUnit never carry a raw C1 control (26.3)', () => {
  test('the probe works: the raw text makes the emulator write the clipboard, retitle and answer', async () => {
    expect(await effectsOf(HOSTILE)).toEqual({ clipboard: 1, titles: 1, replies: 3 });
  });

  test('replay --json of a tape with C1 controls: the envelopes parse to the text, and the terminal does nothing', async () => {
    const dir = temp();
    const tape = join(dir, 'c1.ndjson');
    const request = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: { text: HOSTILE } });
    writeFileSync(tape, `${JSON.stringify({ request, response: `${JSON.stringify({ jsonrpc: '2.0', id: 1, result: HOSTILE })}\n` })}\n`);
    const server = join(dir, 'server.mjs');
    writeFileSync(server, `process.stdin.on('data', () => process.stdout.write(${JSON.stringify(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: `live ${HOSTILE}` })}\n`)}));\n`);
    const junit = join(dir, 'junit.xml');
    const r = await tapedeck(['replay', tape, '--json', '--json-summary', '--reporter', 'junit', '--out', junit, '--', 'node', server], { cwd: dir, env: { CI: '1' } });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    // The text is all there, escaped: the envelopes parse back to what the tape holds.
    expect(lines.map((l) => JSON.parse(l)).some((e) => JSON.stringify(e).includes(JSON.stringify(HOSTILE).slice(1, -1)))).toBe(true);
    expect(r.stdout).toContain('\\u009d52;c;');
    expect(r.stdout).not.toMatch(C1);
    expect(r.stderr).not.toMatch(C1);
    expect(await effectsOf(r.stdout)).toEqual({ clipboard: 0, titles: 0, replies: 0 });

    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<failure');
    expect(xml).toContain('\\x9d52;c;'); // shown, not performed
    expect(xml).not.toMatch(C1);
    expect(await effectsOf(xml)).toEqual({ clipboard: 0, titles: 0, replies: 0 });
  });

  test('review --json lists a golden whose name carries C1 controls without performing them', async () => {
    const dir = temp();
    const name = `t\u009d0;pwned\u009c.txt`;
    mkdirSync(join(dir, 'goldens'));
    writeFileSync(join(dir, 'goldens', `${name}.new`), 'x\n');
    const r = await tapedeck(['review', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result.pending[0].golden).toBe(`goldens/${name}`);
    expect(r.stdout).not.toMatch(C1);
    expect(await effectsOf(r.stdout)).toEqual({ clipboard: 0, titles: 0, replies: 0 });
  });
});
