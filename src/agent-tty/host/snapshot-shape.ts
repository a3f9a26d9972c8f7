import type { ScreenSnapshot } from '../../session/screen/screen.js';

/** seed 002 §14: the structured snapshot (default) or plain text. */
export interface SnapshotArgs {
  format?: 'structured' | 'text';
  includeScrollback?: boolean;
  includeCells?: boolean;
  /** false: do not keep it as an artifact (screenshots take one to render). */
  persist?: boolean;
}

export function snapshotResult(sessionId: string, snap: ScreenSnapshot & { capturedAtSeq: number }, args: SnapshotArgs): Record<string, unknown> {
  if (args.format === 'text') {
    const lines = [...(snap.scrollbackLines ?? []), ...snap.visibleLines];
    while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
    return { sessionId, format: 'text', capturedAtSeq: snap.capturedAtSeq, rows: snap.rows, cols: snap.cols, text: lines.map((l) => l.trimEnd()).join('\n') };
  }
  return {
    sessionId,
    format: 'structured',
    capturedAtSeq: snap.capturedAtSeq,
    rows: snap.rows,
    cols: snap.cols,
    cursor: snap.cursor,
    isAltScreen: snap.isAltScreen,
    visibleLines: snap.visibleLines,
    ...(snap.scrollbackLines ? { scrollbackLines: snap.scrollbackLines } : {}),
    ...(snap.cells ? { cells: snap.cells } : {}),
  };
}
