/** The two kinds of tape tapedeck knows, told apart by the file name as everywhere else in the CLI. */
export type TapeKind = 'protocol' | 'terminal';

/** `.cast` is a terminal tape (asciicast); `.ndjson` and `.jsonl` are protocol tapes; anything else is unknown. */
export function tapeKind(path: string): TapeKind | undefined {
  if (/\.cast$/i.test(path)) return 'terminal';
  if (/\.(ndjson|jsonl)$/i.test(path)) return 'protocol';
  return undefined;
}

/** Replay treats every tape that is not a cast as a protocol tape. */
export function isTerminalTape(path: string): boolean {
  return tapeKind(path) === 'terminal';
}
