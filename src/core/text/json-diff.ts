/**
 * Structural differences between two JSON values, as JSONPath-addressed lines
 * a person can act on: `$.result.tools[2].name: expected "echo", got "echo2"`.
 */
export interface PathDifference {
  path: string;
  expected?: unknown;
  actual?: unknown;
  /** Which side lacks the value, when one does. */
  missing?: 'expected' | 'actual';
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return IDENT.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/** Nesting past which values are reported whole instead of walked (the stack is finite). */
const MAX_DEPTH = 256;

export function diffJson(expected: unknown, actual: unknown, path = '$', out: PathDifference[] = [], limit = 50, depth = 0): PathDifference[] {
  if (out.length >= limit) return out;
  if (Object.is(expected, actual)) return out;
  if (depth >= MAX_DEPTH) {
    out.push({ path: `${path}…`, expected: '(nested too deep to compare further)', actual: '(differs below this depth)' });
    return out;
  }
  const eKind = kindOf(expected);
  const aKind = kindOf(actual);
  // MCP tool results carry JSON inside strings (content[].text): compare those as JSON too.
  if (eKind === 'string' && aKind === 'string') {
    const inner = [parseContainer(expected as string), parseContainer(actual as string)];
    if (inner[0].ok && inner[1].ok) {
      const before = out.length;
      diffJson(inner[0].value, inner[1].value, `${path} → $`, out, limit);
      if (out.length > before) return out;
    }
  }
  if (eKind !== aKind || (eKind !== 'object' && eKind !== 'array')) {
    out.push({ path, expected, actual });
    return out;
  }
  if (eKind === 'array') {
    const e = expected as unknown[];
    const a = actual as unknown[];
    const n = Math.max(e.length, a.length);
    for (let i = 0; i < n && out.length < limit; i++) {
      if (i >= a.length) out.push({ path: childPath(path, i), expected: e[i], missing: 'actual' });
      else if (i >= e.length) out.push({ path: childPath(path, i), actual: a[i], missing: 'expected' });
      else diffJson(e[i], a[i], childPath(path, i), out, limit, depth + 1);
    }
    return out;
  }
  const e = expected as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  for (const key of Object.keys(e)) {
    if (out.length >= limit) break;
    if (!Object.prototype.hasOwnProperty.call(a, key)) out.push({ path: childPath(path, key), expected: e[key], missing: 'actual' });
    else diffJson(e[key], a[key], childPath(path, key), out, limit, depth + 1);
  }
  for (const key of Object.keys(a)) {
    if (out.length >= limit) break;
    if (!Object.prototype.hasOwnProperty.call(e, key)) out.push({ path: childPath(path, key), actual: a[key], missing: 'expected' });
  }
  // Same values, different key order: still a byte difference worth naming.
  if (out.length === 0 && JSON.stringify(Object.keys(e)) !== JSON.stringify(Object.keys(a))) {
    out.push({ path, expected: `keys ${Object.keys(e).join(',')}`, actual: `keys ${Object.keys(a).join(',')}` });
  }
  return out;
}

function parseContainer(text: string): { ok: boolean; value?: unknown } {
  const t = text.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

export function formatPathDifference(d: PathDifference, maxValue = 120): string {
  const show = (v: unknown) => clip(JSON.stringify(v) ?? String(v), maxValue);
  if (d.missing === 'actual') return `${d.path}: expected ${show(d.expected)}, got nothing (missing)`;
  if (d.missing === 'expected') return `${d.path}: unexpected ${show(d.actual)} (not in the tape)`;
  const e = JSON.stringify(d.expected) ?? String(d.expected);
  const a = JSON.stringify(d.actual) ?? String(d.actual);
  if (e.length <= maxValue && a.length <= maxValue) return `${d.path}: expected ${e}, got ${a}`;
  // Long values: show where they differ, with context, rather than two identical beginnings.
  const strings = typeof d.expected === 'string' && typeof d.actual === 'string';
  const [re, ra] = strings ? [d.expected as string, d.actual as string] : [e, a];
  const w = differenceWindow(re, ra, Math.floor(maxValue / 3));
  const q = (s: string) => (strings ? JSON.stringify(s) : s);
  return `${d.path}: differs at character ${w.at + 1} of ${re.length} (live ${ra.length}): expected ${q(w.expected)}, got ${q(w.actual)}`;
}

/**
 * The part of two strings around their first difference: `context` characters
 * of common text either side, the differing middle clipped, `…` where cut.
 */
export function differenceWindow(e: string, a: string, context = 40): { at: number; expected: string; actual: string } {
  let start = 0;
  const n = Math.min(e.length, a.length);
  while (start < n && e[start] === a[start]) start++;
  let end = 0;
  while (end < n - start && e[e.length - 1 - end] === a[a.length - 1 - end]) end++;
  const piece = (s: string) => {
    const from = Math.max(0, start - context);
    const midEnd = s.length - end;
    const mid = midEnd - start > 2 * context ? `${s.slice(start, start + context)}…${s.slice(midEnd - context, midEnd)}` : s.slice(start, midEnd);
    const to = Math.min(s.length, midEnd + context);
    return `${from > 0 ? '…' : ''}${s.slice(from, start)}${mid}${s.slice(midEnd, to)}${to < s.length ? '…' : ''}`;
  };
  return { at: start, expected: piece(e), actual: piece(a) };
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
