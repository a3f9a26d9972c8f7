import { TapedeckError } from '../../core/diagnostics/errors.js';
import { classifyRpc } from '../../core/framing/boundary.js';
import { parseObject } from '../../core/framing/rpc.js';
import { cancelledId } from '../../core/framing/rules.js';
import { Normaliser } from '../../core/text/normalise.js';
import { placeholdersIn, restore } from '../../core/text/redact.js';
import { readPairStore, type PairStore, type ProtocolTape, type TapePair } from '../../tape/protocol/tape.js';
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
  /** Its params as JSON text: a live request is matched by method and params, not by id. */
  params: string;
}

export interface PreparedTape {
  tape: ProtocolTape;
  /** How many pairs the tape has. */
  count: number;
  /**
   * Pair i as the replay uses it, made when asked for: a tape read from a file
   * keeps its bytes and decodes the pair again, so nothing is held per pair
   * but what differs from the recorded text (restored secrets, scoped rules).
   */
  at(i: number): PreparedPair;
  /** Closes the tape file `at` reads pairs from (opened again by the next read): a replay calls it when done. */
  release(): void;
  /** Pair indexes per session, each replayed against a fresh server. */
  sessions: number[][];
  serverRequests: RecordedServerRequest[];
  /** `content-length` when the tape was recorded in LSP/DAP framing (its lines say "framing"). */
  framing?: string;
  /** Pairs whose request a later client notification cancelled (notifications/cancelled, $/cancelRequest). */
  cancelled: Set<number>;
  /** The tape mentions {{tapedeck.tmpdir}}. */
  usesTmpdir: boolean;
  /** The names of the tape's secret placeholders, for redacting what is shown or written. */
  secrets: string[];
  /** The tape's notes say it was recorded single-shot (one request, stdin closed), or a request spans lines. */
  singleShot: boolean;
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
  const env = options.env ?? process.env;
  const normaliser = options.normaliser ?? new Normaliser();
  const seen = new PairFacts(env, normaliser);
  let store: PairStore;
  if (typeof tapeOrPath === 'string') store = await readPairStore(tapeOrPath, (pair, i) => seen.add(tapeOrPath, pair, i));
  else {
    const tape = tapeOrPath;
    tape.pairs.forEach((pair, i) => seen.add(tape.path, pair, i));
    store = { count: tape.pairs.length, pair: (i) => tape.pairs[i], tape, release: () => {} };
  }
  try {
    return fromStore(store, seen, normaliser, options);
  } catch (err) {
    store.release(); // a tape refused here keeps no descriptor open
    throw err;
  }
}

function fromStore(store: PairStore, seen: PairFacts, normaliser: Normaliser, options: PrepareOptions): PreparedTape {
  const tape = store.tape;
  if (store.count === 0 && !options.allowEmpty) {
    throw new TapedeckError('TD2001', 'the tape has no pairs (an empty recording); pass --allow-empty if that is intended', {
      location: { file: tape.path, line: tape.partialLine ?? 1 }, // a cut first line is where the pairs would be
    });
  }
  if (seen.error) throw seen.error; // after the whole tape is read: a malformed line is named first
  const at = (i: number): PreparedPair => {
    const pair = store.pair(i);
    return { pair, send: seen.send.get(i) ?? pair.request, expected: seen.expected.get(i) ?? pair.response, normaliser: seen.normalisers.get(i) ?? normaliser };
  };
  return {
    tape,
    count: store.count,
    at,
    release: () => store.release(),
    sessions: splitSessions(store.count, seen.halts, options.singleShot || seen.singleShot),
    serverRequests: indexServerRequests(seen.answers, seen.carriesMethod),
    cancelled: cancelledPairs(seen.cancels, at),
    framing: seen.framing,
    usesTmpdir: seen.usesTmpdir,
    secrets: [...seen.secrets],
    singleShot: (options.singleShot ?? false) || seen.singleShot,
  };
}

/**
 * What the prepare step learns of each pair as it is read, once: its secrets
 * restored (kept only when that changed it), its scoped normaliser (kept only
 * when not the run's), halts, the client's answers and the responses that may
 * carry server requests (for indexServerRequests), the scratch placeholder.
 */
