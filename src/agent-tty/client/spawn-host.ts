import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { killGroup } from '../../plumbing/process/group.js';
import { packagePath } from '../../core/package-root.js';
import { AgentError } from '../errors.js';
import { updateManifest, type SessionRecord } from '../manifest.js';
import { sessionPaths } from '../paths.js';
import type { LogLevel } from '../context.js';
import { logAt } from '../log.js';
import type { CliIO } from '../../core/io.js';

/**
 * Starts the detached host of a session whose manifest is already written
 * (status "starting"), and waits for its one report on fd 3: ready, or why it
 * could not start. The host is its own process group (setsid), so it outlives
 * this CLI and is not hit by signals meant for the caller's terminal.
 */
export const HOST_MAIN = packagePath('dist/agent-tty/host/main.js'); // the built host, also from the bundled bin

export async function startHost(home: string, sessionId: string, timeoutMs: number, logLevel: LogLevel, io: CliIO): Promise<SessionRecord> {
  const log = openSync(sessionPaths(home, sessionId).hostLog, 'a', 0o600);
  const child = spawn(process.execPath, [HOST_MAIN, home, sessionId], {
    detached: true,
    stdio: ['ignore', log, log, 'pipe'],
    env: { ...io.env, AGENT_TTY_LOG_LEVEL: logLevel },
  });
  closeSync(log);
  const pipe = child.stdio[3] as NodeJS.ReadableStream;
  const report = await new Promise<Record<string, unknown> | { timeout: true } | { exited: number | null }>((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve({ timeout: true }), timeoutMs);
    const done = (value: Parameters<typeof resolve>[0]) => {
      clearTimeout(timer);
      resolve(value);
    };
    pipe.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const nl = text.indexOf('\n');
      if (nl === -1) return;
      try {
        done(JSON.parse(text.slice(0, nl)) as Record<string, unknown>);
      } catch {
        done({ exited: null });
      }
    });
    pipe.on('error', () => undefined);
    // 'exit' can come before the report the host wrote just before exiting has been
    // read: settle only once the pipe is drained too ('close'), or, should something
    // the host started still hold the pipe open, a moment after the exit.
    child.once('close', (code) => done({ exited: code }));
    child.once('exit', (code) => setTimeout(() => done({ exited: code }), 2000).unref());
  });
  (pipe as unknown as { destroy(): void }).destroy();
  child.unref();
  logAt(logLevel, 'info', `session ${sessionId}: host pid ${child.pid}`, io.stderr);
  if ('timeout' in report) {
    if (child.pid) killGroup(child.pid, 'SIGKILL');
    updateManifest(home, sessionId, { status: 'failed', failureOrigin: 'startup', failureReason: `the host did not report ready within ${timeoutMs} ms`, hostPid: null, childPid: null });
    throw new AgentError('HOST_TIMEOUT', `the session host did not report ready within ${timeoutMs} ms`, { sessionId, timeoutMs, hostLog: sessionPaths(home, sessionId).hostLog });
  }
  if ('exited' in report) {
    updateManifest(home, sessionId, { status: 'failed', failureOrigin: 'startup', failureReason: `the host exited (${report.exited}) before reporting ready`, hostPid: null, childPid: null });
    throw new AgentError('INTERNAL_ERROR', `the session host exited (code ${report.exited}) before it was ready; see ${sessionPaths(home, sessionId).hostLog}`, {
      sessionId,
      hostLog: sessionPaths(home, sessionId).hostLog,
    });
  }
  if (report.ok !== true) {
    throw AgentError.fromBody((report.error ?? {}) as Record<string, never>, typeof report.exitCode === 'number' ? report.exitCode : undefined);
  }
  return report.record as SessionRecord;
}
