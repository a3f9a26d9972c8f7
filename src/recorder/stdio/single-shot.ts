import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { killGroup } from '../../plumbing/process/group.js';
import { signalExitCode } from '../../plumbing/process/exit.js';
import { redact } from '../../core/text/redact.js';
import { trimWhiteSpace } from '../../core/text/trim.js';
import { TapeAppender } from './tape-writer.js';

/**
 * Seed 000's single-shot mode (`mty agent --single-shot < req.json`): the whole
 * of stdin is one request. Recording it is one pair: the body, trimmed, as
 * the request (a pretty-printed body keeps its lines), and everything the
 * server wrote until it exited as the response. The tape's notes mark the run
 * single-shot, so `tapedeck replay` closes stdin after the request as the
 * recording did, with no flag.
 */
export interface SingleShotOptions {
  command: string;
  args?: readonly string[];
  out: string;
  body: Buffer;
  redactEnv?: readonly string[];
  output: Writable;
  stderr: Writable | 'inherit';
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** After the server exits, how long a background child may hold its stdout open. */
  graceMs?: number;
  tmpdir?: string;
}

export async function recordSingleShot(o: SingleShotOptions): Promise<{ exitCode: number; pairsWritten: number; pairsNotWritten: number }> {
  const child = spawn(o.command, [...(o.args ?? [])], { stdio: ['pipe', 'pipe', o.stderr === 'inherit' ? 'inherit' : 'pipe'], env: o.env, cwd: o.cwd, detached: true });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (err) =>
      reject(new TapedeckError('TD2003', `cannot start ${o.command}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'command not found' : err.message}`)),
    );
  });
  if (o.stderr !== 'inherit') child.stderr?.pipe(o.stderr, { end: false });
  const report = (msg: string) => (o.stderr === 'inherit' ? process.stderr : o.stderr).write(msg);
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (c: Buffer) => {
    chunks.push(c);
    o.output.write(c);
  });
  child.stdin!.on('error', () => {});
  child.stdin!.end(o.body);
  const graceMs = o.graceMs ?? 2000;
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (c, s) => resolve({ code: c, signal: s }));
    child.once('exit', () => {
      const timer = setTimeout(() => {
        killGroup(child.pid, 'SIGKILL');
        child.stdout!.destroy();
      }, graceMs);
      child.once('close', () => clearTimeout(timer));
    });
  });
  killGroup(child.pid, 'SIGKILL');
  const names = o.redactEnv ?? [];
  const hide = (text: string) => {
    const t = names.length === 0 ? text : redact(text, names, o.env);
    return o.tmpdir ? t.split(JSON.stringify(o.tmpdir).slice(1, -1)).join('{{tapedeck.tmpdir}}') : t;
  };
  const tape = new TapeAppender(o.out, report, { singleShot: true });
  tape.append(hide(trimWhiteSpace(o.body.toString('utf8'))), hide(Buffer.concat(chunks).toString('utf8')));
  tape.close();
  return { exitCode: code ?? signalExitCode(signal), pairsWritten: tape.written, pairsNotWritten: tape.failed };
}

/** Reads a stream to its end. */
export async function readAll(input: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of input) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks);
}

/**
 * Tells a single-shot body from an interactive session before the tap starts:
 * when the first line starts a JSON value it does not complete (`{` of a
 * pretty-printed body), input is read to its end; if it is one JSON value
 * over several lines, that is a single-shot body. Anything else is handed on
 * untouched: `input` is what the tap reads (the bytes read so far, then the rest).
 */
export async function detectSingleShot(source: Readable): Promise<{ body: Buffer } | { input: Readable }> {
  const seen: Buffer[] = [];
  let ended = false;
  const firstLine = await new Promise<string | undefined>((resolve) => {
    const onData = (c: Buffer) => {
      seen.push(c);
      const all = Buffer.concat(seen);
      const nl = all.indexOf(0x0a);
      if (nl >= 0) finish(all.subarray(0, nl).toString('utf8'));
    };
    const onEnd = () => {
      ended = true;
      finish(Buffer.concat(seen).toString('utf8'));
    };
    const finish = (line: string | undefined) => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.pause();
      resolve(line);
    };
    source.on('data', onData);
    source.once('end', onEnd);
  });
  const handOn = (): { input: Readable } => {
    const pass = new PassThrough();
    for (const c of seen) pass.write(c);
    if (ended) pass.end();
    else {
      source.pipe(pass);
      source.resume();
    }
    return { input: pass };
  };
  const first = (firstLine ?? '').trim();
  if (ended || !(first.startsWith('{') || first.startsWith('[')) || parses(first)) return handOn();
  // An unfinished JSON value: read the rest, and see whether the whole is one value.
  source.resume();
  for await (const c of source) seen.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  ended = true;
  const body = Buffer.concat(seen);
  if (body.toString('utf8').includes('\n') && parses(body.toString('utf8').trim())) return { body };
  return handOn();
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
