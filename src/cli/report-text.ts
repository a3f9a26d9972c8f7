import type { ReplayRunResult } from '../replayer/run.js';

/** The human drift summary on stderr: tape, line, pair, request, then what differs. */
export function formatReplayText(run: ReplayRunResult, options: { color?: boolean } = {}): string {
  const red = (s: string) => (options.color ? `\x1b[31m${s}\x1b[0m` : s);
  const green = (s: string) => (options.color ? `\x1b[32m${s}\x1b[0m` : s);
  const out: string[] = [];
  let pairs = 0;
  for (const tape of run.tapes) {
    pairs += tape.pairs.length;
    if (tape.drifts.length === 0) {
      out.push(`${green('ok')}     ${tape.tape} (${tape.pairs.length} pairs, ${Math.round(tape.durationMs)} ms)`);
      continue;
    }
    const state = tape.updatedPairs > 0 ? 'updated' : 'DRIFT';
    out.push(`${red(state.padEnd(6))} ${tape.tape} (${tape.drifts.length} of ${tape.pairs.length} pairs)`);
    for (const d of tape.drifts) {
      out.push(`  ${d.tape}:${d.line}: pair ${d.pair}: ${d.title} [${d.code}]`);
      out.push(`    request: ${clip(d.request, 200)}`);
      for (const line of d.details) out.push(`    ${line}`);
    }
    if (tape.updatedPairs > 0) out.push(`  rewrote ${tape.updatedPairs} pair(s) of ${tape.tape} with the live responses`);
  }
  const tapes = run.tapes.length;
  const drifted = run.tapes.filter((t) => t.drifts.length > 0).length;
  const summary = `${tapes} tape(s), ${pairs} pair(s), ${run.driftCount} drift(s) in ${drifted} tape(s), ${(run.durationMs / 1000).toFixed(2)} s`;
  out.push(run.exitCode === 0 ? green(`tapedeck: ${summary}`) : red(`tapedeck: ${summary}`));
  if (run.exitCode !== 0) out.push('Accept intended changes with --update; details of a code: tapedeck explain TDxxxx');
  return `${out.join('\n')}\n`;
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
