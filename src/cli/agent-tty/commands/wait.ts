import { flag, intOption, sessionArg, str, type ParsedArgs } from '../argv.js';
import type { CommandDef } from '../command.js';
import type { AgentContext } from '../config.js';
import { AgentError, AgentExit } from '../../../agent-tty/errors.js';
import { callHost, loadSession } from '../../../agent-tty/client/session-access.js';
import { isTerminal } from '../../../agent-tty/manifest.js';

/** §13.4: finite by default. */
export const DEFAULT_WAIT_TIMEOUT_MS = 30_000;
/** Extra time the socket gets beyond the wait itself (the host answers a timeout as a result). */
const SOCKET_GRACE_MS = 5_000;

function waitRequest(args: ParsedArgs): Record<string, unknown> {
  const modes: Record<string, unknown>[] = [];
  const text = str(args, 'text');
  const regex = str(args, 'regex');
  const idleMs = intOption(args, 'idle-ms', 'INVALID_DURATION', 0);
  const stableMs = intOption(args, 'screen-stable-ms', 'INVALID_DURATION', 0);
  const row = intOption(args, 'cursor-row', 'INVALID_INPUT', 0);
  const col = intOption(args, 'cursor-col', 'INVALID_INPUT', 0);
  if (text !== undefined) modes.push({ mode: 'text', text });
  if (regex !== undefined) {
    try {
      new RegExp(regex, 'm');
    } catch (err) {
      throw new AgentError('INVALID_INPUT', `--regex: ${(err as Error).message}`, { regex });
    }
    modes.push({ mode: 'regex', regex });
  }
  if (flag(args, 'exit')) modes.push({ mode: 'exit' });
  if (idleMs !== undefined) modes.push({ mode: 'idle', idleMs });
  if (stableMs !== undefined) modes.push({ mode: 'stable', stableMs });
  if ((row === undefined) !== (col === undefined)) throw new AgentError('INVALID_INPUT', 'wait: give both --cursor-row and --cursor-col', {});
  if (row !== undefined) modes.push({ mode: 'cursor', row, col });
  if (modes.length !== 1) {
    throw new AgentError('INVALID_INPUT', 'wait: give exactly one of --text, --regex, --exit, --idle-ms, --screen-stable-ms, --cursor-row/--cursor-col', {});
  }
  return modes[0];
}

function describe(result: Record<string, unknown>, request: Record<string, unknown>, ms: number): string {
  if (result.timedOut) return `Timed out after ${result.timeoutMs} ms`;
  switch (request.mode) {
    case 'text':
    case 'regex':
      return `Matched ${request.mode} ${JSON.stringify(result.matchedText)} after ${ms} ms`;
    case 'exit':
      return `Exited with code ${result.exitCode}${result.exitSignal ? ` (${result.exitSignal})` : ''}`;
    case 'idle':
      return `Idle for ${request.idleMs} ms`;
    case 'stable':
      return `Screen stable for ${request.stableMs} ms`;
    default:
      return `Cursor at row ${result.cursorRow}, col ${result.cursorCol}`;
  }
}

export const wait: CommandDef = {
  name: 'wait',
  maxPositionals: 1,
  summary: 'wait for text, a regex, exit, idle output, a stable screen or a cursor position',
  usage: `agent-tty wait SESSION_ID (--text T | --regex RE | --exit | --idle-ms N | --screen-stable-ms N
                            | --cursor-row R --cursor-col C) [--timeout-ms N]
Timeout (default 30000 ms) exits 5 with the last observed state in the result.`,
  options: { text: 'string', regex: 'string', exit: 'boolean', 'idle-ms': 'string', 'screen-stable-ms': 'string', 'cursor-row': 'string', 'cursor-col': 'string' },
  async run(ctx: AgentContext, args: ParsedArgs) {
    const id = sessionArg(args, 'wait');
    const request = waitRequest(args);
    const timeoutMs = ctx.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    const record = loadSession(ctx, id);
    // A program that ended after its host left: the manifest already knows the exit.
    if (request.mode === 'exit' && isTerminal(record.status) && record.hostPid === null && record.status !== 'failed') {
      const result = { timedOut: false, exitCode: record.exitCode, ...(record.exitSignal ? { exitSignal: record.exitSignal } : {}) };
      return { result, human: describe(result, request, 0) };
    }
    const started = Date.now();
    let result: Record<string, unknown>;
    try {
      result = await callHost(ctx, id, 'wait', { ...request, timeoutMs }, timeoutMs + SOCKET_GRACE_MS);
    } catch (err) {
      // The host may leave between reading the manifest and connecting: the exit is in the manifest then.
      const after = request.mode === 'exit' && err instanceof AgentError && err.code === 'SESSION_NOT_RUNNING' ? loadSession(ctx, id) : undefined;
      if (!after || after.status !== 'exited') throw err;
      result = { timedOut: false, exitCode: after.exitCode, ...(after.exitSignal ? { exitSignal: after.exitSignal } : {}) };
    }
    return { result, human: describe(result, request, Date.now() - started), ...(result.timedOut ? { exitCode: AgentExit.waitTimeout } : {}) };
  },
};
