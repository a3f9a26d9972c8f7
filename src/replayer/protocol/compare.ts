import { classifyRpc, type ResolvedRule } from '../../core/framing/boundary.js';
import { keyOfLine } from '../../core/framing/keyed.js';
import { messageName, withoutAdapterSeq } from '../../core/framing/dap.js';
import { limit, tooDeep } from '../../core/config/limits.js';
import { diffJson, formatPathDifference } from '../../core/text/json-diff.js';
import type { Normaliser } from '../../core/text/normalise.js';
import { lazyPackage } from '../../core/lazy-package.js';

// A line diff is needed only for a drifted response that is not JSON.
const diff = lazyPackage<typeof import('diff')>('diff');

/**
 * Response comparison. Byte-exact after normalisers, except for the one thing
 * a stable JSON-RPC server does not control: when its own messages
 * (notifications, server requests) arrive relative to responses. Those are
 * matched across the whole tape instead of per pair, so a race never looks like
 * drift while a changed, missing or extra message still does.
 */

/** Splits NDJSON text into messages, each keeping its "\n". */
export function splitMessages(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Why two responses differ, in lines a person can act on. */
export function explainDifference(expectedNorm: string, actualNorm: string, expectedRaw: string, actualRaw: string): string[] {
  const e = splitMessages(expectedNorm);
  const a = splitMessages(actualNorm);
  if (e.length === a.length && e.length > 0) {
    const parsed = e.map((line, i) => [tryJson(line), tryJson(a[i])] as const);
    if (parsed.every(([x, y]) => x.ok && y.ok)) {
      const out: string[] = [];
      e.forEach((line, i) => {
        if (line === a[i]) return;
        const prefix = e.length > 1 ? `message ${i + 1}: ` : '';
        const diffs = diffJson(parsed[i][0].value, parsed[i][1].value);
        if (diffs.length === 0) out.push(`${prefix}same JSON value, different bytes: expected ${JSON.stringify(line)}, got ${JSON.stringify(a[i])}`);
        for (const d of diffs) out.push(prefix + formatPathDifference(d));
      });
      return out;
    }
  }
  // Paths into JSON are linear in the size; a line diff is not, so only it is bounded.
  if (expectedNorm.length + actualNorm.length > limit('maxDiffBytes')) return describeLargeDifference(expectedNorm, actualNorm);
  return unifiedDiff(expectedRaw, actualRaw);
}

/**
 * Responses too large to diff line by line (a diff is quadratic in the worst
 * case: a 5 MB garbage response took minutes): their sizes and where they first part.
 */
export function describeLargeDifference(expected: string, actual: string): string[] {
  let i = 0;
  const n = Math.min(expected.length, actual.length);
  while (i < n && expected.charCodeAt(i) === actual.charCodeAt(i)) i++;
  const from = Math.max(0, i - 40);
  const around = (s: string) => JSON.stringify(s.slice(from, i + 80));
  return [
    `responses too large to diff line by line (${expected.length} and ${actual.length} characters; limit ${limit('maxDiffBytes')}, TAPEDECK_MAX_DIFF_BYTES)`,
    `first difference at character ${i}:`,
    `  expected …${around(expected)}…`,
    `  got      …${around(actual)}…`,
  ];
}

export function unifiedDiff(expected: string, actual: string, from = 'recorded', to = 'live'): string[] {
  const patch = diff().createTwoFilesPatch(from, to, ensureNewline(expected), ensureNewline(actual), undefined, undefined, { context: 3 });
  return patch
    .split('\n')
    .filter((l) => !l.startsWith('===') && l !== '\\ No newline at end of file')
    .filter((l, i, all) => !(i === all.length - 1 && l === ''));
}

function ensureNewline(s: string): string {
  return s.endsWith('\n') ? s : `${s}\n`;
}

function tryJson(text: string): { ok: boolean; value?: unknown } {
  if (tooDeep(text)) return { ok: false }; // described as text: a structural walk would overflow the stack
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export interface ComparedPair {
  /** 0-based pair index. */
  index: number;
  expected: string;
  actual: string;
  rule: ResolvedRule;
  /** For JSON-RPC requests, the id whose response is the solicited message. */
  awaitingId?: string;
  /** The rules for this pair (scoped normalisers), when not the run's. */
  normaliser?: Normaliser;
  /**
   * What the server wrote after this pair, the last of its session, until it
   * exited: it belongs to this pair, as the recorder keeps it.
   */
  trailing?: string;
}

export interface PairDifference {
  index: number;
  code: 'TD1001' | 'TD1004' | 'TD1005';
  title: string;
  details: string[];
}

/** A JSON-RPC message the server sent on its own, with the pair it landed in. */
interface Unsolicited {
  pair: number;
  raw: string;
  norm: string;
  method: string;
}

/**
 * `anyRpc`: whether the run had a JSON-RPC exchange, for a caller that leaves
 * byte-identical pairs out (they have nothing to report); by default, any of `pairs`.
 */
export function comparePairs(pairs: readonly ComparedPair[], normaliser: Normaliser, anyRpc = pairs.some((p) => p.rule.kind === 'jsonrpc' || p.rule.kind === 'id')): PairDifference[] {
  const out: PairDifference[] = [];
  const recordedPool: Unsolicited[] = [];
  const livePool: Unsolicited[] = [];

  for (const p of pairs) {
    const n = p.normaliser ?? normaliser;
    // Server messages after a session's last response are matched like any other server message.
    if (p.trailing && anyRpc) for (const raw of splitMessages(p.trailing)) livePool.push(unsolicited(p.index, raw, n));
    // Byte-identical (the common case): nothing to report, and its server messages match each other.
    if (p.expected === p.actual) continue;
    if (p.rule.kind !== 'jsonrpc' && p.rule.kind !== 'id') {
      const e = n.apply(p.expected);
      const a = n.apply(p.actual);
      if (e !== a) out.push({ index: p.index, code: 'TD1001', title: 'response drifted', details: explainDifference(e, a, p.expected, p.actual) });
      continue;
    }
    const path = p.rule.kind === 'id' ? p.rule.path : undefined;
    const rec = path ? splitKeyed(p.expected, path) : splitRpc(p.expected, p.awaitingId);
    const live = path ? splitKeyed(p.actual, path) : splitRpc(p.actual, p.awaitingId);
    for (const raw of rec.unsolicited) recordedPool.push(unsolicited(p.index, raw, n));
    for (const raw of live.unsolicited) livePool.push(unsolicited(p.index, raw, n));
    // A JSON-RPC message ends at its newline; a tape whose last message lost it (edited by hand) says the same.
    const e = withoutNewline(n.apply(withoutAdapterSeq(rec.solicited ?? '')));
    const a = withoutNewline(n.apply(withoutAdapterSeq(live.solicited ?? '')));
    if (e !== a) out.push({ index: p.index, code: 'TD1001', title: 'response drifted', details: explainDifference(e, a, rec.solicited ?? '', live.solicited ?? '') });
  }
  const live = livePool;
  const { leftRecorded, matchedLive } = matchPool(recordedPool, live);
  const leftLive = live.filter((m) => !matchedLive.has(m));

  // A recorded and a live message of the same method that both went unmatched are one change.
  const liveByMethod = new Map<string, Unsolicited[]>();
  for (const l of leftLive) liveByMethod.set(l.method, [...(liveByMethod.get(l.method) ?? []), l]);
  const changed: Array<[Unsolicited, Unsolicited]> = [];
  const missing: Unsolicited[] = [];
  for (const r of leftRecorded) {
    const l = liveByMethod.get(r.method)?.shift();
    if (l) changed.push([r, l]);
    else missing.push(r);
  }
  const paired = new Set(changed.map(([, l]) => l));
  const max = limit('maxUnexpectedDrifts');
  if (changed.length <= max) {
    for (const [r, l] of changed) out.push({ index: r.pair, code: 'TD1001', title: `server message drifted (${r.method})`, details: explainDifference(r.norm, l.norm, r.raw, l.raw) });
  } else out.push(counted('TD1001', changed.map(([r]) => r), 'server messages drifted', 'first ones expected, got something else instead:'));
  if (missing.length <= max) {
    for (const r of missing) out.push({ index: r.pair, code: 'TD1004', title: `server message missing (${r.method})`, details: [`expected, never received: ${r.raw.trimEnd()}`] });
  } else out.push(counted('TD1004', missing, 'server messages missing', 'first ones expected, never received:'));
  const unexpected = leftLive.filter((l) => !paired.has(l));
  out.push(...unexpectedMessages(unexpected));
  return out.sort((x, y) => x.index - y.index);
}

/**
 * Messages the tape does not have, one drift each up to a limit; past it, one
 * drift for them all with a count per method and a sample. A server that logs
 * 10,000 debug lines to stdout is one finding, not 10,000 (each carrying the
 * whole response: memory grew with the square of the output).
 */
function unexpectedMessages(left: readonly Unsolicited[]): PairDifference[] {
  if (left.length <= limit('maxUnexpectedDrifts')) {
    return left.map((l) => ({ index: l.pair, code: 'TD1005' as const, title: `unexpected server message (${l.method})`, details: [`received, not in the tape: ${l.raw.trimEnd()}`] }));
  }
  return [counted('TD1005', left, 'unexpected server messages', 'first ones received, not in the tape:')];
}

/** One drift for many messages of a kind: how many, of which kinds, in which pairs, and the first three. */
function counted(code: PairDifference['code'], messages: readonly Unsolicited[], what: string, sample: string): PairDifference {
  const byMethod = new Map<string, number>();
  for (const m of messages) byMethod.set(m.method, (byMethod.get(m.method) ?? 0) + 1);
  const counts = [...byMethod].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([m, n]) => `${m} ×${n}`);
  const pairs = new Set(messages.map((m) => m.pair + 1));
  return {
    index: messages[0].pair,
    code,
    title: `${messages.length} ${what} (more than ${limit('maxUnexpectedDrifts')}: counted, not listed; TAPEDECK_MAX_UNEXPECTED)`,
    details: [
      `by kind: ${counts.join(', ')}${byMethod.size > 10 ? `, … (${byMethod.size} kinds)` : ''}`,
      `in ${pairs.size} pair(s), from pair ${messages[0].pair + 1}`,
      sample,
      ...messages.slice(0, 3).map((m) => `  ${m.raw.trimEnd()}`),
    ],
  };
}

/** Multiset match by normalised text. */
function matchPool(recorded: Unsolicited[], live: Unsolicited[]): { leftRecorded: Unsolicited[]; matchedLive: Set<Unsolicited> } {
  const matchedLive = new Set<Unsolicited>();
  const byText = new Map<string, Unsolicited[]>();
  for (const l of live) {
    const list = byText.get(l.norm);
    if (list) list.push(l);
    else byText.set(l.norm, [l]);
  }
  const left: Unsolicited[] = [];
  for (const r of recorded) {
    const list = byText.get(r.norm);
    const hit = list?.shift();
    if (hit) matchedLive.add(hit);
    else left.push(r);
  }
  return { leftRecorded: left, matchedLive };
}

function splitRpc(text: string, awaitingId: string | undefined): { solicited?: string; unsolicited: string[] } {
  const unsolicitedMessages: string[] = [];
  let solicited: string | undefined;
  for (const raw of splitMessages(text)) {
    if (solicited === undefined && awaitingId !== undefined) {
      const msg = classifyRpc(raw);
      if (msg.type === 'response' && msg.id === awaitingId) {
        solicited = raw;
        continue;
      }
    }
    unsolicitedMessages.push(raw);
  }
  return { solicited, unsolicited: unsolicitedMessages };
}

/** id framing: the lines carrying the id path are the answer; the others (events) are matched across the tape. */
function splitKeyed(text: string, path: readonly string[]): { solicited?: string; unsolicited: string[] } {
  const answer: string[] = [];
  const events: string[] = [];
  for (const raw of splitMessages(text)) (keyOfLine(raw, path) === undefined ? events : answer).push(raw);
  return { solicited: answer.join(''), unsolicited: events };
}

function unsolicited(pair: number, raw: string, normaliser: Normaliser): Unsolicited {
  let method = 'non-JSON-RPC line';
  let requestId: unknown;
  try {
    const v = JSON.parse(raw) as Record<string, unknown>;
    const name = messageName(v);
    if (name !== undefined) method = name;
    if (typeof v.method === 'string' && v.id !== undefined) requestId = v.id;
    else if (v.id !== undefined) method = `response to id ${JSON.stringify(v.id)}`;
  } catch {
    /* keep the default */
  }
  return { pair, raw, norm: withoutNewline(normaliser.apply(requestId === undefined ? withoutAdapterSeq(raw) : withoutRequestId(raw))), method };
}

function withoutNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/**
 * A server's own request as it is matched: without its id, which is the
 * server's counter (how many requests it made before, on its own timers) and
 * never drift; the client's answer goes back with the live id.
 */
function withoutRequestId(raw: string): string {
  const v = JSON.parse(raw) as Record<string, unknown>;
  v.id = '{{server-request-id}}';
  return `${JSON.stringify(v)}${raw.endsWith('\n') ? '\n' : ''}`;
}
