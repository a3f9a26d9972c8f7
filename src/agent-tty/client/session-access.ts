import { AgentError } from '../errors.js';
import { requestHost } from './client.js';
import { isTerminal, readManifest, type SessionRecord } from '../manifest.js';
import { checkSessionId } from '../paths.js';
import { reconcile, reconcileDeadHost, terminationCategory } from './reconcile.js';
import type { AgentContext } from '../context.js';
import { logAt } from '../log.js';

/** Default for requests that answer at once (everything but wait). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The manifest of `id`, reconciled if its host died. */
export function loadSession(ctx: AgentContext, id: string): SessionRecord {
  return reconcile(ctx.home, readManifest(ctx.home, checkSessionId(id))).record;
}

export function notRunningError(record: SessionRecord, what: string): AgentError {
  if (record.status === 'destroyed') {
    return new AgentError('SESSION_NOT_RUNNING', `Session ${JSON.stringify(record.sessionId)} was destroyed; cannot ${what}.`, {
      sessionId: record.sessionId,
      status: record.status,
      terminationCategory: terminationCategory(record),
    });
  }
  return new AgentError('SESSION_NOT_RUNNING', `Session ${JSON.stringify(record.sessionId)} is not running (status ${record.status}); cannot ${what}.`, {
    sessionId: record.sessionId,
    status: record.status,
    terminationCategory: terminationCategory(record),
    exitCode: record.exitCode,
    exitSignal: record.exitSignal,
  });
}

/**
 * Sends one request to the session's host and returns its result. A host that
 * is gone is reconciled first and the failure says the session is not running.
 */
export async function callHost(
  ctx: AgentContext,
  id: string,
  command: string,
  args: Record<string, unknown>,
  timeoutMs = ctx.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
): Promise<Record<string, unknown>> {
  const record = loadSession(ctx, id);
  if (record.hostPid === null) throw notRunningError(record, command);
  let envelope;
  const started = Date.now();
  try {
    logAt(ctx.logLevel, 'debug', `${command} -> ${record.socketPath}`, ctx.io.stderr);
    envelope = await requestHost(record.socketPath, { command, args }, timeoutMs, record.sessionId);
    logAt(ctx.logLevel, 'debug', `${command} <- ${envelope.ok ? 'ok' : envelope.error?.code} in ${Date.now() - started} ms`, ctx.io.stderr);
  } catch (err) {
    if (err instanceof AgentError && err.code === 'HOST_UNREACHABLE') {
      const fresh = readManifest(ctx.home, record.sessionId);
      // A host that just ended normally (destroy, linger) is not a crash.
      const repaired = isTerminal(fresh.status) ? fresh : reconcileDeadHost(ctx.home, fresh, `the session host is unreachable: ${err.message}`);
      throw notRunningError(repaired, command);
    }
    throw err;
  }
  if (!envelope.ok) throw AgentError.fromBody(envelope.error ?? {});
  return envelope.result ?? {};
}
