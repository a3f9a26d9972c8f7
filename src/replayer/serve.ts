import type { Readable, Writable } from 'node:stream';
import { classifyRpc } from '../core/boundary.js';
import { LineSplitter } from '../core/lines.js';
import { Normaliser } from '../core/normalise.js';
import { placeholdersIn, redact, restore } from '../core/redact.js';
import { oneLine } from '../core/terminal-safe.js';
import { readProtocolTape, type ProtocolTape, type TapePair } from '../tape/protocol-tape.js';
import { splitMessages } from './compare.js';
import { closestRequest } from './serve-closest.js';
import { Passthrough } from './serve-passthrough.js';

export interface ServeOptions {
  normaliser?: Normaliser;
  /** An unused recorded pair is no failure. */
  allowUnused?: boolean;
  input?: Readable;
  output?: Writable;
  /** Where "unmatched"/"unused" reports go (default stderr). */
  log?: (message: string) => void;
  env?: NodeJS.ProcessEnv;
  /** A real server for the requests the tape cannot answer; its answers are appended to the tape. */
  passthrough?: readonly string[];
  /** How long the passthrough server may take per response (default 10000). */
  timeoutMs?: number;
}

export interface UnmatchedRequest {
  request: string;
  /** 1-based position among the client's requests. */
  index: number;
}

export interface ServeResult {
  served: number;
  unmatched: UnmatchedRequest[];
  unused: Array<{ line: number; request: string }>;
  /** Pairs answered by the passthrough server and appended to the tape. */
  appended: number;
  /** 1 when a request went unmatched or (without allowUnused) a pair went unused. */
  exitCode: 0 | 1;
}

interface Candidate {
  pair: TapePair;
  request: string;
  response: string;
  norm: string;
  /** The request with its JSON-RPC id removed, for clients that number requests differently. */
  normNoId?: string;
  used: boolean;
}

/**
 * A stand-in server: answers each client request with the recorded response of
 * the first unused pair whose request matches (after normalisers), so a client
 * can be tested without the real server.
 */
