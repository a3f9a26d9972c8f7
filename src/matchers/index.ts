/**
 * tapedeck's vitest integration: `import 'tapedeck/vitest'` in a test file (or
 * a setupFiles entry) registers the matchers and the per-test hooks.
 */
import { dirname } from 'node:path';
import * as vitest from 'vitest';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { Terminal } from '../session/terminal.js';
import { terminalOwner } from '../session/owner.js';
import { toContainText, toHaveCursorAt, toHaveExited, toHaveText, type TextAssertionOptions } from './terminal.js';
import { toMatchScreen, type ScreenGoldenMatcherOptions } from './screen.js';
import { toMatchExchange, toReplayCleanly, type ProtocolMatcherOptions } from './protocol.js';
import { toMatchScreenshot, type ScreenshotMatcherOptions } from './screenshot.js';
import type { TerminalReplayMatcherOptions } from './terminal-replay.js';
import { toMatchVhsOutputs, type VhsMatcherOptions } from './vhs.js';
import { goldenRoot, projectRoot, resetGoldenCounters, type MatcherStateLike, type TaskLike } from './context.js';
import { cleanUpTestTerminals, endTerminalsOf, rememberTerminalsBeforeTest } from './cleanup.js';
import { reportObsoleteGoldens } from './obsolete.js';
import { requireAwait } from './unawaited.js';
import { candidatePaths, mismatchedGoldens, summaryLine, takeTally } from './summary.js';
import { notePendingRoots } from '../core/golden/roots.js';
import { REPORTER_KEY } from './reporter.js';

const matchers = { toContainText, toHaveText, toHaveCursorAt, toHaveExited, toMatchScreen, toMatchScreenshot, toReplayCleanly, toMatchExchange, toMatchVhsOutputs };
expect.extend(matchers);
requireAwait(Object.keys(matchers));

type AroundEach = (fn: (runTest: () => Promise<void>, context: { task: TaskLike }) => Promise<void>) => void;
const aroundEach = (vitest as unknown as { aroundEach?: AroundEach }).aroundEach;
if (aroundEach) {
  // Each test runs as the owner of the terminals it spawns; when it ends, only those end.
  aroundEach(async (runTest, context) => {
    resetGoldenCounters(context.task);
    try {
      await terminalOwner.run(context.task, runTest);
    } finally {
      await endTerminalsOf(context.task);
    }
  });
} else {
  beforeEach(() => {
    resetGoldenCounters();
    rememberTerminalsBeforeTest();
  });
  afterEach(async () => {
    await cleanUpTestTerminals();
  });
}

beforeAll(() => {
  takeTally(); // a file starts from zero, also when workers are reused (isolate: false)
});
// vitest passes fixtures first (it requires a destructuring pattern there), then the suite.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, suite) => {
  reportObsoleteGoldens(suite);
  const pending = notePending();
  const drifted = mismatchedGoldens();
  const tally = takeTally();
  // The reporter sums these into one closing line per run; without it, each file says its own.
  const meta = (suite as unknown as { meta?: Record<string, unknown> }).meta;
  if (meta) meta.tapedeck = { ...tally, pending, drifted };
  const quiet = tally.written + tally.updated + tally.obsolete + tally.removed + tally.candidates === 0;
  let reporter = false;
  try {
    reporter = vitest.inject(REPORTER_KEY as never) === true;
  } catch {
    reporter = false;
  }
  // stderr: stdout may be a machine-read report (--reporter=json | jq).
  if (!reporter && !quiet) process.stderr.write(`${summaryLine(tally)}\n`);
});

/** Where this file's candidates are, for `tapedeck review` from any folder (see core/golden/roots.ts). */
function notePending(): string[] {
  const candidates = candidatePaths();
  if (candidates.length === 0) return [];
  const testPath = (expect.getState() as MatcherStateLike).testPath;
  const root = goldenRoot(testPath);
  const roots = new Set(candidates.map((c) => (c.startsWith(root) ? root : dirname(c))));
  notePendingRoots([...roots], [process.cwd(), projectRoot(testPath)]);
  return candidates;
}

/** Only a terminal (or `any`) has the screen matchers; a wrong subject is a compile error. */
type OnTerminal<T, F> = [T] extends [Terminal] ? F : never;
type OnTape<T, F> = [T] extends [string] ? F : never;
type OnCommand<T, F> = [T] extends [readonly string[]] ? F : never;

interface TapedeckMatchers<T = unknown> {
  /** Retries until the screen (or `line`) contains the text or matches the RegExp. */
  toContainText: OnTerminal<T, (expected: string | RegExp, options?: TextAssertionOptions) => Promise<void>>;
  /** Retries until the screen (or `line`) is exactly the text, or matches the RegExp. */
  toHaveText: OnTerminal<T, (expected: string | RegExp, options?: TextAssertionOptions) => Promise<void>>;
  /** Retries until the cursor is at (row, col), 0-based. */
  toHaveCursorAt: OnTerminal<T, (row: number, col: number, options?: { timeoutMs?: number }) => Promise<void>>;
  /** Retries until the program has exited (with `code`, when given). */
  toHaveExited: OnTerminal<T, (code?: number, options?: { timeoutMs?: number }) => Promise<void>>;
  /** Retries until the screen equals goldens/<test file>/<test name>.txt (a missing golden is written from a stable screen). */
  toMatchScreen: OnTerminal<T, (options?: ScreenGoldenMatcherOptions) => Promise<void>>;
  /** Renders the screen in Chromium and retries until the PNG matches goldens/<test file>/<test name>.png. */
  toMatchScreenshot: OnTerminal<T, (options?: ScreenshotMatcherOptions) => Promise<void>>;
  /**
   * Replays a tape: `expect('tape.ndjson').toReplayCleanly(['node', 'server.js'])` (protocol),
   * `expect('goldens/vim.cast').toReplayCleanly()` (terminal, its recorded command or the one given).
   */
  toReplayCleanly: OnTape<
    T,
    {
      (command: string[], options?: ProtocolMatcherOptions | TerminalReplayMatcherOptions): Promise<void>;
      (options?: TerminalReplayMatcherOptions): Promise<void>;
    }
  >;
  /** Runs a VHS tape (`expect('demo.tape')`) and checks its outputs (text, cast, GIF, video, frames, Screenshot) as goldens. */
  toMatchVhsOutputs: OnTape<T, (options?: VhsMatcherOptions) => Promise<void>>;
  /** Sends requests to a fresh server (the command) and compares the responses with a protocol-tape golden. */
  toMatchExchange: OnCommand<T, (requests: string | string[], options?: ProtocolMatcherOptions) => Promise<void>>;
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Matchers<T = any> extends TapedeckMatchers<T> {}
}

export type { TapedeckMatchers, ScreenGoldenMatcherOptions, TextAssertionOptions, ProtocolMatcherOptions, ScreenshotMatcherOptions, TerminalReplayMatcherOptions, VhsMatcherOptions };
