import type { CastFormat } from '../../tape/asciicast/events.js';
import { CastWriter } from '../../tape/asciicast/write.js';
import { writeEventToCast } from '../../recorder/terminal/cast.js';
import { fromStored, readEventLog } from './event-store.js';
import type { SessionRecord } from '../manifest.js';
import { sessionPaths } from '../paths.js';
import { END_MARKER_PREFIX } from '../protocol.js';
import { dirname, relative, resolve } from 'node:path';

/** The session's command, after `env NAME=VALUE...` for its --env additions. */
function envArgv(record: SessionRecord): string[] {
  const pairs = Object.entries(record.env ?? {}).map(([k, v]) => `${k}=${v}`);
  return pairs.length === 0 ? record.command : ['env', ...pairs, ...record.command];
}

/**
 * A session's event log as an asciicast: output, the agent's inputs (typed,
 * pasted, keys; not the screen's own query replies), resizes, signals (as
 * "signal:SIGxxx" markers) and the exit.
 * Deterministic: the header takes its timestamp from the session's creation
 * and times come from the log, so the same log gives the same bytes. The tape
 * ends where the host ended the session (its end marker): the kill is not
 * something the program did, and `tapedeck replay` would expect it to happen
 * on its own.
 */
export function exportSessionCast(home: string, record: SessionRecord, out: string, format: CastFormat = 'v3'): { events: number; durationSeconds: number } {
  const { events } = readEventLog(sessionPaths(home, record.sessionId).events);
  const writer = new CastWriter(out, {
    format,
    cols: record.initialCols ?? record.cols,
    rows: record.initialRows ?? record.rows,
    termType: record.term,
    timestamp: Math.floor(Date.parse(record.createdAt) / 1000),
    ...(record.name !== undefined ? { title: record.name } : {}),
    // Replayable as the session ran: its directory (as `tapedeck record` keeps it), and its --env
    // additions in the argv (a replay takes only terminal and locale variables from a header).
    argv: envArgv(record),
    cwd: record.cwd,
    cwdFromTape: relative(dirname(resolve(out)), record.cwd) || '.',
    ...(Object.keys(record.env ?? {}).length > 0 ? { env: record.env } : {}),
  });
  let written = 0;
  let last = 0;
  try {
    for (const stored of events) {
      const event = fromStored(stored);
      if (event.type === 'marker' && event.name.startsWith(END_MARKER_PREFIX)) break;
      // asciicast has no signal event: a marker names it, and `tapedeck replay` sends it again there.
      if (event.type === 'signal') writer.marker(event.time / 1000, `signal:${event.signal}`);
      else writeEventToCast(writer, event);
      written++;
      last = event.time;
    }
    writer.close();
  } catch (err) {
    writer.abort();
    throw err;
  }
  return { events: written, durationSeconds: last / 1000 };
}