export async function serveTape(tapeOrPath: ProtocolTape | string, options: ServeOptions = {}): Promise<ServeResult> {
  const tape = typeof tapeOrPath === 'string' ? await readProtocolTape(tapeOrPath) : tapeOrPath;
  const env = options.env ?? process.env;
  const normaliser = options.normaliser ?? new Normaliser();
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const log = options.log ?? ((m: string) => process.stderr.write(m));
  // Log lines quote requests: the tape's secrets are hidden again, and control bytes shown, not sent.
  const secrets = [...new Set(tape.pairs.flatMap((p) => placeholdersIn(p.request + p.response)))];
  const shown = (text: string) => oneLine(redact(text, secrets, env));

  const candidates: Candidate[] = tape.pairs.map((pair) => {
    const where = { file: tape.path, line: pair.line };
    const request = restore(pair.request, env, where);
    const norm = normaliser.forRequest(request).apply(request);
    return {
      pair,
      request,
      response: restore(pair.responseBytes ? pair.responseBytes.toString('latin1') : pair.response, env, where),
      norm,
      normNoId: withoutId(norm),
      used: false,
    };
  });

  const unmatched: UnmatchedRequest[] = [];
  const history: string[] = [];
  const passthrough = options.passthrough?.length ? new Passthrough(options.passthrough, tape.path, options.timeoutMs ?? 10_000, log, env) : undefined;
  let served = 0;
  let index = 0;
  const answer = async (line: string) => {
    const request = line.trim();
    if (request === '') return;
    index++;
    const norm = normaliser.forRequest(request).apply(request);
    const exact = candidates.find((c) => !c.used && c.norm === norm) ?? candidates.find((c) => c.norm === norm);
    if (exact) {
      exact.used = true;
      served++;
      history.push(request);
      output.write(Buffer.from(exact.response, exact.pair.responseBytes ? 'latin1' : 'utf8'));
      return;
    }
    // Same request under another JSON-RPC id: answer with the recorded response, renumbered.
    const rpc = classifyRpc(request);
    const noId = rpc.type === 'request' ? withoutId(norm) : undefined;
    const renumbered = noId === undefined ? undefined : candidates.find((c) => !c.used && c.normNoId === noId) ?? candidates.find((c) => c.normNoId === noId);
    if (renumbered && rpc.type === 'request') {
      renumbered.used = true;
      served++;
      history.push(request);
      output.write(Buffer.from(renumberResponse(renumbered.response, classifyRpc(renumbered.request), rpc.id), renumbered.pair.responseBytes ? 'latin1' : 'utf8'));
      return;
    }
    if (passthrough) {
      const response = await passthrough.forward(request, history);
      history.push(request);
      output.write(response);
      return;
    }
    unmatched.push({ request, index });
      log(`tapedeck serve: ${oneLine(tape.path)}: no recorded response matches request ${index}: ${shown(request)}\n`);
      const closest = closestRequest(norm, candidates.some((c) => !c.used) ? candidates.filter((c) => !c.used) : candidates);
      if (closest) {
        log(`  closest recorded request (${oneLine(tape.path)}:${closest.candidate.pair.line}): ${shown(closest.candidate.request)}\n`);
        for (const d of closest.details) log(`    ${shown(d)}\n`);
      }
    output.write(unmatchedReply(request));
  };

  const lines = new LineSplitter();
  let clientGone = false;
  // A client that hangs up early (EPIPE) ends the conversation; it is not a crash.
  output.on('error', () => {
    clientGone = true;
  });
  // One request at a time, in order: a passthrough answer must not be overtaken by a taped one.
  let chain: Promise<void> = Promise.resolve();
  const queue = (l: string) => {
    chain = chain.then(() => (clientGone ? undefined : answer(l)));
  };
  await new Promise<void>((resolve, reject) => {
    input.on('data', (chunk: Buffer | string) => {
      for (const l of lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) queue(l.toString('utf8'));
    });
    input.once('end', () => {
      const tail = lines.flush();
      if (tail) queue(tail.toString('utf8'));
      resolve();
    });
    input.once('error', reject);
  });
  await chain;
  await passthrough?.close();

  const unused = candidates.filter((c) => !c.used).map((c) => ({ line: c.pair.line, request: c.pair.request }));
  if (unused.length > 0 && !options.allowUnused) {
    for (const u of unused) log(`tapedeck serve: ${oneLine(tape.path)}:${u.line}: recorded pair never requested: ${shown(u.request)}\n`);
  }
  const failed = unmatched.length > 0 || (unused.length > 0 && !options.allowUnused);
  return { served, unmatched, unused, appended: passthrough?.appended ?? 0, exitCode: failed ? 1 : 0 };
}

function withoutId(requestNorm: string): string | undefined {
  try {
    const v = JSON.parse(requestNorm) as Record<string, unknown>;
    if (!v || typeof v !== 'object' || Array.isArray(v) || !('id' in v)) return undefined;
    const { id: _drop, ...rest } = v;
    return JSON.stringify(rest);
  } catch {
    return undefined;
  }
}

function renumberResponse(response: string, recorded: ReturnType<typeof classifyRpc>, liveId: string): string {
  if (recorded.type !== 'request') return response;
  return splitMessages(response)
    .map((line) => {
      const msg = classifyRpc(line);
      if (msg.type !== 'response' || msg.id !== recorded.id) return line;
      const v = JSON.parse(line) as Record<string, unknown>;
      v.id = JSON.parse(liveId);
      return `${JSON.stringify(v)}${line.endsWith('\n') ? '\n' : ''}`;
    })
    .join('');
}

/** What a client gets for an unknown request, in its own protocol, so it never hangs. */
function unmatchedReply(request: string): string {
  const message = 'tapedeck serve: no recorded response for this request';
  const rpc = classifyRpc(request);
  if (rpc.type === 'request') {
    return `${JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(rpc.id), error: { code: -32601, message, data: { request } } })}\n`;
  }
  if (rpc.type === 'batch-request') {
    if (rpc.ids.length === 0) return '';
    return `${JSON.stringify(rpc.ids.map((id) => ({ jsonrpc: '2.0', id: JSON.parse(id), error: { code: -32601, message } })))}\n`;
  }
  if (rpc.type === 'notification' || rpc.type === 'response') return '';
  try {
    const v = JSON.parse(request) as Record<string, unknown>;
    if (v && typeof v === 'object' && typeof v.op === 'string') {
      return `${JSON.stringify({ kind: 'error', message: `${message}: ${request}` })}\n${JSON.stringify({ kind: 'done', exit_code: 2 })}\n`;
    }
  } catch {
    /* not JSON: nothing sensible to answer */
  }
  return '';
}
