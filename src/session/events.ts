/**
 * The event log of one terminal: everything that went in or came out, in
 * order. `seq` rises by one per event; `time` is milliseconds since spawn.
 */
/** "reply": the headless terminal's own answer to a query (DA, DSR...), not user input. */
export type InputKind = 'type' | 'paste' | 'keys' | 'raw' | 'reply' | 'mouse';

interface EventBase {
  seq: number;
  time: number;
}

export interface OutputEvent extends EventBase {
  type: 'output';
  /** Exactly the bytes the program wrote. */
  data: Buffer;
}

export interface InputEvent extends EventBase {
  type: 'input';
  kind: InputKind;
  /** Exactly the bytes sent to the program. */
  data: Buffer;
  /** For kind "keys": the keys as the caller named them. */
  keys?: string[];
  /** For kinds "type" and "paste": the text as given (before bracketing). */
  text?: string;
  /** For kind "mouse": the action (`click left at row 3, col 10`). */
  mouse?: string;
}

export interface ResizeEvent extends EventBase {
  type: 'resize';
  rows: number;
  cols: number;
}

export interface SignalEvent extends EventBase {
  type: 'signal';
  signal: string;
}

export interface MarkerEvent extends EventBase {
  type: 'marker';
  name: string;
}

export interface ExitEvent extends EventBase {
  type: 'exit';
  exitCode: number;
  /** Signal name that ended the program, or null. */
  signal: string | null;
}

export type TerminalEvent = OutputEvent | InputEvent | ResizeEvent | SignalEvent | MarkerEvent | ExitEvent;

/** An event before the log numbers and timestamps it. */
export type NewEvent = TerminalEvent extends infer E ? (E extends TerminalEvent ? Omit<E, 'seq' | 'time'> : never) : never;

export type EventListener = (event: TerminalEvent) => void;

export class EventLog {
  private readonly started = performance.now();
  private nextSeq = 1;
  private readonly listeners = new Set<EventListener>();
  /** Retained events (empty when retention is off, e.g. a long recording that streams to disk). */
  readonly events: TerminalEvent[] = [];

  constructor(private readonly retain = true) {}

  /** Milliseconds since the log started. */
  now(): number {
    return performance.now() - this.started;
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  append(event: NewEvent): TerminalEvent {
    const full = { ...event, seq: this.nextSeq++, time: this.now() } as TerminalEvent;
    if (this.retain) this.events.push(full);
    for (const listener of this.listeners) listener(full);
    return full;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
