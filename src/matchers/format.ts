import { relative } from 'node:path';
import { driftLines, type Drift } from '../core/diagnostics/drift.js';
import { escapeControl } from '../core/text/escape.js';

export { escapeControl };

/** A screen framed for a failure message: rows numbered from `firstRow` (0-based screen rows), control characters escaped. */
export function frameScreen(text: string, title = 'screen', firstRow = 0): string {
  const lines = text.split('\n');
  const width = String(firstRow + lines.length - 1).length;
  return [`--- ${title} ---`, ...lines.map((l, i) => `${String(firstRow + i).padStart(width)} │${escapeControl(l)}`), '---'].join('\n');
}

export function describePattern(p: string | RegExp): string {
  return p instanceof RegExp ? String(p) : JSON.stringify(escapeControl(p)).replace(/\\\\/g, '\\');
}

export function formatDrifts(drifts: readonly Drift[]): string {
  return drifts
    .map((d) => driftLines(d, { tape: relative(process.cwd(), d.tape) }).join('\n'))
    .join('\n\n');
}

/** The matcher result of a tape replay, the same for protocol and terminal tapes. */
export function replayVerdict(tape: string, remaining: readonly Drift[], units: string, pendingPath?: string) {
  const pending = pendingPath ? `wrote ${relative(process.cwd(), pendingPath)} for review (\`tapedeck review\`)\n` : '';
  return {
    pass: remaining.length === 0,
    message: () =>
      remaining.length === 0
        ? `expected ${tape} to drift, but all ${units} replayed cleanly`
        : `${tape}: ${remaining.length} drift(s) in ${units}\n\n${formatDrifts(remaining)}\n\n${pending}Accept intended changes with vitest -u (or tapedeck replay --update), or the .new with \`tapedeck review\`.`,
  };
}
