import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { problemWithSharedDir, sharedDirMessage } from '../core/files/shared-dir.js';
import { AgentError } from './errors.js';
import { SESSION_ID_PATTERN } from './ids.js';

/**
 * The home layout:
 *   <home>/sessions/<id>/session.json      the manifest (SessionRecord)
 *   <home>/sessions/<id>/events.ndjson     the append-only event log
 *   <home>/sessions/<id>/artifacts.ndjson  one line per artifact (snapshots, screenshots, exports)
 *   <home>/sessions/<id>/artifacts/        artifacts written under the session
 *   <home>/sessions/<id>/ctl/host.sock     the control socket (0600 in a 0700 directory)
 *   <home>/sessions/<id>/host.log          the host's stderr
 *   <home>/tmp/                            temp files gc may remove
 */
export function defaultHome(): string {
  return join(homedir(), '.agent-tty');
}

export function sessionsDir(home: string): string {
  return join(home, 'sessions');
}

export function checkSessionId(id: string): string {
  if (!SESSION_ID_PATTERN.test(id)) {
    throw new AgentError('INVALID_SESSION_ID', `invalid session id ${JSON.stringify(id)}: use letters, digits, _ and - (e.g. sess_01JQ...)`, { sessionId: id });
  }
  return id;
}

export interface SessionPaths {
  dir: string;
  manifest: string;
  events: string;
  artifactsIndex: string;
  artifactsDir: string;
  hostLog: string;
}

export function sessionPaths(home: string, id: string): SessionPaths {
  const dir = join(sessionsDir(home), checkSessionId(id));
  return {
    dir,
    manifest: join(dir, 'session.json'),
    events: join(dir, 'events.ndjson'),
    artifactsIndex: join(dir, 'artifacts.ndjson'),
    artifactsDir: join(dir, 'artifacts'),
    hostLog: join(dir, 'host.log'),
  };
}

/** sockaddr_un holds 108 bytes on Linux (104 on macOS); stay well under both. */
const MAX_SOCKET_PATH = 100;

/**
 * Where a session's control socket lives: beside its manifest when the path
 * fits in a sockaddr_un, else in a per-user 0700 directory under the temp dir
 * keyed by a hash of home and id. The chosen path is recorded in the manifest.
 */
export function socketPathFor(home: string, id: string): string {
  const local = join(sessionPaths(home, id).dir, 'ctl', 'host.sock');
  if (Buffer.byteLength(local) <= MAX_SOCKET_PATH) return local;
  const hash = createHash('sha256').update(`${resolve(home)}\0${id}`).digest('hex').slice(0, 24);
  return join(fallbackSocketDir(), `${hash}.sock`);
}

/** The per-user directory for sockets whose path beside the manifest would be too long. */
export function fallbackSocketDir(): string {
  return join(tmpdir(), `agent-tty-${userInfo().uid}`);
}

/**
 * Makes the directory a session's control socket goes in: beside the manifest
 * (under the home, made 0700), or the shared fallback under $TMPDIR, which is
 * used only when it is a real directory of this uid that nobody else can write
 * (core/files/shared-dir.ts); otherwise refused, so no other user can replace
 * the socket or listen in on what `session type` sends.
 */
export function socketDir(socketPath: string): void {
  const dir = dirname(socketPath);
  if (dir !== fallbackSocketDir()) return privateDir(dir);
  const problem = problemWithSharedDir(dir);
  if (problem) throw new AgentError('STORAGE_WRITE_ERROR', `control socket: ${sharedDirMessage(dir, problem)}`, { path: dir });
}

/** Creates `dir` (and parents) and forces it to mode 0700. */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}
