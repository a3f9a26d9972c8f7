import { existsSync, readFileSync, rmSync } from 'node:fs';
import { killGroup } from '../../plumbing/process/group.js';
import { processAlive, sameProcessAsRecorded } from '../../core/process-identity.js';
import { isTerminal, updateManifest, type SessionRecord } from '../manifest.js';

/**
 * Crash reconciliation: a manifest that says starting/running while its host
 * is gone describes a session nobody controls. The orphaned program (if any)
 * is killed, the record becomes failed with failureOrigin host-death, and the
 * stale socket is removed. A host that ended normally (linger) leaves a
 * terminal status, which needs no repair.
 */
export { processAlive };

/**
 * Is the record's program still the process with its pid? It was alive when the
 * record was last written; a process that started after that got the pid later.
 */
export function childStillOurs(record: SessionRecord): boolean {
  return record.childPid !== null && sameProcessAsRecorded(record.childPid, Date.parse(record.updatedAt));
}

/** Is `pid` our host for this session (not some process that reused the pid)? */
export function hostAlive(record: SessionRecord): boolean {
  if (!processAlive(record.hostPid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${record.hostPid}/cmdline`, 'utf8');
    return cmdline.includes('agent-tty/host/main.js') && cmdline.includes(record.sessionId);
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

export function reconcileDeadHost(home: string, record: SessionRecord, reason: string): SessionRecord {
  // A host that still runs but cannot be reached controls nothing: end it too.
  if (hostAlive(record)) killGroup(record.hostPid!, 'SIGKILL');
  if (childStillOurs(record)) killGroup(record.childPid!, 'SIGKILL');
  if (existsSync(record.socketPath)) rmSync(record.socketPath, { force: true });
  if (isTerminal(record.status)) {
    return record.hostPid === null && record.childPid === null ? record : updateManifest(home, record.sessionId, { hostPid: null, childPid: null });
  }
  return updateManifest(home, record.sessionId, { status: 'failed', failureOrigin: 'host-death', failureReason: reason, hostPid: null, childPid: null });
}

/** Repairs the record if its host died; returns it (changed or not) and whether it was repaired. */
/** A create that died before its host reported ready leaves "starting" with no host: stale after this long. */
const STARTING_STALE_MS = 60_000;

export function reconcile(home: string, record: SessionRecord): { record: SessionRecord; repaired: boolean } {
  if (record.status === 'starting' && record.hostPid === null && Date.now() - Date.parse(record.createdAt) > STARTING_STALE_MS) {
    const failed = updateManifest(home, record.sessionId, { status: 'failed', failureOrigin: 'startup', failureReason: 'the session never reported ready' });
    return { record: failed, repaired: true };
  }
  if (record.hostPid !== null && !hostAlive(record)) {
    return { record: reconcileDeadHost(home, record, `the session host (pid ${record.hostPid}) is gone`), repaired: true };
  }
  return { record, repaired: false };
}

/** §7.4: the read-time summary of how (or whether) a session ended. */
export function terminationCategory(record: SessionRecord): string {
  switch (record.status) {
    case 'starting':
    case 'running':
      return 'running';
    case 'destroyed':
      return 'destroyed';
    case 'failed':
      return record.failureOrigin === 'host-death' || record.failureOrigin === 'renderer-failure' ? record.failureOrigin : 'unknown';
    case 'exited':
      if (record.exitSignal) return 'signal-exit';
      if (record.exitCode === 0) return 'clean-exit';
      return record.exitCode === null ? 'unknown' : 'nonzero-exit';
    default:
      return 'unknown';
  }
}
