/**
 * asciicast terminal tapes: shared types. Reading is in asciicast/read.ts,
 * writing in asciicast/write.ts, playing onto a screen in asciicast-play.ts.
 *
 * Formats (https://docs.asciinema.org/manual/asciicast/):
 * - v1: one JSON object {version:1,width,height,stdout:[[delay,data],...]}.
 * - v2: header line {version:2,width,height,...}, then [time, code, data] lines, time absolute.
 * - v3: header line {version:3,term:{cols,rows,type},...}, then [interval, code, data],
 *   interval relative to the previous event; lines starting with "#" are comments.
 * Event codes: "o" output, "i" input, "m" marker, "r" resize ("COLSxROWS"), "x" exit status.
 *
 * tapedeck's choices:
 * - Exit: written as an "x" event in v3 and in v2 alike. v2 readers skip codes they do not
 *   know (asciinema 2.2 `cat`/`play` keep only "o"; asciinema-player ignores unknown codes),
 *   so the exit status survives a v2 round trip instead of being dropped.
 * - Bytes that are not valid UTF-8: the "o"/"i" event carries the text with U+FFFD and is
 *   followed by a ["tapedeck.bytes"] event (interval 0 / same time) whose data is the exact
 *   bytes in base64. Players ignore it; tapedeck's reader puts those bytes back.
 * - The header's "tapedeck" key holds the argv of the recorded command (the "command"
 *   string is for people; nothing in a tape is ever passed to a shell).
 */

export type CastVersion = 1 | 2 | 3;
export type CastFormat = 'v2' | 'v3';

export const BYTES_EVENT = 'tapedeck.bytes';

export interface CastHeader {
  version: CastVersion;
  cols: number;
  rows: number;
  /** TERM the recording was made with. */
  termType?: string;
  /** Unix seconds when recording started. */
  timestamp?: number;
  title?: string;
  command?: string;
  env?: Record<string, string>;
  idleTimeLimit?: number;
  /** The exact argv recorded by tapedeck, when it made the tape. */
  argv?: string[];
  /** Working directory of the recording (tapedeck's header key). */
  cwd?: string;
  /** The same directory relative to the tape's own (so a checked-in tape finds its checkout wherever it is). */
  cwdFromTape?: string;
  /** The recording terminal's colours (v3 term.theme, v2 theme). */
  theme?: CastTheme;
  /** v3 term.version: the recording terminal's version string. */
  termVersion?: string;
  /** v3 tags. */
  tags?: string[];
}

/** asciicast's theme: "#rrggbb" colours, palette 8 or 16 of them joined by ":". */
export interface CastTheme {
  fg: string;
  bg: string;
  palette: string;
}

export interface CastEvent {
  /** Seconds since the start of the recording (absolute, whatever the version). */
  time: number;
  code: string;
  /** The event's data string as stored. */
  data: string;
  /**
   * Exact bytes, present only when the tape carried them (a tapedeck.bytes
   * event: the data was not valid UTF-8). Use eventBytes() for the bytes of any event.
   */
  bytes?: Buffer;
  /** 1-indexed line in the cast file (v1: 1). */
  line: number;
  /**
   * An "o" event's data as code points, decoded straight from the line's bytes
   * when the reader was asked to (`events({ outputCodepoints: true })`; `data` is
   * then made only if read). A view of an array the reader reuses: valid until
   * the next event is asked for.
   */
  codepoints?: Uint32Array;
}

/** How a cast's events are read. */
export interface CastReading {
  /**
   * Decode output lines straight to code points where they allow it (see
   * CastEvent.codepoints). Read per line: it may be turned off while reading.
   */
  outputCodepoints?: boolean;
}

export interface TerminalSize {
  cols: number;
  rows: number;
}

/** Parses a resize event's "COLSxROWS". */
export function parseResize(data: string): TerminalSize | undefined {
  const m = /^(\d+)x(\d+)$/.exec(data);
  if (!m) return undefined;
  const cols = Number(m[1]);
  const rows = Number(m[2]);
  // The same bounds a terminal accepts (session/terminal.ts), so a bad tape fails where it is read.
  return cols > 0 && rows > 0 && cols <= 10_000 && rows <= 10_000 ? { cols, rows } : undefined;
}

/** The bytes an "o" or "i" event stands for: the exact bytes if carried, else its data as UTF-8. */
export function eventBytes(event: CastEvent): Buffer {
  return event.bytes ?? Buffer.from(event.data, 'utf8');
}
