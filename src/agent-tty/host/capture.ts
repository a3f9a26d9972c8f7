import type { ScreenSnapshot } from '../../session/screen/screen.js';
import { persistSnapshot } from './artifacts.js';
import type { AgentContext } from '../context.js';
import { isTerminal } from '../manifest.js';
import { offlineSnapshot } from './offline.js';
import { callHost, loadSession, notRunningError } from '../client/session-access.js';
import { snapshotResult, type SnapshotArgs } from './snapshot-shape.js';

/**
 * A session's screen as a snapshot result: from the live host when there is
 * one, else (the program ended and its host left) rebuilt from the event log.
 */
export async function captureSnapshot(ctx: AgentContext, id: string, args: SnapshotArgs): Promise<Record<string, unknown>> {
  const record = loadSession(ctx, id);
  if (record.hostPid !== null) return callHost(ctx, id, 'snapshot', args as Record<string, unknown>);
  if (!isTerminal(record.status)) throw notRunningError(record, 'snapshot');
  const snap = await offlineSnapshot(ctx.home, record, { includeScrollback: Boolean(args.includeScrollback), includeCells: Boolean(args.includeCells) });
  const result = { ...snapshotResult(record.sessionId, snap, args), offline: true };
  if (args.persist === false) return result;
  return persistSnapshot(ctx.home, record.sessionId, result, snap.capturedAtSeq);
}

/** The structured result back as the ScreenSnapshot the renderer takes. */
export function asScreenSnapshot(result: Record<string, unknown>): ScreenSnapshot {
  return {
    rows: result.rows as number,
    cols: result.cols as number,
    cursor: result.cursor as ScreenSnapshot['cursor'],
    isAltScreen: result.isAltScreen as boolean,
    visibleLines: result.visibleLines as string[],
    cells: result.cells as ScreenSnapshot['cells'],
  };
}
