import { Screen, type ScreenSnapshot, type SnapshotOptions } from '../../session/screen/screen.js';
import { fromStored, readEventLog } from './event-store.js';
import type { SessionRecord } from '../manifest.js';
import { sessionPaths } from '../paths.js';

/**
 * The screen of a session whose host is gone, rebuilt from its event log: the
 * recorded output and resizes are fed into a fresh headless screen of the
 * session's initial size. The same bytes through the same parser give the
 * screen the host had.
 */
export async function offlineSnapshot(home: string, record: SessionRecord, options: SnapshotOptions): Promise<ScreenSnapshot & { capturedAtSeq: number }> {
  const { events } = readEventLog(sessionPaths(home, record.sessionId).events);
  const screen = new Screen({ rows: record.initialRows ?? record.rows, cols: record.initialCols ?? record.cols });
  let capturedAtSeq = 0;
  try {
    for (const stored of events) {
      const event = fromStored(stored);
      if (event.type === 'output') {
        await screen.write(event.data);
        capturedAtSeq = event.seq;
      } else if (event.type === 'resize') {
        await screen.flush();
        screen.resize(event.rows, event.cols);
      }
    }
    await screen.flush();
    return { ...screen.snapshot(options), capturedAtSeq };
  } finally {
    screen.dispose();
  }
}
