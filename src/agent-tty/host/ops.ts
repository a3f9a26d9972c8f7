import { TapedeckError } from '../../core/diagnostics/errors.js';
import { normaliseSignal } from '../../session/pty/signals.js';
import type { KeyName } from '../../session/input/key-names.js';
import type { MouseButton, MouseModifier, WheelDirection } from '../../session/input/mouse.js';
import { persistSnapshot } from './artifacts.js';
import { AgentError } from '../errors.js';
import type { SessionHost } from './host.js';
import { snapshotResult, type SnapshotArgs } from './snapshot-shape.js';

/**
 * What a session host does for each request. Results are exactly the `result`
 * of the CLI's --json envelope for the same command. Inputs are applied in the
 * order requests arrive; one request's bytes go to the PTY in one write, so two
 * concurrent `type`s never interleave.
 */
type Args = Record<string, unknown>;

function str(args: Args, name: string): string {
  const v = args[name];
  if (typeof v !== 'string') throw new AgentError('INVALID_INPUT', `request field ${JSON.stringify(name)} must be a string`, { field: name });
  return v;
}

function int(args: Args, name: string): number {
  const v = args[name];
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new AgentError('INVALID_INPUT', `request field ${JSON.stringify(name)} must be an integer`, { field: name });
  return v;
}

function requireRunning(host: SessionHost, what: string): void {
  if (!host.terminal.running) {
    const how = host.terminal.exitSignal ? `was killed by ${host.terminal.exitSignal}` : `exited with code ${host.terminal.exitCode}`;
    throw new AgentError('SESSION_NOT_RUNNING', `Session ${JSON.stringify(host.sessionId)} is not running (its program ${how}); cannot ${what}.`, {
      sessionId: host.sessionId,
      status: host.status,
      exitCode: host.terminal.exitCode,
      exitSignal: host.terminal.exitSignal,
    });
  }
}

export async function handleRequest(host: SessionHost, command: string, args: Args): Promise<Record<string, unknown>> {
  const term = host.terminal;
  switch (command) {
    case 'ping':
      return { sessionId: host.sessionId, status: host.status };
    case 'inspect':
      return { session: host.current() };
    case 'type': {
      requireRunning(host, 'type');
      return { sessionId: host.sessionId, ...term.type(str(args, 'text')) };
    }
    case 'paste': {
      requireRunning(host, 'paste');
      return { sessionId: host.sessionId, ...term.paste(str(args, 'text'), { alwaysBracketed: true }) };
    }
    case 'send-keys': {
      requireRunning(host, 'send keys');
      const keys = args.keys;
      if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
        throw new AgentError('INVALID_KEYS', 'send-keys needs at least one key (e.g. Enter, ctrl+c, g)', {});
      }
      // Validated at run time by the key grammar (INVALID_KEYS); the type only helps code that spells keys literally.
      const r = term.press(...(keys as KeyName[]));
      return { accepted: r.accepted, bytesWritten: r.bytesWritten, seq: r.seq };
    }
    case 'mouse':
      return { sessionId: host.sessionId, action: args.action, ...mouse(host, args) };
    case 'resize': {
      const r = term.resize(int(args, 'rows'), int(args, 'cols'));
      host.resized(r.rows, r.cols);
      return { sessionId: host.sessionId, rows: r.rows, cols: r.cols };
    }
    case 'signal': {
      const signal = normaliseSignal(str(args, 'signal'));
      requireRunning(host, `send ${signal}`);
      return { sessionId: host.sessionId, ...term.signal(signal) };
    }
    case 'wait':
      return runWait(host, args);
    case 'snapshot':
      return snapshot(host, args as SnapshotArgs);
    case 'destroy': {
      await host.end('destroy');
      return { sessionId: host.sessionId, destroyed: true };
    }
    default:
      throw new AgentError('PROTOCOL_ERROR', `unknown request ${JSON.stringify(command)}`, { command });
  }
}

function mouse(host: SessionHost, args: Args): Record<string, unknown> {
  const term = host.terminal;
  requireRunning(host, 'send mouse input');
  const at = { row: int(args, 'row'), col: int(args, 'col') };
  const opts = { button: args.button as MouseButton | undefined, modifiers: args.modifiers as MouseModifier[] | undefined };
  switch (args.action) {
    case 'click':
      return { ...term.click(at.row, at.col, opts) };
    case 'drag':
      return { ...term.drag(at, { row: int(args, 'toRow'), col: int(args, 'toCol') }, { ...opts, steps: args.steps as number | undefined }) };
    case 'scroll':
      return { ...term.scroll(at.row, at.col, str(args, 'direction') as WheelDirection, { modifiers: opts.modifiers, count: args.count as number | undefined }) };
    case 'move':
      return { ...term.mouseMove(at.row, at.col, { modifiers: opts.modifiers }) };
    default:
      throw new AgentError('INVALID_INPUT', `unknown mouse action ${JSON.stringify(args.action)}`, { action: args.action });
  }
}

async function snapshot(host: SessionHost, args: SnapshotArgs): Promise<Record<string, unknown>> {
  const snap = await host.terminal.snapshot({ includeScrollback: Boolean(args.includeScrollback), includeCells: Boolean(args.includeCells) });
  const result = snapshotResult(host.sessionId, snap, args);
  if (args.persist === false) return result;
  return persistSnapshot(host.home, host.sessionId, result, snap.capturedAtSeq);
}

/** §13.5: render waits give { matched, timedOut, ... capturedAtSeq }; --exit and --idle-ms give { timedOut, exitCode? }. */
async function runWait(host: SessionHost, args: Args): Promise<Record<string, unknown>> {
  const term = host.terminal;
  const timeoutMs = int(args, 'timeoutMs');
  const mode = str(args, 'mode');
  const opts = { timeoutMs };
  try {
    switch (mode) {
      case 'exit': {
        const exit = await term.waitForExit(opts);
        return { timedOut: false, exitCode: exit.signal ? null : exit.exitCode, ...(exit.signal ? { exitSignal: exit.signal } : {}) };
      }
      case 'idle': {
        return { ...(await term.waitForIdle(int(args, 'idleMs'), opts)) };
      }
      case 'text':
        return { ...(await term.waitForText(str(args, 'text'), opts)) };
      case 'regex':
        return { ...(await term.waitForRegex(new RegExp(str(args, 'regex'), 'm'), opts)) };
      case 'stable':
        return { ...(await term.waitForStable(int(args, 'stableMs'), opts)) };
      case 'cursor':
        return { ...(await term.waitForCursor(int(args, 'row'), int(args, 'col'), opts)) };
      default:
        throw new AgentError('INVALID_INPUT', `unknown wait mode ${JSON.stringify(mode)}`, { mode });
    }
  } catch (err) {
    if (err instanceof TapedeckError && err.code === 'WAIT_TIMEOUT') {
      // §13.4: a timeout is a result (exit 5) carrying the last observed state.
      const cursor = term.screen.cursor;
      const lastState = { visibleLines: term.screen.snapshot().visibleLines, capturedAtSeq: (err.details?.capturedAtSeq as number) ?? 0 };
      if (mode === 'exit' || mode === 'idle') return { timedOut: true, timeoutMs, lastState };
      return { matched: false, timedOut: true, cursorRow: cursor.row, cursorCol: cursor.col, capturedAtSeq: lastState.capturedAtSeq, timeoutMs, lastState };
    }
    throw err;
  }
}
