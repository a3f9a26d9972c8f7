import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from '../../core/text/lines.js';
import { Normaliser } from '../../core/text/normalise.js';
import { oneLine } from '../../core/text/terminal-safe.js';
import { readProtocolTape, type ProtocolTape } from '../../tape/protocol/tape.js';
import { Passthrough } from './passthrough.js';
import { TapeMatcher, unmatchedReply } from './match.js';
import { serveLogText } from './log.js';
import { messagesOf, type Pace, writePaced } from '../pace.js';
import { pipePeer } from '../../plumbing/process/pipe-peer.js';
import { CONTENT_LENGTH, ContentLengthSplitter, frameMessage } from '../../core/framing/content-length.js';

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
  /** How a response of several messages goes out (default recorded: one at a time). */
  pace?: Pace;
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
  const shown = serveLogText(tape, env);

  const matcher = new TapeMatcher(tape, normaliser, env);
  const contentLength = tape.pairs.some((p) => p.framing === CONTENT_LENGTH);

  const unmatched: UnmatchedRequest[] = [];
  const history: string[] = [];
  const passthrough = options.passthrough?.length ? new Passthrough(options.passthrough, tape.path, options.timeoutMs ?? 10_000, log, env, contentLength ? CONTENT_LENGTH : undefined) : undefined;
  // Our stdout's reader, when it is the parent that spawned us (an MCP client over stdio): paced by condition.
  const peer = output === process.stdout ? pipePeer(1) : undefined;
  let served = 0;
  let index = 0;
  const answer = async (line: string) => {
    const request = line.trim();
    if (request === '') return;
    index++;
    const hit = matcher.match(request);
    if (hit) {
      served++;
      history.push(request);
      const parts = contentLength ? messagesOf(hit.bytes).map((m) => frameMessage(m.toString('utf8').replace(/\n$/, ''))) : messagesOf(hit.bytes);
      await writePaced(parts, (part, done) => output.write(part, () => done()), options.pace ?? 'recorded', peer);
      return;
    }
    if (passthrough) {
      const response = await passthrough.forward(request, history);
      history.push(request);
      output.write(contentLength ? Buffer.concat(messagesOf(response).map((m) => frameMessage(m.toString('utf8').replace(/\n$/, '')))) : response);
      return;
    }
    unmatched.push({ request, index });
    log(`tapedeck serve: ${oneLine(tape.path)}: no recorded response matches request ${index}: ${shown(request)}\n`);
    const closest = matcher.closest(request);
    if (closest) {
      log(`  closest recorded request (${oneLine(tape.path)}:${closest.candidate.pair.line}): ${shown(closest.candidate.request)}\n`);
      for (const d of closest.details) log(`    ${shown(d)}\n`);
    }
    const reply = unmatchedReply(request);
    output.write(contentLength ? frameMessage(reply.replace(/\n$/, '')) : reply);
  };

  // A tape recorded in Content-Length framing (LSP, DAP) is served in it: messages in, framed messages out.
  const lines = contentLength ? new ContentLengthSplitter() : new LineSplitter();
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

  const unused = matcher.unused();
  if (unused.length > 0 && !options.allowUnused) {
    for (const u of unused) log(`tapedeck serve: ${oneLine(tape.path)}:${u.line}: recorded pair never requested: ${shown(u.request)}\n`);
  }
  const failed = unmatched.length > 0 || (unused.length > 0 && !options.allowUnused);
  return { served, unmatched, unused, appended: passthrough?.appended ?? 0, exitCode: failed ? 1 : 0 };
}
