import { afterAll, afterEach } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { CliIO } from '../../src/cli/io.js';

export const ROOT = resolve(import.meta.dirname, '../..');
/** The tapedeck bin as package.json names it (the bundle scripts/bundle-cli.mjs builds). */
export const CLI = join(ROOT, (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.tapedeck);
export const AGENT_SERVER = ['node', join(ROOT, 'examples/agent-server.mjs')];
export const EVERYTHING_SERVER = ['node', join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];

const DEFAULT_RUN_TIMEOUT_MS = 50_000;

/**
 * What a run under test inherits: the suite's environment without what would make
 * tapedeck behave as on CI or in an update mode (the suite itself may run on CI;
 * a test that wants CI sets it), then the test's own variables.
 */
export function childEnv(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['CI', 'GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY', 'TAPEDECK_UPDATE']) delete base[name];
  const merged = { ...base, ...env };
  // A test that picks its own Chromium (a missing one, say) must not get the suite's shared browser.
  if (env && 'TAPEDECK_CHROMIUM' in env) delete merged.TAPEDECK_BROWSER_ENDPOINT;
  return merged;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end with optional stdin, killing it (and failing loudly, with its
 * stderr) after timeoutMs: by default 50 s, a hang guard under the 60 s test timeout, not a
 * speed check (a loaded machine took over 30 s for doctor's Chromium checks).
 */
export function run(command: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const env = childEnv(options.env);
    const child = spawn(command[0], command.slice(1), { cwd: options.cwd ?? ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.stdin.on('error', () => {});
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out after ${options.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS} ms: ${command.join(' ')}\nstderr: ${Buffer.concat(err).toString()}`));
    }, options.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}

export function tapedeck(args: string[], options: Parameters<typeof run>[1] = {}): Promise<RunResult> {
  return run(['node', CLI, ...args], options);
}

/**
 * The CLI in this process: main(argv, io) from the built dist/cli/run.js with buffers
 * for stdout and stderr, stdin from `input` (else an ended stream), env over the
 * test's, cwd ROOT unless given. For usage, bad-input, help and explain checks;
 * what needs the process boundary (exit flushing, signals, pipes) runs through tapedeck().
 */
export async function tapedeckInProcess(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<RunResult & { code: number }> {
  const { main } = (await import(pathToFileURL(join(ROOT, 'dist/cli/run.js')).href)) as typeof import('../../src/cli/run.js');
  usedInProcess = true;
  return inProcess((io) => main(args, io), options);
}

// In-process runs leave what they opened for the next call (the renderer's page) open, as
// the bin's exit would close it: the test file's end closes it the same way.
let usedInProcess = false;
afterAll(async () => {
  if (!usedInProcess) return;
  const { shutdown } = (await import(pathToFileURL(join(ROOT, 'dist/plumbing/process/shutdown.js')).href)) as typeof import('../../src/plumbing/process/shutdown.js');
  await shutdown();
});

/**
 * Runs a CLI entry (main(argv, io) or runAgentTty) in this process with buffered
 * stdout and stderr, stdin from `input` (else an ended stream), env over the test's
 * and cwd ROOT unless given; returns what a spawned run would.
 */
export async function inProcess(entry: (io: CliIO) => Promise<number>, options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<RunResult & { code: number }> {
  const env = childEnv(options.env);
  const out: string[] = [];
  const err: string[] = [];
  // Real streams, as a command that pipes into its output (record's tap) needs.
  const sink = (into: string[]) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        into.push(chunk.toString('utf8'));
        done();
      },
    });
  const stdin = Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]);
  const code = await entry({ stdout: sink(out), stderr: sink(err), stdin, env, cwd: options.cwd ?? ROOT });
  return { code, signal: null, stdout: out.join(''), stderr: err.join('') };
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'tapedeck-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Fresh folders, each removed by `hook` (afterEach or afterAll). */
function tempDirsRemovedBy(hook: typeof afterEach): () => string {
  const made: Array<() => void> = [];
  hook(() => {
    while (made.length) made.pop()!();
  });
  return () => {
    const t = tempDir();
    made.push(t.cleanup);
    return t.dir;
  };
}

/**
 * Call at the top of a test file: `const temp = useTempDirs();` then
 * `const dir = temp();` in a test gives a fresh folder removed after the test.
 */
export function useTempDirs(): () => string {
  return tempDirsRemovedBy(afterEach);
}

/**
 * As useTempDirs, for files whose tests run concurrently (describe.concurrent): the folders are
 * removed when the whole file is done, since one test's afterEach would remove another's.
 */
export function useFileTempDirs(): () => string {
  return tempDirsRemovedBy(afterAll);
}

/**
 * Whether a process still runs. A zombie counts as ended: where PID 1 does not reap
 * orphans (some CI containers), a killed background job stays a zombie for good.
 */
export { processAlive } from '../../src/core/process-identity.js';
