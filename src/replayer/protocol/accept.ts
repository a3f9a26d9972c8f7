import { isUtf8 } from 'node:buffer';
import { rmSync } from 'node:fs';
import { redact } from '../../core/text/redact.js';
import type { Drift } from '../../core/diagnostics/drift.js';
import type { ProtocolTape } from '../../tape/protocol/tape.js';
import { tapeDecision } from '../../core/golden/decision.js';
import { goldenPaths } from '../../core/golden/paths.js';

/**
 * The last step of a protocol replay: accept the live responses of drifted
 * pairs, in place (--update) or as `<tape>.new` for `tapedeck review`. Only
 * complete responses are accepted; a timeout, a crash or an oversized response
 * is not an answer.
 */
export async function acceptLive(
  tape: ProtocolTape,
  drifts: readonly Drift[],
  live: (pair: number) => Buffer | undefined,
  hide: (text: string) => string,
  mode: { update?: boolean; writePending?: boolean },
): Promise<{ updatedPairs: number; pendingPath?: string }> {
  const decision = tapeDecision(mode, drifts.length > 0);
  const candidate = goldenPaths(tape.path).candidate;
  if (!decision.writeGolden && !decision.writeCandidate) {
    if (decision.clean) rmSync(candidate, { force: true }); // a clean replay makes an old candidate stale
    return { updatedPairs: 0 };
  }
  const replacements = new Map<number, string | Buffer>();
  for (const d of drifts) {
    if (d.code === 'TD1002' || d.code === 'TD1003' || d.code === 'TD1006') continue;
    const bytes = live(d.pair - 1) ?? Buffer.alloc(0);
    // Bytes that are not UTF-8 are kept exactly (response_base64), redacted through a latin1 view.
    replacements.set(d.pair - 1, isUtf8(bytes) ? hide(bytes.toString('utf8')) : Buffer.from(hide(bytes.toString('latin1')), 'latin1'));
  }
  if (replacements.size === 0) return { updatedPairs: 0 };
  // The rewriter (file lock, atomic write) loads only when a run writes.
  const { rewriteTape } = await import('./update.js');
  if (decision.writeGolden) {
    rewriteTape(tape, replacements);
    // Every drift accepted: nothing is left to review.
    if (replacements.size === drifts.length) rmSync(candidate, { force: true });
    return { updatedPairs: replacements.size };
  }
  rewriteTape(tape, replacements, candidate);
  return { updatedPairs: 0, pendingPath: candidate };
}

/** Redacts a live response with the tape's secret placeholders (the prepare step found them) plus any requested names. */
export function redactWith(secrets: readonly string[], live: string, extra: readonly string[], env: NodeJS.ProcessEnv): string {
  const names = new Set([...extra, ...secrets]);
  return names.size === 0 ? live : redact(live, [...names], env);
}
