import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { flag, sessionArg, str, type ParsedArgs } from '../argv.js';
import type { CommandDef } from '../command.js';
import type { AgentContext } from '../config.js';
import { AgentError } from '../../../agent-tty/errors.js';
import { isTerminal, listSessionIds, readManifest, updateManifest } from '../../../agent-tty/manifest.js';
import { checkSessionId, fallbackSocketDir, sessionPaths } from '../../../agent-tty/paths.js';
import { childStillOurs, hostAlive, processAlive, reconcile } from '../../../agent-tty/client/reconcile.js';
import { callHost } from '../../../agent-tty/client/session-access.js';
import { killGroup } from '../../../plumbing/process/group.js';
import { problemWithSharedDir } from '../../../core/files/shared-dir.js';

export const destroy: CommandDef = {
  name: 'destroy',
  maxPositionals: 1,
  summary: 'end a session (graceful; --force kills host and child); keeps its directory',
  usage: 'agent-tty destroy SESSION_ID [--force]',
  options: { force: 'boolean' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = checkSessionId(sessionArg(args, 'destroy'));
    const record = readManifest(ctx.home, id);
    if (record.status === 'destroyed') {
      throw new AgentError('SESSION_ALREADY_DESTROYED', `Session ${JSON.stringify(id)} was already destroyed.`, { sessionId: id });
    }
    if (!flag(args, 'force') && record.hostPid !== null && hostAlive(record)) {
      try {
        await callHost(ctx, id, 'destroy', {});
        await hostGone(record.hostPid);
        return { result: { sessionId: id, destroyed: true }, human: `Destroyed session ${id}` };
      } catch (err) {
        // An unreachable or hung host falls through to the forced path: destroy always ends the session.
        if (!(err instanceof AgentError) || (err.code !== 'SESSION_NOT_RUNNING' && err.code !== 'HOST_TIMEOUT')) throw err;
      }
    }
    // --force, or no host to ask: kill what is left, then reconcile to destroyed (§17.2).
    const fresh = readManifest(ctx.home, id);
    if (fresh.hostPid !== null && hostAlive(fresh)) killGroup(fresh.hostPid, 'SIGKILL');
    if (childStillOurs(fresh)) killGroup(fresh.childPid!, 'SIGKILL');
    rmSync(fresh.socketPath, { force: true });
    updateManifest(ctx.home, id, { status: 'destroyed', hostPid: null, childPid: null });
    return { result: { sessionId: id, destroyed: true }, human: `Destroyed session ${id}` };
  },
};

/** The host answers destroy just before it exits: wait for the exit, so "destroyed" means no process is left. */
async function hostGone(pid: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) {
      killGroup(pid, 'SIGKILL');
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseAge(text: string): number {
  const m = /^(\d+)(ms|s|m|h|d|w)$/.exec(text.trim());
  if (!m) throw new AgentError('INVALID_DURATION', `--older-than expects a number and a unit (ms, s, m, h, d, w), e.g. 7d; got ${JSON.stringify(text)}`, { value: text });
  return Number(m[1]) * UNITS[m[2]];
}

/**
 * §18: never a running session. By default (and with --stale-only) removes
 * sessions whose host died (failed) and temp files; --older-than also removes
 * exited and destroyed sessions last updated before the cutoff.
 */
export const gc: CommandDef = {
  name: 'gc',
  maxPositionals: 0,
  summary: 'remove stale sessions and temp files (--older-than: also ended sessions)',
  usage: 'agent-tty gc [--stale-only] [--older-than 7d] [--dry-run]',
  options: { 'stale-only': 'boolean', 'older-than': 'string', 'dry-run': 'boolean' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const olderThan = str(args, 'older-than');
    if (olderThan !== undefined && flag(args, 'stale-only')) throw new AgentError('INVALID_INPUT', 'gc: --stale-only and --older-than exclude each other', {});
    const cutoff = olderThan === undefined ? undefined : Date.now() - parseAge(olderThan);
    const dryRun = flag(args, 'dry-run');
    const removed: string[] = [];
    const kept: string[] = [];
    for (const id of listSessionIds(ctx.home)) {
      let record;
      try {
        record = reconcile(ctx.home, readManifest(ctx.home, id)).record;
      } catch {
        kept.push(id);
        continue;
      }
      const stale = record.status === 'failed';
      const old = cutoff !== undefined && isTerminal(record.status) && Date.parse(record.updatedAt) < cutoff;
      // A session with a live host is running in every sense that matters, whatever its status says.
      if (!isTerminal(record.status) || (record.hostPid !== null && hostAlive(record)) || !(stale || old)) {
        kept.push(id);
        continue;
      }
      if (!dryRun) {
        rmSync(record.socketPath, { force: true });
        rmSync(sessionPaths(ctx.home, id).dir, { recursive: true, force: true });
      }
      removed.push(id);
    }
    const tempRemoved = dryRun ? 0 : removeTemp(ctx.home) + (await removeDeadSockets());
    return {
      result: { removed, removedCount: removed.length, keptCount: kept.length, tempFilesRemoved: tempRemoved, dryRun },
      human: `Removed ${removed.length} session(s)${tempRemoved ? ` and ${tempRemoved} temp file(s)` : ''}; kept ${kept.length}`,
    };
  },
};

/** Sockets in the shared fallback directory that nobody listens on any more (a host killed with -9). */
async function removeDeadSockets(): Promise<number> {
  const dir = fallbackSocketDir();
  if (problemWithSharedDir(dir, { create: false })) return 0; // not ours alone (or absent): touch nothing in it
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.sock'));
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const path = join(dir, name);
    const dead = await new Promise<boolean>((resolve) => {
      const c = connect(path);
      c.once('connect', () => {
        c.destroy();
        resolve(false);
      });
      c.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' || err.code === 'ENOENT'));
    });
    if (dead) {
      rmSync(path, { force: true });
      removed++;
    }
  }
  return removed;
}

function removeTemp(home: string): number {
  const dir = join(home, 'tmp');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return 0;
  const entries = readdirSync(dir);
  for (const name of entries) rmSync(join(dir, name), { recursive: true, force: true });
  return entries.length;
}
