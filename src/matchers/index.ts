/**
 * tapedeck's vitest integration: `import 'tapedeck/vitest'` in a test file (or
 * a setupFiles entry) registers the matchers and the per-test hooks.
 */
import { afterAll, afterEach, beforeEach, expect } from 'vitest';
import { toContainText, toHaveCursorAt, toHaveExited, toHaveText, toMatchScreen, type ScreenGoldenMatcherOptions, type TextAssertionOptions } from './terminal.js';
import { toMatchExchange, toReplayCleanly, type ProtocolMatcherOptions } from './protocol.js';
import { toMatchScreenshot, type ScreenshotMatcherOptions } from './screenshot.js';
import type { TerminalReplayMatcherOptions } from './terminal-replay.js';
import { resetGoldenCounters } from './context.js';
import { cleanUpTestTerminals, rememberTerminalsBeforeTest } from './cleanup.js';
import { reportObsoleteGoldens } from './obsolete.js';

expect.extend({ toContainText, toHaveText, toHaveCursorAt, toHaveExited, toMatchScreen, toMatchScreenshot, toReplayCleanly, toMatchExchange });

beforeEach(() => {
  resetGoldenCounters();
  rememberTerminalsBeforeTest();
});
afterEach(async () => {
  await cleanUpTestTerminals();
});
// vitest passes fixtures first (it requires a destructuring pattern there), then the suite.
// eslint-disable-next-line no-empty-pattern
afterAll(({}, suite) => {
  reportObsoleteGoldens(suite);
});

interface TapedeckMatchers {
  /** Retries until the screen (or `line`) contains the text or matches the RegExp. */
  toContainText(expected: string | RegExp, options?: TextAssertionOptions): Promise<void>;
  /** Retries until the screen (or `line`) is exactly the text, or matches the RegExp. */
  toHaveText(expected: string | RegExp, options?: TextAssertionOptions): Promise<void>;
  /** Retries until the cursor is at (row, col), 0-based. */
  toHaveCursorAt(row: number, col: number, options?: { timeoutMs?: number }): Promise<void>;
  /** Retries until the program has exited (with `code`, when given). */
  toHaveExited(code?: number, options?: { timeoutMs?: number }): Promise<void>;
  /** Waits for a stable screen, then compares it with goldens/<test file>/<test name>.txt. */
  toMatchScreen(options?: ScreenGoldenMatcherOptions): Promise<void>;
  /** Waits for a stable screen, renders it in Chromium and compares the PNG with goldens/<test file>/<test name>.png. */
  toMatchScreenshot(options?: ScreenshotMatcherOptions): Promise<void>;
  /** Replays a protocol tape against a fresh server: `expect('tape.ndjson').toReplayCleanly(['node', 'server.js'])`. */
  toReplayCleanly(command: string[], options?: ProtocolMatcherOptions | TerminalReplayMatcherOptions): Promise<void>;
  /** Replays a terminal tape against its recorded command: `expect('goldens/vim.cast').toReplayCleanly()`. */
  toReplayCleanly(options?: TerminalReplayMatcherOptions): Promise<void>;
  /** Sends requests to a fresh server and compares the responses with a protocol-tape golden. */
  toMatchExchange(requests: string | string[], options?: ProtocolMatcherOptions): Promise<void>;
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Matchers<T = any> extends TapedeckMatchers {}
}

export type { TapedeckMatchers, ScreenGoldenMatcherOptions, TextAssertionOptions, ProtocolMatcherOptions, ScreenshotMatcherOptions, TerminalReplayMatcherOptions };