class PairFacts {
  readonly send = new Map<number, string>();
  readonly expected = new Map<number, string>();
  readonly normalisers = new Map<number, Normaliser>();
  readonly halts: number[] = [];
  readonly answers: Array<[number, string]> = [];
  readonly carriesMethod: Array<[number, string, boolean]> = [];
  readonly cancels: Array<[number, string]> = [];
  framing?: string;
  readonly secrets = new Set<string>();
  usesTmpdir = false;
  singleShot = false;
  error?: unknown;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly normaliser: Normaliser,
  ) {}

  add(file: string, pair: TapePair, i: number): void {
    const where = { file, line: pair.line };
    let send = pair.request;
    let expected = pair.responseBytes ? pair.responseBytes.toString('latin1') : pair.response;
    try {
      send = restore(send, this.env, where);
      expected = restore(expected, this.env, where);
    } catch (err) {
      this.error ??= err;
    }
    if (send !== pair.request) this.send.set(i, send);
    if (expected !== pair.response) this.expected.set(i, expected);
    const n = this.normaliser.forRequest(pair.request);
    if (n !== this.normaliser) this.normalisers.set(i, n);
    // A new session after a halt, and where the notes say a recording run (ended at end of input) was appended.
    if (pair.runStart && i > 0 && this.halts[this.halts.length - 1] !== i - 1) this.halts.push(i - 1);
    if (isHalt(send)) this.halts.push(i);
    // A single-shot recording (noted), or a request over several lines (only single-shot sends one).
    if (pair.singleShot || (pair.request.includes('\n') && !pair.inNotes)) this.singleShot = true;
    // Only a client answer (a response: "result" or "error") is indexed; an escaped key could spell either.
    if (send.includes('"id"') && (send.includes('"result"') || send.includes('"error"') || send.includes('\\u'))) this.answers.push([i, send]);
    // Over HTTP the client's answer may sit before its request's pair (the GET stream's, kept where it ended).
    if (expected.includes('"method"')) this.carriesMethod.push([i, expected, pair.wire?.transport === 'http']);
    // The recorder writes the framing key last but for a non-canonical header block: only the line's end is looked at.
    if (pair.framing) this.framing = pair.framing;
    if (send.includes('ancel')) {
      const id = cancelledId(parseObject(send));
      if (id !== undefined) this.cancels.push([i, id]);
    }
    if (pair.request.includes(TMPDIR_PLACEHOLDER) || pair.response.includes(TMPDIR_PLACEHOLDER)) this.usesTmpdir = true;
    if (pair.request.includes(SECRET) || pair.response.includes(SECRET)) for (const name of placeholdersIn(pair.request + pair.response)) this.secrets.add(name);
  }
}

const SECRET = '{{tapedeck.env.';

/**
 * Session boundaries: seed 000's recorder appends each run of the server to
 * the same tape, and a run ends with `{"op":"halt"}` or at end of input; so a
 * new session (a fresh server) starts after every halt pair and where the
 * tape's notes say a run was appended (passed in `halts` as the pair before).
 * Single-shot tapes: one pair per session.
 */
export function splitSessions(count: number, halts: readonly number[], singleShot: boolean): number[][] {
  const sessions: number[][] = [];
  let current: number[] = [];
  let h = 0;
  for (let i = 0; i < count; i++) {
    current.push(i);
    const halt = halts[h] === i;
    if (halt) h++;
    if (singleShot || halt) {
      sessions.push(current);
      current = [];
    }
  }
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

function indexServerRequests(clientAnswers: ReadonlyArray<[number, string]>, carriesMethod: ReadonlyArray<[number, string, boolean]>): RecordedServerRequest[] {
  const out: RecordedServerRequest[] = [];
  const answers = new Map<string, number[]>();
  for (const [i, send] of clientAnswers) {
    const msg = classifyRpc(send);
    if (msg.type === 'response') answers.set(msg.id, [...(answers.get(msg.id) ?? []), i]);
  }
  const taken = new Set<number>();
  for (const [i, expected, anywhere] of carriesMethod) {
    for (const raw of splitMessages(expected)) {
      const msg = classifyRpc(raw);
      if (msg.type !== 'request') continue;
      const parsed = JSON.parse(raw) as { method: string; params?: unknown };
      const method = parsed.method;
      const params = JSON.stringify(parsed.params ?? null);
      const candidates = answers.get(msg.id);
      const answerPair = candidates?.find((q) => q > i && !taken.has(q)) ?? (anywhere ? lastUntaken(candidates, taken) : undefined);
      if (answerPair !== undefined) taken.add(answerPair);
      out.push({ method, id: msg.id, inPair: i, answerPair, params });
    }
  }
  return out;
}

function lastUntaken(list: readonly number[] | undefined, taken: ReadonlySet<number>): number | undefined {
  for (let k = (list?.length ?? 0) - 1; k >= 0; k--) if (!taken.has(list![k])) return list![k];
  return undefined;
}

/** The requests the cancels name: the last request before each cancel with its id (looked for among the 1000 before it). */
function cancelledPairs(cancels: ReadonlyArray<[number, string]>, at: (i: number) => PreparedPair): Set<number> {
  const out = new Set<number>();
  for (const [c, id] of cancels) {
    for (let j = c - 1; j >= 0 && j >= c - 1000; j--) {
      const msg = classifyRpc(at(j).send);
      if (msg.type === 'request' && msg.id === id) {
        out.add(j);
        break;
      }
    }
  }
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
