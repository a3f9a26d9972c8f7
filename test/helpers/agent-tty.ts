import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inProcess, ROOT, run, tempDir, type RunResult } from './cli.js';

/** The built agent-tty bin. */
export const AGENT_TTY = join(ROOT, 'dist/cli/agent-tty/main.js');

export interface AgentCall extends RunResult {
  /** The parsed --json envelope (stdout). */
  env: { ok: boolean; command: string; timestamp: string; result?: any; error?: { code: string; message: string; retryable: boolean; details: Record<string, unknown> } };
}

export interface AgentCallOptions {
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Through the bin, a process per call as an agent runs it (default: runAgentTty in this process, the same code behind the bin). */
  bin?: boolean;
}

/** One agent-tty call with --json and --home; the parsed envelope beside the raw output. */
export async function agentTty(home: string, args: string[], options: AgentCallOptions = {}): Promise<AgentCall> {
  const argv = ['--home', home, '--json', ...args];
  const r = options.bin ? await run(['node', AGENT_TTY, ...argv], { env: options.env, timeoutMs: options.timeoutMs ?? 60_000 }) : await agentTtyInProcess(argv, options.env);
  let env: AgentCall['env'];
  try {
    env = JSON.parse(r.stdout);
  } catch {
    throw new Error(`agent-tty ${args.join(' ')}: no JSON envelope (exit ${r.code})\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  }
  return { ...r, env };
}

async function agentTtyInProcess(argv: string[], env?: NodeJS.ProcessEnv): Promise<RunResult> {
  const { runAgentTty } = (await import(pathToFileURL(AGENT_TTY).href)) as typeof import('../../src/cli/agent-tty/main.js');
  return inProcess((io) => runAgentTty(argv, 'agent-tty', io), { env });
}

/** Like agentTty but fails the test unless the call succeeded; returns the result. */
export async function ok(home: string, args: string[], options: AgentCallOptions = {}): Promise<any> {
  const r = await agentTty(home, args, options);
  if (r.code !== 0 || !r.env.ok) throw new Error(`agent-tty ${args.join(' ')} failed (exit ${r.code}): ${r.stdout}${r.stderr}`);
  return r.env.result;
}

/** Pids of processes whose command line mentions `text` (a test home is unique, so this finds its hosts). */
export function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (cmdline.includes(text) && !/^\d+ \(.*\) Z /.test(stat)) pids.push(Number(name));
    } catch {
      // gone while listing
    }
  }
  return pids;
}

/** Socket files anywhere under `dir`. */
export function socketsUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isSocket()) out.push(join(d, e.name));
      else if (e.isDirectory()) walk(join(d, e.name));
    }
  };
  walk(dir);
  return out;
}

/** A fresh home whose sessions are force-destroyed and whose directory is removed at cleanup. */
export function agentHome(): { home: string; cleanup: () => Promise<void> } {
  const t = tempDir('agent-tty-test-');
  return {
    home: t.dir,
    cleanup: async () => {
      const list = await agentTty(t.dir, ['list']);
      for (const s of list.env.result?.sessions ?? []) await agentTty(t.dir, ['destroy', s.sessionId, '--force']);
      t.cleanup();
    },
  };
}

/** Polls `check` until it returns a value (not undefined) or `timeoutMs` passes: for state another process changes. */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether `pid` is a live process (a zombie waiting for its reaper counts as gone). */
export function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
