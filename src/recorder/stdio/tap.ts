import { isUtf8 } from 'node:buffer';
import { killGroup } from '../../plumbing/process/group.js';
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { type Boundary, type Exchange, ResponseFramer, responseBytes } from '../../core/framing/boundary.js';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { LineSplitter } from '../../core/text/lines.js';
import { redact } from '../../core/text/redact.js';
import { TapeAppender, wholeJson } from './tape-writer.js';
import { CONTENT_LENGTH, ContentLengthSplitter, looksContentLength } from '../../core/framing/content-length.js';
import { RecordBudget } from './budget.js';
import { signalExitCode } from '../../plumbing/process/exit.js';
import { holdBack } from './backpressure.js';

export interface RecordProtocolOptions {
  /** The server command and its arguments. */
  command: string;
  args?: readonly string[];
  /** The tape to append to. */
  out: string;
  boundary?: Boundary;
  /** Variables whose values are stored as placeholders. */
  redactEnv?: readonly string[];
  /** The client side; defaults to this process's stdin/stdout. */
  input?: Readable;
  output?: Writable;
  /** Where the server's stderr and tapedeck's own messages go; `inherit` passes the fd straight through. */
  stderr?: Writable | 'inherit';
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * How long the server may take to exit after its stdin closed or a signal
   * was passed on, before its process group is stopped (SIGTERM, then SIGKILL
   * after as long again). Default 2000.
   */
  graceMs?: number;
  /** A scratch directory given to the server: stored in the tape as {{tapedeck.tmpdir}}. */
  tmpdir?: string;
}

export interface RecordProtocolResult {
  /** The server's exit code (128+N when it died of signal N): the tap's own exit code. */
  exitCode: number;
  signal: NodeJS.Signals | null;
  pairsWritten: number;
  pairsNotWritten: number;
  writeError?: string;
}

/**
 * Redacts response bytes; bytes that are not valid UTF-8 are redacted through
 * a latin1 view so they stay exact (and are stored as response_base64).
 */
function redactBytes(response: Buffer, names: readonly string[], env: NodeJS.ProcessEnv): Buffer | string {
  if (isUtf8(response)) return redact(response.toString('utf8'), names, env);
  const latin1Env: NodeJS.ProcessEnv = {};
  for (const name of names) if (env[name] !== undefined) latin1Env[name] = Buffer.from(env[name]!, 'utf8').toString('latin1');
  return Buffer.from(redact(response.toString('latin1'), names, latin1Env), 'latin1');
}

/**
 * A transparent tap: client bytes go to the server and server bytes to the
 * client as soon as they arrive, untouched; on the side, lines are framed into
 * request/response pairs and appended to the tape.
 */
