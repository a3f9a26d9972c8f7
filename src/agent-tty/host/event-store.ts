import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { NewEvent, TerminalEvent } from '../../session/events.js';
import { AgentError } from '../errors.js';

/**
 * The on-disk event log: one JSON object per line, appended as the host logs
 * each event. Bytes are base64 (`data`); typed text and key names are kept
 * beside them (`text`, `keys`) so the log says both what was meant and what
 * was sent. A crash can leave a torn last line; readers skip it.
 */
export interface StoredEvent {
  seq: number;
  /** Milliseconds since the session started. */
  time: number;
  type: TerminalEvent['type'];
  [key: string]: unknown;
}

export function toStored(event: TerminalEvent): StoredEvent {
  const { data, ...rest } = event as TerminalEvent & { data?: Buffer };
  return data ? { ...rest, time: Math.round(event.time * 1000) / 1000, data: data.toString('base64') } : { ...rest, time: Math.round(event.time * 1000) / 1000 };
}

export function fromStored(stored: StoredEvent): TerminalEvent {
  const { data, ...rest } = stored;
  return (typeof data === 'string' ? { ...rest, data: Buffer.from(data, 'base64') } : rest) as unknown as TerminalEvent;
}

export class EventFile {
  private fd: number;

  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, 'a', 0o600);
    } catch (err) {
      throw new AgentError('STORAGE_WRITE_ERROR', `cannot open the event log ${path}: ${(err as Error).message}`, { path });
    }
  }

  append(event: TerminalEvent): void {
    // One write per line with O_APPEND: readers never see two events interleaved.
    writeSync(this.fd, `${JSON.stringify(toStored(event))}\n`);
  }

  /** An event the host adds itself (not through the terminal's log), e.g. the final destroy. */
  appendRaw(seq: number, time: number, event: NewEvent | Record<string, unknown>): void {
    writeSync(this.fd, `${JSON.stringify({ seq, time, ...event })}\n`);
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}

export interface EventLogSummary {
  events: StoredEvent[];
  eventCount: number;
  /** The last seq of the unbroken run 1, 2, 3...; null for an empty log. */
  lastEventSeq: number | null;
}

export function readEventLog(path: string): EventLogSummary {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], eventCount: 0, lastEventSeq: null };
    throw new AgentError('STORAGE_READ_ERROR', `cannot read the event log ${path}: ${(err as Error).message}`, { path });
  }
  const events: StoredEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      events.push(JSON.parse(line) as StoredEvent);
    } catch {
      // A torn last line after a crash: what came before is still the log.
    }
  }
  let last: number | null = null;
  for (const e of events) {
    if (e.seq === (last ?? 0) + 1) last = e.seq;
    else break;
  }
  return { events, eventCount: events.length, lastEventSeq: last };
}
