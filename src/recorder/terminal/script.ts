import type { Terminal } from '../../session/terminal.js';
import type { KeyName } from '../../session/input/key-names.js';
import { recordTerminal, type RecordResult, type RecordTerminalOptions } from './record.js';

/**
 * Scripted terminal recording: a list of steps typed into a program while it
 * is recorded, for tests, benchmarks and demos. Before every input and marker
 * the screen is let settle (`settleMs` without change), so the recorded screen
 * an input was sent on is the complete one, and a replay can wait for exactly
 * that screen.
 */
export type ScriptStep =
  | { type: string }
  | { press: string | string[] }
  | { write: string }
  | { marker: string }
  | { waitFor: string | RegExp; timeoutMs?: number }
  | { resize: { rows: number; cols: number } }
  /** Idle time in the recording (recorded delays, e.g. for a realistic benchmark session). */
  | { pause: number };

export interface RecordScriptOptions extends Omit<RecordTerminalOptions, 'drive'> {
  steps: readonly ScriptStep[];
  /** Quiet time that counts as a settled screen (default 50 ms). */
  settleMs?: number;
  /** How long the program may take to exit after the last step (default 5000 ms). */
  exitTimeoutMs?: number;
}

export async function recordScript(options: RecordScriptOptions): Promise<RecordResult> {
  const settleMs = options.settleMs ?? 50;
  const { done } = await recordTerminal({ ...options, drive: (terminal) => runScript(terminal, options.steps, settleMs, options.exitTimeoutMs ?? 5000) });
  return done;
}

async function runScript(terminal: Terminal, steps: readonly ScriptStep[], settleMs: number, exitTimeoutMs: number): Promise<void> {
  for (const step of steps) {
    if ('waitFor' in step) {
      await terminal.waitForText(step.waitFor, { timeoutMs: step.timeoutMs });
      continue;
    }
    if ('pause' in step) {
      await new Promise((resolve) => setTimeout(resolve, step.pause));
      continue;
    }
    await terminal.waitForStable(settleMs);
    if ('type' in step) terminal.type(step.type);
    else if ('press' in step) terminal.press(...((Array.isArray(step.press) ? step.press : [step.press]) as KeyName[])); // validated when encoded
    else if ('write' in step) terminal.write(step.write);
    else if ('marker' in step) terminal.marker(step.marker);
    else if ('resize' in step) terminal.resize(step.resize.rows, step.resize.cols);
  }
  await terminal.waitForExit({ timeoutMs: exitTimeoutMs });
}
