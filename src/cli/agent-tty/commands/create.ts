import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { intOption, list, str, type ParsedArgs } from '../argv.js';
import type { CommandDef } from '../command.js';
import type { AgentContext } from '../config.js';
import { AgentError } from '../../../agent-tty/errors.js';
import { newId } from '../../../agent-tty/ids.js';
import { writeManifest, type SessionRecord } from '../../../agent-tty/manifest.js';
import { privateDir, sessionPaths, sessionsDir, socketPathFor, socketDir } from '../../../agent-tty/paths.js';
import { startHost } from '../../../agent-tty/client/spawn-host.js';
import { displayCommand } from '../../../tape/asciicast/write.js';

const DEFAULT_START_TIMEOUT_MS = 15_000;

function parseEnv(entries: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new AgentError('INVALID_INPUT', `--env expects KEY=VALUE, got ${JSON.stringify(entry)}`, { env: entry });
    env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

function resolveShell(args: ParsedArgs, env: NodeJS.ProcessEnv): string {
  const given = str(args, 'shell') ?? str(args, 'command');
  if (given !== undefined && given.trim() === '') throw new AgentError('INVALID_INPUT', '--shell must name a shell executable, got an empty path', {});
  return given ?? (env.SHELL || '/bin/sh');
}

export const create: CommandDef = {
  name: 'create',
  summary: 'start a session: a detached host with a PTY child',
  usage: `agent-tty create [--rows N] [--cols N] [--cwd DIR] [--env K=V]... [--term T] [--name NAME]
                 [--shell PATH] [--idle-timeout-ms N] [--] [command...]
Without a command, the shell (--shell, else $SHELL, else /bin/sh) runs. Default size 40x120.`,
  options: { cwd: 'string', rows: 'string', cols: 'string', env: 'multi', term: 'string', name: 'string', shell: 'string', command: 'string', 'idle-timeout-ms': 'string' },
  restIsCommand: true,
  async run(ctx: AgentContext, args: ParsedArgs) {
    const rows = intOption(args, 'rows', 'INVALID_DIMENSIONS', 1, 10_000) ?? 40;
    const cols = intOption(args, 'cols', 'INVALID_DIMENSIONS', 1, 10_000) ?? 120;
    const idleTimeoutMs = intOption(args, 'idle-timeout-ms', 'INVALID_DURATION', 1) ?? null;
    const env = parseEnv(list(args, 'env'));
    const shell = resolveShell(args, ctx.io.env);
    const command = args.positionals.length > 0 ? args.positionals : [shell];
    const cwd = resolve(ctx.io.cwd, str(args, 'cwd') ?? '.');
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new AgentError('INVALID_INPUT', `--cwd ${JSON.stringify(cwd)} is not a directory`, { cwd });
    const sessionId = newId('sess');
    const socketPath = socketPathFor(ctx.home, sessionId);
    socketDir(socketPath); // refused before anything starts when the shared fallback is not ours alone
    privateDir(sessionsDir(ctx.home));
    privateDir(sessionPaths(ctx.home, sessionId).dir);
    const now = new Date().toISOString();
    const record: SessionRecord = {
      version: 1,
      sessionId,
      ...(str(args, 'name') !== undefined ? { name: str(args, 'name') } : {}),
      createdAt: now,
      updatedAt: now,
      status: 'starting',
      command,
      cwd,
      cols,
      rows,
      initialCols: cols,
      initialRows: rows,
      term: str(args, 'term') ?? 'xterm-256color',
      env,
      shell,
      idleTimeoutMs,
      socketPath,
      hostPid: null,
      childPid: null,
      exitCode: null,
      exitSignal: null,
    };
    writeManifest(ctx.home, record);
    const ready = await startHost(ctx.home, sessionId, ctx.timeoutMs ?? DEFAULT_START_TIMEOUT_MS, ctx.logLevel, ctx.io);
    return {
      result: {
        sessionId,
        createdAt: ready.createdAt,
        cols: ready.cols,
        rows: ready.rows,
        shell: ready.shell,
        env: ready.env,
        idleTimeoutMs: ready.idleTimeoutMs,
        ...(ready.name !== undefined ? { name: ready.name } : {}),
      },
      human: `Created session ${sessionId} (${displayCommand(command)})`,
    };
  },
};
