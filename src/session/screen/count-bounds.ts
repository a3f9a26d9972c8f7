import type { Terminal as XTerm } from '@xterm/headless';

/**
 * xterm.js repeats some sequences once per unit of their count, with no bound:
 * `CSI 9999999 S` (scroll up) kept the screen busy for 17 s, and a count of
 * 2^31-1, 20 bytes of a hostile cast, for about an hour, deaf to signals.
 * Past a screenful the result no longer changes: scrolling, inserting or
 * deleting lines affects at most every row, and tab stops end at a column
 * edge after at most one step per column. Each count is cut to that bound
 * before xterm.js's own handler runs, so the screen is the one the full count
 * leaves. (REP is bounded in the written stream: vt-guard.ts.)
 */
const PER_ROW = ['S', 'T', 'L', 'M'] as const; // SU, SD, IL, DL
const PER_COLUMN = ['I', 'Z'] as const; // CHT, CBT

/** xterm.js's parser Params, which its own handlers read (the public API hands out copies). */
type Params = { params: Int32Array; length: number };
interface Parser {
  registerCsiHandler(id: { final: string }, handler: (params: Params) => boolean): unknown;
}

export function boundCounts(term: XTerm): void {
  const parser = (term as unknown as { _core?: { _inputHandler?: { _parser?: Partial<Parser> } } })._core?._inputHandler?._parser;
  if (typeof parser?.registerCsiHandler !== 'function') return;
  const cut = (bound: () => number) => (params: Params) => {
    const most = bound();
    if (params.params instanceof Int32Array && params.length > 0 && params.params[0] > most) params.params[0] = most;
    return false; // xterm.js's own handler runs next, with the cut count
  };
  for (const final of PER_ROW) parser.registerCsiHandler({ final }, cut(() => term.rows));
  for (const final of PER_COLUMN) parser.registerCsiHandler({ final }, cut(() => term.cols));
}
