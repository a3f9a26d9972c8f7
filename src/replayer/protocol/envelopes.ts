import { makeEnvelope, type DiagnosticEnvelope } from '../../core/diagnostics/envelope.js';
import type { Drift } from '../../core/diagnostics/drift.js';

/**
 * A drift as a seed 001 diagnostic envelope: the span is the tape line, and
 * the fix alternative is the unified diff of the tape that accepts the live
 * response, so `fix --apply` style tools can take it.
 */
export function driftToEnvelope(drift: Drift): DiagnosticEnvelope {
  const file = drift.file ?? drift.tape;
  const span = {
    file,
    line: drift.line,
    col: 1,
    len: drift.byteEnd - drift.byteStart,
    byte_start: drift.byteStart,
    byte_end: drift.byteEnd,
  };
  // Terminal drifts (TD11xx) count steps, not request/response pairs.
  const where = drift.code.startsWith('TD11') || drift.code.startsWith('TD12') ? `step ${drift.pair}: ${drift.request}` : `pair ${drift.pair}, request: ${drift.request}`;
  const detail = [where, ...drift.details].join('\n');
  return makeEnvelope({
    code: drift.code,
    span,
    title: drift.title,
    detail,
    fix: drift.acceptLine
      ? {
          kind: 'other', // seed 001's FixKind table has no golden update: its fall-back
          alternatives: [
            {
              label: 'accept the live response',
              diff: acceptDiff(file, drift.line, drift.recordedLine, drift.acceptLine),
              rationale: 'Rewrites this tape line with the response the live server sent, as `tapedeck replay --update` would.',
              confidence: 0.6,
            },
          ],
        }
      : undefined,
  });
}

/** A one-line-hunk unified diff, LF-only, as seed 001 asks. */
export function acceptDiff(file: string, line: number, oldLine: string, newLine: string): string {
  return `--- a/${file}\n+++ b/${file}\n@@ -${line},1 +${line},1 @@\n-${oldLine}\n+${newLine}\n`;
}

/**
 * Seed 001's `--include-source`: the span's line with one line of context on
 * each side, `start_line` the 1-based number of `lines[0]`. Files are read
 * once per call of the returned function's owner (pass one cache per run).
 */
export function withSource(env: DiagnosticEnvelope, cache: Map<string, string[] | undefined>, readText: (file: string) => string): DiagnosticEnvelope {
  const file = env.span.file;
  if (!cache.has(file)) {
    try {
      const text = readText(file);
      cache.set(file, (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n'));
    } catch {
      cache.set(file, undefined);
    }
  }
  const lines = cache.get(file);
  if (!lines || env.span.line < 1 || env.span.line > lines.length) return env;
  const start = Math.max(1, env.span.line - 1);
  return { ...env, source: { start_line: start, lines: lines.slice(start - 1, Math.min(lines.length, env.span.line + 1)) } };
}
