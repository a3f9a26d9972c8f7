import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../core/files/atomic-write.js';
import { AgentError } from './errors.js';
import { sessionPaths, sessionsDir } from './paths.js';

/** A session's persisted record (seed 002 §7.3 `session`). */
export type SessionStatus = 'starting' | 'running' | 'exited' | 'destroyed' | 'failed';
export const TERMINAL_STATUSES: readonly SessionStatus[] = ['exited', 'destroyed', 'failed'];

export interface SessionRecord {
  version: 1;
  sessionId: string;
  name?: string;
  createdAt: string;
  updatedAt: string;
  status: SessionStatus;
  /** argv of the PTY child. */
  command: string[];
  cwd: string;
  cols: number;
  rows: number;
  /** The size at creation (cols/rows follow resizes): where replaying the event log starts. */
  initialCols: number;
  initialRows: number;
  term: string;
  /** The --env additions (not the whole environment). */
  env: Record<string, string>;
  shell: string;
  idleTimeoutMs: number | null;
  socketPath: string;
  hostPid: number | null;
  childPid: number | null;
  exitCode: number | null;
  exitSignal: string | null;
  failureReason?: string;
  failureOrigin?: 'host-death' | 'renderer-failure' | 'startup';
  /** Why the host ended the session by itself (e.g. "idle-timeout"). */
  endReason?: string;
}

export function isTerminal(status: SessionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function manifestExists(home: string, id: string): boolean {
  return existsSync(sessionPaths(home, id).manifest);
}

export function readManifest(home: string, id: string): SessionRecord {
  const path = sessionPaths(home, id).manifest;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new AgentError('SESSION_NOT_FOUND', `Session ${JSON.stringify(id)} was not found.`, { sessionId: id, manifestPath: path });
    }
    throw new AgentError('STORAGE_READ_ERROR', `cannot read ${path}: ${(err as Error).message}`, { sessionId: id, manifestPath: path });
  }
  let record: SessionRecord;
  try {
    record = JSON.parse(text) as SessionRecord;
  } catch (err) {
    throw new AgentError('MANIFEST_VALIDATION_ERROR', `${path}: invalid JSON: ${(err as Error).message}`, { sessionId: id, manifestPath: path });
  }
  if (record?.version !== 1 || record.sessionId !== id || typeof record.status !== 'string' || !Array.isArray(record.command)) {
    throw new AgentError('MANIFEST_VALIDATION_ERROR', `${path}: not a version 1 session manifest for ${id}`, { sessionId: id, manifestPath: path });
  }
  return record;
}

/** Writes the manifest atomically (a reader sees the old record or the new one, never half). */
export function writeManifest(home: string, record: SessionRecord): void {
  const path = sessionPaths(home, record.sessionId).manifest;
  try {
    writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`);
  } catch (err) {
    throw new AgentError('STORAGE_WRITE_ERROR', (err as Error).message, { sessionId: record.sessionId, manifestPath: path });
  }
}

export function updateManifest(home: string, id: string, patch: Partial<SessionRecord>): SessionRecord {
  const record = { ...readManifest(home, id), ...patch, updatedAt: new Date().toISOString() };
  writeManifest(home, record);
  return record;
}

/** Session ids in directory-enumeration order (§6.2 promises no sort). */
export function listSessionIds(home: string): string[] {
  try {
    return readdirSync(sessionsDir(home), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(sessionPaths(home, d.name).manifest))
      .map((d) => d.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new AgentError('STORAGE_READ_ERROR', `cannot list ${sessionsDir(home)}: ${(err as Error).message}`, {});
  }
}
