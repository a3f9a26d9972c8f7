import { terminalSafe } from '../text/terminal-safe.js';

/**
 * A warning to the person running tapedeck: one stderr line, its data escaped
 * (it may quote a tape). Tests and embedders can capture them instead.
 */
type WarnSink = (line: string) => void;
let sink: WarnSink = (line) => process.stderr.write(line);

export function warn(message: string): void {
  sink(`tapedeck: warning: ${terminalSafe(message)}\n`);
}

/** Redirects warnings (returns the previous sink, to restore). */
export function setWarnSink(next: WarnSink): WarnSink {
  const prev = sink;
  sink = next;
  return prev;
}
