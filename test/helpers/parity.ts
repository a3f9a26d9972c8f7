import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { encodeKeys } from '../../src/session/input/keys.js';
import { pinnedEnv } from '../../src/session/pty/env.js';
import { spawnTerminal, type Terminal } from '../../src/session/terminal.js';
import { codepointWidth } from '../../src/session/screen/unicode-widths.js';

/**
 * The parity harness: one program driven with the same bytes in tapedeck and
 * in tmux (a real terminal emulator, the oracle) at the same size, in the same
 * environment, then both screens compared cell for cell: every line's text at
 * the columns it occupies (wide characters take two; a character placed after
 * one lands where each emulator's widths put it) and the cursor.
 *
 * tmux's side is read with `capture-pane -e`: SGR is dropped, DEC line drawing
 * (SO/SI there) is translated to the characters xterm.js shows, and trailing
 * blanks are trimmed on both sides (tmux keeps erased cells that carry a
 * background colour, the "background-erase" difference, which is not text).
 */
const run = promisify(execFile);

export type ParityStep =
  | { type: string }
  | { press: string | string[] }
  /** Both screens contain this text (each side waits for itself). */
  | { waitFor: string | RegExp }
  /** Both screens unchanged for this many ms (a program done drawing). */
  | { settle: number }
  | { resize: { rows: number; cols: number } };

export interface ParityCase {
  command: string[];
  rows: number;
  cols: number;
  cwd: string;
  env?: Record<string, string | undefined>;
  steps: ParityStep[];
  /** What both final screens must show before they are compared. */
  final: string | RegExp;
  /** Lines (regex over a screen line) blanked on both sides: live values such as clocks and CPU load. */
  mask?: RegExp[];
  /** Rewrites applied to every line on both sides (e.g. digits of process ids), after masks. */
  replace?: [RegExp, string][];
}

export interface ParityScreen {
  /** Each row's text, trailing blanks trimmed. */
  lines: string[];
  /**
   * Each row as cells ('' for the right half of a wide character), trailing
   * blanks trimmed: tapedeck's from its own cell grid, tmux's laid out by
   * glibc's wcwidth (what tmux itself uses).
   */
  cells: string[][];
  cursor: { row: number; col: number };
  /** tapedeck only: the screen's own text lines (Screen.visibleLines, what text(), waits and goldens read), trailing blanks trimmed. */
  text?: string[];
}

export interface ParityResult {
  tapedeck: ParityScreen;
  tmux: ParityScreen;
}

/** A bound for a hang, not a speed check: the final text ends the wait at once (15 s was missed under load 25). */
const WAIT_MS = 30_000;
/** Screens are compared once neither changed for this long after the final text showed. */
const STABLE_MS = 100;

/** DEC special graphics, as xterm.js maps it. */
const DEC_GRAPHICS: Record<string, string> = {
  '`': '◆', a: '▒', b: '␉', c: '␌', d: '␍', e: '␊', f: '°', g: '±', h: '␤', i: '␋', j: '┘', k: '┐', l: '┌', m: '└', n: '┼',
  o: '⎺', p: '⎻', q: '─', r: '⎼', s: '⎽', t: '├', u: '┤', v: '┴', w: '┬', x: '│', y: '≤', z: '≥', '{': 'π', '|': '≠', '}': '£', '~': '·',
};

/** One line of `capture-pane -p -e` as plain text. */
export function tmuxLineText(line: string): string {
  let out = '';
  let graphics = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '\x1b') {
      const m = /^\x1b(\[[0-9;:?]*[ -/]*[@-~]|[()][0-9A-Za-z]|.)/.exec(line.slice(i));
      if (m) {
        if (m[1] === '(0') graphics = true;
        if (m[1] === '(B') graphics = false;
        i += m[0].length - 1;
      }
      continue;
    }
    if (ch === '\x0e') graphics = true;
    else if (ch === '\x0f') graphics = false;
    else out += graphics ? (DEC_GRAPHICS[ch] ?? ch) : ch;
  }
  return out.trimEnd();
}

/** A line as the cells it occupies ('' for the right half of a wide character): the form both sides are compared in. */
export function cellsOf(line: string): string[] {
  const cells: string[] = [];
  for (const ch of line) {
    const w = codepointWidth(ch.codePointAt(0) ?? 0);
    if (w === 0 && cells.length > 0) {
      cells[cells.length - (cells.at(-1) === '' ? 2 : 1)] += ch;
      continue;
    }
    cells.push(ch);
    if (w === 2) cells.push('');
  }
  return cells;
}

