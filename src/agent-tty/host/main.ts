#!/usr/bin/env node
import { chmodSync, closeSync, rmSync, statSync, writeSync } from 'node:fs';
import { toAgentError } from '../errors.js';
import { SessionHost } from './host.js';
import { listen } from './server.js';
import { readManifest, updateManifest } from '../manifest.js';
import { killGroup } from '../../plumbing/process/group.js';
import { packagePath } from '../../core/package-root.js';

/**
 * The detached session host process: `node dist/agent-tty/host/main.js HOME SESSION_ID`.
 * `create` starts it with fd 3 as a pipe and waits for one line on it: the
 * ready record, or the startup error. After that the host answers only on its
 * control socket, and lives until destroy, idle timeout, or the linger after
 * its program exited.
 */
const READY_FD = 3;

function report(message: Record<string, unknown>): void {
  try {
    writeSync(READY_FD, `${JSON.stringify(message)}\n`);
    closeSync(READY_FD);
  } catch {
    // create gave up waiting; the manifest still says what happened
  }
}

/**
 * AGENT_TTY_BIN must run as a command; tsc writes main.js without the x bit
 * (npm sets it only on installed bins), so the host sets it once.
 */
function ensureExecutable(path: string): void {
  try {
    const mode = statSync(path).mode;
    if ((mode & 0o111) !== 0o111) chmodSync(path, mode | 0o111);
  } catch {
    // not ours to change: programs can still run `node "$AGENT_TTY_BIN"`
  }
}

async function main(): Promise<void> {
  const [home, sessionId] = process.argv.slice(2);
  const binPath = packagePath('dist/cli/agent-tty/main.js'); // the agent-tty bin, for AGENT_TTY_BIN
  ensureExecutable(binPath);
  let host: SessionHost;
  try {
    host = new SessionHost(home, sessionId, binPath);
  } catch (err) {
    const error = toAgentError(err);
    try {
      updateManifest(home, sessionId, { status: 'failed', failureOrigin: 'startup', failureReason: error.message, hostPid: null });
    } catch {
      // the manifest itself is the problem; the error below says so
    }
    report({ ok: false, error: error.body(), exitCode: error.exitCode });
    process.exit(1);
  }
  const socketPath = readManifest(home, sessionId).socketPath;
  const server = await listen(host, socketPath);
  let exiting = false;
  host.onEnded = () => {
    rmSync(socketPath, { force: true });
    // Let in-flight answers (the destroy reply itself) reach their clients first.
    server.close(() => process.exit(0));
    if (!exiting) {
      exiting = true;
      setTimeout(() => process.exit(0), 2000).unref();
    }
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => void host.end('host-signal'));
  process.on('uncaughtException', (err) => {
    // A host that cannot go on must not leave its program running without a controller.
    process.stderr.write(`agent-tty host ${sessionId}: ${err.stack ?? err.message}\n`);
    try {
      killGroup(host.terminal.pid, 'SIGKILL');
      updateManifest(home, sessionId, { status: 'failed', failureOrigin: 'host-death', failureReason: err.message, hostPid: null, childPid: null });
      rmSync(socketPath, { force: true });
    } finally {
      process.exit(1);
    }
  });
  const record = host.markRunning();
  report({ ok: true, record });
}

void main();
