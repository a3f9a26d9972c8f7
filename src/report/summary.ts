import type { Drift } from '../core/diagnostics/drift.js';
import type { AnyTapeResult, ReplayTapesResult } from '../replayer/replay-tapes.js';

/**
 * What every report says about one replayed tape, whatever its kind: the one
 * per-tape type the JUnit, annotation, HTML and JSON outputs are built on.
 */
export interface TapeSummary {
  tape: string;
  kind: 'protocol' | 'terminal';
  durationMs: number;
  /** Pairs (protocol) or steps (terminal). */
  units: number;
  drifts: Drift[];
  /** The tape could not be read or run (a parse error, a failed Require or Wait): a failure with this text, whatever the drifts. */
  failure?: { type: string; message: string; text: string };
}

export function summariseTape(t: AnyTapeResult): TapeSummary {
  return { tape: t.tape, kind: t.kind, durationMs: t.durationMs, units: t.kind === 'terminal' ? t.steps.length : t.pairCount, drifts: t.drifts };
}

/** The run's machine-readable summary line (`replay --json`): counts, updates, the exit code. */
export function runSummary(result: ReplayTapesResult): Record<string, unknown> {
  let pairs = 0;
  let steps = 0;
  let updatedPairs = 0;
  let updatedTapes = 0;
  for (const tape of result.tapes) {
    if (tape.kind === 'terminal') {
      steps += tape.steps.length;
      if (tape.updated) updatedTapes += 1;
    } else {
      pairs += tape.pairCount;
      updatedPairs += tape.updatedPairs;
    }
  }
  const summary: Record<string, unknown> = { kind: 'summary', tapes: result.tapes.length, pairs, drifts: result.driftCount, updated_pairs: updatedPairs };
  // Terminal counts only when terminal tapes ran, so a protocol-only summary keeps its seed-000-era shape.
  if (result.tapes.some((t) => t.kind === 'terminal')) Object.assign(summary, { steps, updated_tapes: updatedTapes });
  return Object.assign(summary, { exit_code: result.exitCode, duration_ms: Math.round(result.durationMs) });
}
