import { diffJson, formatPathDifference, differenceWindow } from '../../core/text/json-diff.js';

/**
 * For a request the tape cannot answer: the recorded request closest to it and
 * how they differ, so a user sees at once whether a normaliser is missing or
 * the client changed. Same JSON-RPC method (or seed-000 op) first, then the
 * fewest differing JSON paths, then the longest common prefix.
 */
export function closestRequest<T extends { request: string; norm: string }>(norm: string, candidates: readonly T[]): { candidate: T; details: string[] } | undefined {
  if (candidates.length === 0) return undefined;
  const live = parse(norm);
  let best: { candidate: T; score: number; diffs?: ReturnType<typeof diffJson> } | undefined;
  for (const c of candidates) {
    const rec = parse(c.norm);
    let score: number;
    let diffs: ReturnType<typeof diffJson> | undefined;
    if (live.ok && rec.ok) {
      diffs = diffJson(rec.value, live.value);
      score = (kindOf(rec.value) === kindOf(live.value) ? 0 : 1000) + diffs.length;
    } else {
      score = 10_000 - differenceWindow(c.norm, norm).at;
    }
    if (!best || score < best.score) best = { candidate: c, score, diffs };
  }
  const details = best!.diffs ? best!.diffs.slice(0, 10).map((d) => formatPathDifference(d)) : (() => {
    const w = differenceWindow(best!.candidate.norm, norm);
    return [`differs at character ${w.at + 1}: recorded ${JSON.stringify(w.expected)}, got ${JSON.stringify(w.actual)}`];
  })();
  return { candidate: best!.candidate, details };
}

function parse(text: string): { ok: boolean; value?: unknown } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** What a request asks for: its JSON-RPC method or seed-000 op. */
function kindOf(v: unknown): string | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  return typeof o.method === 'string' ? `method:${o.method}` : typeof o.op === 'string' ? `op:${o.op}` : undefined;
}
