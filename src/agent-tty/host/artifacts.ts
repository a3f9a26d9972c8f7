import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentError } from '../errors.js';
import { newId } from '../ids.js';
import { sessionPaths } from '../paths.js';

/**
 * The artifact index of a session: one JSON line per snapshot, screenshot or
 * export, appended by whichever process made it (a host or a CLI call, possibly
 * at once: single-line O_APPEND writes do not interleave).
 */
export type ArtifactKind = 'snapshot' | 'screenshot' | 'recording' | 'video';

export interface ArtifactEntry {
  artifactId: string;
  kind: ArtifactKind;
  path: string;
  createdAt: string;
  capturedAtSeq?: number;
  format?: string;
}

export function recordArtifact(home: string, sessionId: string, entry: ArtifactEntry): void {
  const path = sessionPaths(home, sessionId).artifactsIndex;
  try {
    appendFileSync(path, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  } catch (err) {
    throw new AgentError('STORAGE_WRITE_ERROR', `cannot write the artifact index ${path}: ${(err as Error).message}`, { sessionId, path });
  }
}

/**
 * Keeps a structured snapshot as an artifact (seed 002 §4.2): written under the session as
 * `snap_….json` and listed in its index. Returns the result with its id and path.
 */
export function persistSnapshot(home: string, sessionId: string, result: Record<string, unknown>, capturedAtSeq: number): Record<string, unknown> {
  const snapshotId = newId('snap');
  const dir = sessionPaths(home, sessionId).artifactsDir;
  const path = join(dir, `${snapshotId}.json`);
  const withId = { snapshotId, ...result, artifactPath: path };
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, `${JSON.stringify(withId)}\n`, { mode: 0o600 });
  } catch (err) {
    throw new AgentError('STORAGE_WRITE_ERROR', `cannot write the snapshot ${path}: ${(err as Error).message}`, { sessionId, path });
  }
  recordArtifact(home, sessionId, { artifactId: snapshotId, kind: 'snapshot', path, createdAt: new Date().toISOString(), capturedAtSeq });
  return withId;
}

export function readArtifacts(home: string, sessionId: string): ArtifactEntry[] {
  const path = sessionPaths(home, sessionId).artifactsIndex;
  if (!existsSync(path)) return [];
  const out: ArtifactEntry[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as ArtifactEntry);
    } catch {
      // torn line
    }
  }
  return out;
}

/** §7.3 `artifacts`: totals by kind, and which files are gone from disk. */
export function artifactHealth(home: string, sessionId: string): Record<string, unknown> {
  const entries = readArtifacts(home, sessionId);
  const byKind: Record<string, number> = {};
  const missing: Array<{ artifactId: string; kind: string; path: string }> = [];
  for (const e of entries) {
    byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
    if (!existsSync(e.path)) missing.push({ artifactId: e.artifactId, kind: e.kind, path: e.path });
  }
  return {
    total: entries.length,
    byKind,
    missingCount: missing.length,
    health: missing.length === 0 ? 'healthy' : missing.length === entries.length ? 'missing' : 'degraded',
    ...(missing.length ? { missing } : {}),
  };
}