function masked(screen: ParityScreen, c: ParityCase): ParityScreen {
  const cells = screen.cells.map((row, r) => {
    if ((c.mask ?? []).some((m) => m.test(screen.lines[r] ?? ''))) return ['<masked>'];
    return row.map((cell) => (c.replace ?? []).reduce((text, [re, to]) => text.replace(re, to), cell));
  });
  return { ...screen, cells };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`tmux: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** tmux's capture trims each line's trailing blanks: so does a literal pattern here. */
function contains(text: string, pattern: string | RegExp): boolean {
  return typeof pattern === 'string' ? text.includes(pattern.replace(/ +(\n|$)/g, '$1')) : pattern.test(text);
}

/** A detached tmux server of its own (private socket, no user config) running one program. */
class TmuxPane {
  private readonly dir = mkdtempSync(join(tmpdir(), 'tapedeck-parity-tmux-'));
  private readonly socket = join(this.dir, 's');
  private readonly conf = join(this.dir, 'tmux.conf');

  constructor(private readonly env: Record<string, string>) {
    // Same TERM as tapedeck gives, no status line, keys passed on at once.
    writeFileSync(this.conf, 'set -g default-terminal xterm-256color\nset -g status off\nset -g escape-time 0\nset -g history-limit 0\n');
  }

  async tmux(...args: string[]): Promise<string> {
    const { stdout } = await run('tmux', ['-S', this.socket, '-f', this.conf, ...args], { env: this.env, encoding: 'utf8' });
    return stdout;
  }

  start(c: ParityCase): Promise<string> {
    return this.tmux('new-session', '-d', '-s', 'p', '-x', String(c.cols), '-y', String(c.rows), '-c', c.cwd, '--', ...c.command);
  }

  send(bytes: Buffer): Promise<string> {
    return this.tmux('send-keys', '-t', 'p', '-H', ...[...bytes].map((b) => b.toString(16).padStart(2, '0')));
  }

  async screen(): Promise<ParityScreen> {
    // One tmux call for both (';' separates tmux commands): the screen, then the cursor on the last line.
    const out = (await this.tmux('capture-pane', '-p', '-e', '-t', 'p', ';', 'display', '-p', '-t', 'p', '#{cursor_y} #{cursor_x}')).replace(/\n$/, '').split('\n');
    const [row, col] = out.pop()!.trim().split(' ').map(Number);
    const lines = out.map(tmuxLineText);
    return { lines, cells: lines.map(cellsOf), cursor: { row, col } };
  }

  async close(): Promise<void> {
    await this.tmux('kill-server').catch(() => '');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The pane's screen once it stayed the same for `ms`. */
async function stable(pane: TmuxPane, ms: number): Promise<ParityScreen> {
  let last = await pane.screen();
  let since = Date.now();
  return until('a stable screen', async () => {
    const now = await pane.screen();
    if (JSON.stringify(now) !== JSON.stringify(last)) {
      last = now;
      since = Date.now();
      return undefined;
    }
    return Date.now() - since >= ms ? now : undefined;
  });
}

function tapedeckScreen(t: Terminal): ParityScreen {
  const snap = t.screen.snapshot({ includeCells: true });
  const cells = snap.cells!.map((row) => {
    const out = row.map((c) => (c.width === 0 ? '' : c.char || ' '));
    while (out.length > 0 && (out.at(-1) === ' ' || out.at(-1) === '')) out.pop();
    // A wide character's right half goes with it.
    if (out.length > 0 && row[out.length - 1]?.width === 2) out.push('');
    return out;
  });
  const text = snap.visibleLines.map((line) => line.trimEnd());
  return { lines: cells.map((row) => row.join('')), cells, cursor: { row: snap.cursor.row, col: snap.cursor.col }, text };
}

const NORMAL_MODES = { applicationCursorKeys: false, applicationKeypad: false, bracketedPaste: false };

/** The bytes of an input step: the same on both sides (keys as xterm sends them in normal cursor mode). */
function stepBytes(step: ParityStep): Buffer | undefined {
  if ('type' in step) return Buffer.from(step.type, 'utf8');
  if ('press' in step) return Buffer.from(encodeKeys([step.press].flat(), NORMAL_MODES), 'utf8');
  return undefined;
}

async function onTapedeck(c: ParityCase, env: Record<string, string | undefined>): Promise<ParityScreen> {
  const t = spawnTerminal(c.command[0], c.command.slice(1), { rows: c.rows, cols: c.cols, cwd: c.cwd, env });
  try {
    for (const step of c.steps) {
      if ('waitFor' in step) await t.waitForText(step.waitFor, { timeoutMs: WAIT_MS });
      else if ('settle' in step) await t.waitForStable(step.settle, { timeoutMs: WAIT_MS });
      else if ('resize' in step) t.resize(step.resize.rows, step.resize.cols);
      else t.write(stepBytes(step)!);
    }
    await t.waitForText(c.final, { timeoutMs: WAIT_MS });
    await t.waitForStable(STABLE_MS, { timeoutMs: WAIT_MS });
    return tapedeckScreen(t);
  } finally {
    await t.dispose();
  }
}

async function onTmux(c: ParityCase, env: Record<string, string>): Promise<ParityScreen> {
  const pane = new TmuxPane(env);
  const text = async () => (await pane.screen()).lines.join('\n');
  try {
    await pane.start(c);
    for (const step of c.steps) {
      if ('waitFor' in step) await until(`text ${step.waitFor}`, async () => (contains(await text(), step.waitFor) ? true : undefined));
      else if ('settle' in step) await stable(pane, step.settle);
      else if ('resize' in step) await pane.tmux('resize-window', '-t', 'p', '-x', String(step.resize.cols), '-y', String(step.resize.rows));
      else await pane.send(stepBytes(step)!);
    }
    await until(`final text ${c.final}`, async () => (contains(await text(), c.final) ? true : undefined));
    return await stable(pane, STABLE_MS);
  } finally {
    await pane.close();
  }
}

/** Runs a case on both sides at once, in the same pinned environment with a fresh HOME. */
export async function runParity(c: ParityCase): Promise<ParityResult> {
  const home = mkdtempSync(join(tmpdir(), 'tapedeck-parity-home-'));
  const overrides = { HOME: home, ...c.env };
  try {
    const [a, b] = await Promise.all([onTapedeck(c, overrides), onTmux(c, pinnedEnv({ rows: c.rows, cols: c.cols, env: overrides }))]);
    return { tapedeck: masked(a, c), tmux: masked(b, c) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** A screen's cell rows (trailing blank rows dropped), for a readable toEqual diff. */
export function cellRows(screen: ParityScreen): string[][] {
  const rows = [...screen.cells];
  while (rows.length > 0 && rows.at(-1)!.length === 0) rows.pop();
  return rows;
}