export async function recordProtocol(options: RecordProtocolOptions): Promise<RecordProtocolResult> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const stderrTarget = options.stderr ?? 'inherit';
  const report = (msg: string) => (stderrTarget === 'inherit' ? process.stderr : stderrTarget).write(msg);
  const redactNames = options.redactEnv ?? [];
  const env = options.env ?? process.env;

  const graceMs = options.graceMs ?? 2000;
  // Its own process group, so stopping it stops whatever it started too.
  const child = spawn(options.command, [...(options.args ?? [])], {
    stdio: ['pipe', 'pipe', stderrTarget === 'inherit' ? 'inherit' : 'pipe'],
    env,
    cwd: options.cwd,
    detached: true,
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err) =>
      reject(new TapedeckError('TD2003', `cannot start ${options.command}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'command not found' : err.message}`)),
    );
  });
  if (stderrTarget !== 'inherit') child.stderr?.pipe(stderrTarget, { end: false });

  const tape = new TapeAppender(options.out, report);
  let fragment: Exchange | undefined;
  const budget = new RecordBudget((reason) => {
    tape.giveUp(reason);
    framer.dropHeld(); // nothing more goes on the tape: the response held so far is let go too
  });
  let serverLines: LineSplitter | ContentLengthSplitter = new LineSplitter();
  let clientLines: LineSplitter | ContentLengthSplitter = new LineSplitter();
  let framing: string | undefined;
  const dir = options.tmpdir;
  const hideText = (text: string) => (dir ? text.split(JSON.stringify(dir).slice(1, -1)).join('{{tapedeck.tmpdir}}') : text);
  const hide = (response: Buffer): Buffer | string => {
    const redacted = redactNames.length === 0 ? response : redactBytes(response, redactNames, env);
    if (!dir) return redacted;
    return typeof redacted === 'string' ? hideText(redacted) : isUtf8(redacted) ? hideText(redacted.toString('utf8')) : redacted;
  };
  // Each pair goes to disk as soon as it is complete: a killed tap loses at most the exchange in flight.
  const framer = new ResponseFramer(options.boundary ?? { kind: 'auto' }, {
    takePartial: () => serverLines.flush(),
    onComplete: (ex: Exchange) => {
      budget.release();
      if (ex === fragment) {
        // Replay would send the cut request and call whatever the server says to it fine: keep it off the tape.
        tape.notRecorded();
        report(`tapedeck: the client ended in the middle of a line: its last request (${Buffer.byteLength(ex.request)} bytes, no newline, not a whole JSON message) was not recorded to ${options.out}\n`);
        return;
      }
      const request = hideText(redactNames.length === 0 ? ex.request : redact(ex.request, redactNames, env));
      tape.append(request, hide(responseBytes(ex)));
    },
  });

  const childIn = child.stdin!;
  const childOut = child.stdout!;
  // The server may die with requests unsent; writing to it then is EPIPE, not our failure.
  childIn.on('error', () => {});
  output.on('error', () => {});

  let first = true;
  const onClientData = (chunk: Buffer) => {
    if (first) {
      first = false;
      // Content-Length framing (LSP, DAP) is told from the client's first bytes: both sides are split into messages.
      if (looksContentLength(chunk)) {
        clientLines = new ContentLengthSplitter();
        serverLines = new ContentLengthSplitter();
        framing = CONTENT_LENGTH;
        tape.setFraming(framing); // noted with the run's start, in the notes file beside the tape
      }
    }
    // Forward first: the tap's bookkeeping must not sit in the round trip. (The
    // response cannot arrive before this synchronous handler has registered the request.)
    // A server that reads slowly slows the client down, as it would without the tap.
    if (!childIn.write(chunk)) holdBack(input, childIn);
    if (budget.exhausted) {
      for (const line of clientLines.push(chunk)) if (line.toString('utf8').trim() !== '') tape.notRecorded(); // counted as the framer counts requests, not kept
      return;
    }
    for (const line of clientLines.push(chunk)) framer.addRequest(line.toString('utf8'));
  };
  // End of input: the server gets graceMs to exit by itself, then its group SIGTERM, then SIGKILL.
  // A signal to the tap goes to the group at once, then SIGKILL soon after (whoever signalled
  // the tap may SIGKILL it next, and the server must not outlive it).
  let stopTimer: NodeJS.Timeout | undefined;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const stopGroup = (signal: NodeJS.Signals | undefined) => {
    if (exited()) return;
    if (signal) {
      killGroup(child.pid, signal);
      if (stopTimer) clearTimeout(stopTimer);
      stopTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), Math.min(graceMs, 1000));
      return;
    }
    stopTimer ??= setTimeout(() => {
      killGroup(child.pid, 'SIGTERM');
      stopTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), graceMs);
    }, graceMs);
  };
  const onClientEnd = () => {
    const tail = clientLines.flush();
    if (tail && !framing) {
      // A last line without its newline is a whole request only when it is a whole JSON message;
      // otherwise the client died mid-line, and the exchange is framed (its answer is not another
      // pair's) but not recorded. (A cut Content-Length message is no request at all.)
      const text = tail.toString('utf8');
      const exchange = framer.addRequest(text);
      if (!wholeJson(text)) fragment = exchange;
    }
    childIn.end();
    stopGroup(undefined);
  };
  input.on('data', onClientData);
  input.once('end', onClientEnd);

  childOut.on('data', (chunk: Buffer) => {
    // Backpressure: a client that reads slowly (or late) stops the server's output here, in the pipe,
    // instead of this process buffering all of it (a 1 GiB flood held 1.19 GB).
    if (!output.write(chunk)) holdBack(childOut, output);
    if (budget.exhausted) return;
    framer.serverActivity();
    for (const line of serverLines.push(chunk)) framer.serverLine(line);
    budget.hold(chunk.length); // after the pairs this chunk completed were written (and released)
  });

  const forward = (sig: NodeJS.Signals) => () => stopGroup(sig);
  const forwarders = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => {
    const fn = forward(sig);
    process.on(sig, fn);
    return [sig, fn] as const;
  });

  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close' waits for stdout to end, so the last bytes are framed before we finish. A
    // background child holding stdout open would keep it for ever: after the exit, give
    // the pipe the grace period, then end the group.
    child.once('close', (c, s) => resolve({ code: c, signal: s }));
    child.once('exit', () => {
      const timer = setTimeout(() => {
        killGroup(child.pid, 'SIGKILL');
        childOut.destroy();
      }, graceMs);
      child.once('close', () => clearTimeout(timer));
    });
  });
  if (stopTimer) clearTimeout(stopTimer);
  killGroup(child.pid, 'SIGKILL'); // whatever it left running in its group

  const tail = serverLines.flush();
  if (tail) framer.serverPartial(tail);
  // Output after the last complete pair (a late notification) belongs to that pair.
  const late = framer.finish();
  if (late.length > 0) {
    const hidden = hide(late);
    tape.amendLast(Buffer.isBuffer(hidden) ? hidden : Buffer.from(hidden, 'utf8'));
  }
  tape.close();
  input.off('data', onClientData);
  input.off('end', onClientEnd);
  if (input === process.stdin) process.stdin.pause();
  for (const [sig, fn] of forwarders) process.off(sig, fn);

  return {
    exitCode: code ?? signalExitCode(signal),
    signal,
    pairsWritten: tape.written,
    pairsNotWritten: tape.failed,
    writeError: tape.firstError,
  };
}

