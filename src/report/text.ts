import type { ReplayTapesResult } from '../replayer/replay-tapes.js';
import { driftLines } from '../core/diagnostics/drift.js';
import { oneLine } from '../core/text/terminal-safe.js';
import { driftRuns, repeatLine } from './drift-runs.js';

/** The human drift summary on stderr: tape, line, pair or step, request or step, then what differs. */
export function formatReplayText(run: ReplayTapesResult, options: { color?: boolean } = {}): string {
  const red = (s: string) => (options.color ? `\x1b[31m${s}\x1b[0m` : s);
  const green = (s: string) => (options.color ? `\x1b[32m${s}\x1b[0m` : s);
  const out: string[] = [];
  let pairs = 0;
  let steps = 0;
  for (const tape of run.tapes) {
    const terminal = tape.kind === 'terminal';
    const units = terminal ? `${tape.steps.length} steps` : `${tape.pairCount} pairs`;
    if (terminal) steps += tape.steps.length;
    else pairs += tape.pairCount;
    if (tape.drifts.length === 0) {
      out.push(`${green('ok')}     ${oneLine(tape.tape)} (${units}, ${Math.round(tape.durationMs)} ms)`);
      continue;
    }
    const updated = terminal ? tape.updated : tape.updatedPairs > 0;
    const state = updated ? 'updated' : 'DRIFT';
    const driftedPairs = new Set(tape.drifts.map((d) => d.pair)).size;
    const counted = terminal ? `${tape.drifts.length} drift(s) in ${units}` : `${driftedPairs} of ${units} drifted`;
    out.push(`${red(state.padEnd(6))} ${oneLine(tape.tape)} (${counted})`);
    for (const run of driftRuns(tape.drifts)) {
      out.push(...driftLines(run.first, { clipRequest: 200 }).map((l) => `  ${l}`));
      if (run.repeats.length > 0) out.push(`  ${repeatLine(run)}`);
    }
    if (terminal && tape.updated) out.push(`  re-recorded the output of ${tape.tape} from the live run`);
    if (!terminal && tape.updatedPairs > 0) out.push(`  rewrote ${tape.updatedPairs} pair(s) of ${tape.tape} with the live responses`);
  }
  const tapes = run.tapes.length;
  const drifted = run.tapes.filter((t) => t.drifts.length > 0).length;
  const anyTerminal = run.tapes.some((t) => t.kind === 'terminal');
  const anyProtocol = run.tapes.some((t) => t.kind === 'protocol');
  const counts = [...(anyProtocol || !anyTerminal ? [`${pairs} pair(s)`] : []), ...(anyTerminal ? [`${steps} step(s)`] : [])].join(', ');
  const summary = `${tapes} tape(s), ${counts}, ${run.driftCount} drift(s) in ${drifted} tape(s), ${(run.durationMs / 1000).toFixed(2)} s`;
  out.push(run.exitCode === 0 ? green(`tapedeck: ${summary}`) : red(`tapedeck: ${summary}`));
  if (run.exitCode !== 0) out.push('Accept intended changes with --update; details of a code: tapedeck explain TDxxxx');
  return `${out.join('\n')}\n`;
}
