import { TapedeckError } from '../core/errors.js';
import { classifyRpc } from '../core/boundary.js';
import { Normaliser } from '../core/normalise.js';
import { restore } from '../core/redact.js';
import { readProtocolTape, type ProtocolTape, type TapePair } from '../tape/protocol-tape.js';
import { splitMessages } from './compare.js';

/**
 * The first step of a protocol replay, done once per tape before any server
 * starts: read and validate the tape, restore its secrets (a missing variable
 * is bad input, exit 2), split it into sessions and index the requests the
 * server made of the client, so the drive step only sends and listens.
 */
export interface PreparedPair {
  pair: TapePair;
  /** The request with secrets restored. */
  send: string;
  /** The recorded response with secrets restored (latin1 when the tape kept raw bytes). */
  expected: string;
  normaliser: Normaliser;
}

/** A request the recorded server sent to the client, and the pair holding the client's answer. */
export interface RecordedServerRequest {
  method: string;
  id: string;
  /** The pair whose response carried the request. */
  inPair: number;
  /** The pair whose request is the client's answer, if the tape has one. */
  answerPair?: number;
}

export interface PreparedTape {
  tape: ProtocolTape;
  pairs: PreparedPair[];
  /** Pair indexes per session, each replayed against a fresh server. */
  sessions: number[][];
  serverRequests: RecordedServerRequest[];
  /** The tape mentions {{tapedeck.tmpdir}}. */
  usesTmpdir: boolean;
}

export const TMPDIR_PLACEHOLDER = '{{tapedeck.tmpdir}}';

export interface PrepareOptions {
  env?: NodeJS.ProcessEnv;
  normaliser?: Normaliser;
  /** An empty tape is fine (default: exit 2, a broken recording must not pass for ever). */
  allowEmpty?: boolean;
  /** Every pair is its own session (seed 000's --single-shot servers). */
  singleShot?: boolean;
}

export async function prepareProtocolTape(tapeOrPath: ProtocolTape | string, options: PrepareOptions = {}): Promise<PreparedTape> {
  const tape = typeof tapeOrPath === 'string' ? await readProtocolTape(tapeOrPath) : tapeOrPath;
  if (tape.pairs.length === 0 && !options.allowEmpty) {
    throw new TapedeckError('TD2001', 'the tape has no pairs (an empty recording); pass --allow-empty if that is intended', {
      location: { file: tape.path },
    });
  }
  const env = options.env ?? process.env;
  const normaliser = options.normaliser ?? new Normaliser();
  const pairs = tape.pairs.map((pair) => {
    const where = { file: tape.path, line: pair.line };
    return {
      pair,
      send: restore(pair.request, env, where),
      expected: restore(pair.responseBytes ? pair.responseBytes.toString('latin1') : pair.response, env, where),
      normaliser: normaliser.forRequest(pair.request),
    };
  });
  const usesTmpdir = tape.pairs.some((p) => p.request.includes(TMPDIR_PLACEHOLDER) || p.response.includes(TMPDIR_PLACEHOLDER));
  return { tape, pairs, sessions: splitSessions(pairs, options.singleShot ?? false), serverRequests: indexServerRequests(pairs), usesTmpdir };
}

/**
 * Session boundaries: seed 000's recorder appends each run of the server to
 * the same tape, and a run ends with `{"op":"halt"}`; so a new session (a fresh
 * server) starts after every halt pair. Single-shot tapes: one pair per session.
 */
export function splitSessions(pairs: readonly PreparedPair[], singleShot: boolean): number[][] {
  const sessions: number[][] = [];
  let current: number[] = [];
  pairs.forEach((p, i) => {
    current.push(i);
    if (singleShot || isHalt(p.send)) {
      sessions.push(current);
      current = [];
    }
  });
  if (current.length > 0 || sessions.length === 0) sessions.push(current);
  return sessions;
}

function isHalt(request: string): boolean {
  if (!request.includes('halt')) return false;
  try {
    return (JSON.parse(request) as { op?: unknown }).op === 'halt';
  } catch {
    return false;
  }
}

function indexServerRequests(pairs: readonly PreparedPair[]): RecordedServerRequest[] {
  const out: RecordedServerRequest[] = [];
  const answers = new Map<string, number[]>();
  pairs.forEach((p, i) => {
    // Only a client answer (a response: "result" or "error") is indexed; an escaped key could spell either.
    if (!p.send.includes('"id"') || !(p.send.includes('"result"') || p.send.includes('"error"') || p.send.includes('\\u'))) return;
    const msg = classifyRpc(p.send);
    if (msg.type === 'response') answers.set(msg.id, [...(answers.get(msg.id) ?? []), i]);
  });
  pairs.forEach((p, i) => {
    if (!p.expected.includes('"method"')) return;
    for (const raw of splitMessages(p.expected)) {
      const msg = classifyRpc(raw);
      if (msg.type !== 'request') continue;
      const method = (JSON.parse(raw) as { method: string }).method;
      const answerPair = answers.get(msg.id)?.find((q) => q > i && !out.some((r) => r.answerPair === q));
      out.push({ method, id: msg.id, inPair: i, answerPair });
    }
  });
  return out;
}

/** Puts the scratch directory in place of its placeholder, JSON-escaped as it sits inside JSON strings. */
export function withTmpdir(text: string, dir: string | undefined): string {
  if (dir === undefined || !text.includes(TMPDIR_PLACEHOLDER)) return text;
  return text.split(TMPDIR_PLACEHOLDER).join(JSON.stringify(dir).slice(1, -1));
}

/** The reverse, for live responses written back to the tape. */
export function tmpdirToPlaceholder(text: string, dir: string | undefined): string {
  if (dir === undefined) return text;
  const escaped = JSON.stringify(dir).slice(1, -1);
  return text.split(escaped).join(TMPDIR_PLACEHOLDER);
}
