import type { Terminal } from '../session/terminal.js';
import { matcherDefaults, type MatcherStateLike } from './context.js';
import { describePattern, frameScreen } from './format.js';
import { assertionTimeout, retryUntil } from './retry.js';
import { exitHeadline, exitNote } from './exited.js';

/** A failure's note on an exited program: '' unless the assertion fails and the program has ended. */
async function noteIfFailing(term: Terminal, pass: boolean, isNot: boolean): Promise<{ head: string; note: string }> {
  if (pass !== isNot || term.running) return { head: '', note: '' };
  return { head: ` (${exitHeadline(term)})`, note: await exitNote(term) };
}

/** The bits of vitest's MatcherState the terminal matchers use. */
export interface State extends MatcherStateLike {
  isNot: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  utils: { diff: (a: any, b: any) => string | undefined };
}

export interface MatchResult {
  pass: boolean;
  message: () => string;
  actual?: unknown;
  expected?: unknown;
}

export interface TextAssertionOptions {
  /** Only this screen row (0-based) instead of the whole screen. */
  line?: number;
  timeoutMs?: number;
}

export function assertTerminal(received: unknown, matcher: string): asserts received is Terminal {
  const t = received as Partial<Terminal> | null;
  if (!t || typeof t !== 'object' || typeof t.snapshot !== 'function' || typeof t.text !== 'function') {
    throw new TypeError(`${matcher}: expected a terminal from spawnTerminal(), got ${t === null ? 'null' : typeof t}`);
  }
}

async function screenText(term: Terminal, line?: number): Promise<string> {
  if (line === undefined) return term.text();
  const snap = await term.snapshot();
  if (line < 0 || line >= snap.rows) throw new RangeError(`line ${line} is outside the screen (0..${snap.rows - 1})`);
  return snap.visibleLines[line].replace(/\s+$/, '');
}

function matches(text: string, pattern: string | RegExp, whole: boolean): boolean {
  if (pattern instanceof RegExp) return pattern.test(text);
  return whole ? text === pattern : text.includes(pattern);
}

async function textAssertion(
  state: State,
  received: unknown,
  pattern: string | RegExp,
  options: TextAssertionOptions,
  name: 'toContainText' | 'toHaveText',
): Promise<MatchResult> {
  assertTerminal(received, name);
  const term = received;
  const whole = name === 'toHaveText';
  const timeoutMs = assertionTimeout(options.timeoutMs ?? matcherDefaults<TextAssertionOptions>(state.testPath, name).timeoutMs, state.task);
  const outcome = await retryUntil(
    async () => {
      const text = await screenText(term, options.line);
      return { pass: matches(text, pattern, whole), value: text };
    },
    { isNot: state.isNot, timeoutMs, settled: () => !term.running },
  );
  const exited = await noteIfFailing(term, outcome.pass, state.isNot === true);
  const where = options.line === undefined ? 'screen' : `line ${options.line}`;
  const verb = whole ? (pattern instanceof RegExp ? 'match' : 'be') : 'contain';
  return {
    pass: outcome.pass,
    message: () => {
      const head = `expected ${where} ${state.isNot ? 'not ' : ''}to ${verb} ${describePattern(pattern)}${exited.head} (waited ${outcome.waitedMs} ms)`;
      return `${head}\n\n${frameScreen(outcome.value, where, options.line ?? 0)}${exited.note}`;
    },
    // Only a whole-text comparison gets vitest's own Expected/Received diff; for "contains" it is noise.
    ...(whole && typeof pattern === 'string' ? { actual: outcome.value, expected: pattern } : {}),
  };
}

export async function toContainText(this: State, received: unknown, pattern: string | RegExp, options: TextAssertionOptions = {}): Promise<MatchResult> {
  return textAssertion(this, received, pattern, options, 'toContainText');
}

export async function toHaveText(this: State, received: unknown, pattern: string | RegExp, options: TextAssertionOptions = {}): Promise<MatchResult> {
  return textAssertion(this, received, pattern, options, 'toHaveText');
}

export async function toHaveCursorAt(this: State, received: unknown, row: number, col: number, options: { timeoutMs?: number } = {}): Promise<MatchResult> {
  assertTerminal(received, 'toHaveCursorAt');
  const term = received;
  const outcome = await retryUntil(
    async () => {
      const snap = await term.snapshot();
      return { pass: snap.cursor.row === row && snap.cursor.col === col, value: snap };
    },
    { isNot: this.isNot, timeoutMs: assertionTimeout(options.timeoutMs ?? matcherDefaults<{ timeoutMs?: number }>(this.testPath, 'toHaveCursorAt').timeoutMs, this.task), settled: () => !term.running },
  );
  const at = `${outcome.value.cursor.row},${outcome.value.cursor.col}`;
  const exited = await noteIfFailing(term, outcome.pass, this.isNot === true);
  return {
    pass: outcome.pass,
    message: () =>
      `expected the cursor ${this.isNot ? 'not ' : ''}at row ${row}, col ${col}; it is at ${at}${exited.head} (waited ${outcome.waitedMs} ms)\n\n${frameScreen(outcome.value.visibleLines.join('\n'))}${exited.note}`,
  };
}

export async function toHaveExited(this: State, received: unknown, code?: number, options: { timeoutMs?: number } = {}): Promise<MatchResult> {
  assertTerminal(received, 'toHaveExited');
  const term = received;
  const outcome = await retryUntil(
    async () => {
      const exited = !term.running;
      return { pass: exited && (code === undefined || term.exitCode === code), value: exited };
    },
    { isNot: this.isNot, timeoutMs: assertionTimeout(options.timeoutMs ?? matcherDefaults<{ timeoutMs?: number }>(this.testPath, 'toHaveExited').timeoutMs, this.task), settled: () => !term.running },
  );
  const state = outcome.value ? `it exited with code ${term.exitCode}${term.exitSignal ? ` (signal ${term.exitSignal})` : ''}` : 'it is still running';
  return {
    pass: outcome.pass,
    message: () =>
      `expected the program ${this.isNot ? 'not ' : ''}to have exited${code === undefined ? '' : ` with code ${code}`}; ${state} (waited ${outcome.waitedMs} ms)\n\n${frameScreen(term.screen.text())}`,
  };
}
