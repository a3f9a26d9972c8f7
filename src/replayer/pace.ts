import { usageError } from '../core/diagnostics/errors.js';
import { peerMark, waitUntilRead, type Reader } from '../plumbing/process/pipe-peer.js';

/**
 * `--pace recorded|none`, one meaning for both sides a tape plays. Several
 * messages that a live peer sent apart go out one at a time, each once the
 * reader has read the one before on its own: `serve` writing a recorded
 * response of several messages (the MCP SDK client handles notifications a
 * microtask later than responses, and drops progress notifications that arrive
 * in the same read as their result), and `replay` writing client messages that
 * wait for no answer (a request its client cancelled, then the cancel; a burst
 * of notifications): a server that reads them together can act otherwise than
 * it did when they came apart (asyncio's readline hands over a buffered line
 * without yielding, so a cancel read with its request cancels a task that never
 * started). `recorded` (the default) is that; `none` writes at once.
 */
export type Pace = 'recorded' | 'none';

export function parsePace(value: string | undefined, verb: string): Pace {
  const pace = value ?? 'recorded';
  if (pace !== 'recorded' && pace !== 'none') throw usageError(`${verb}: --pace must be recorded or none, got ${JSON.stringify(value)}`);
  return pace;
}

/** Between two messages, and longer before a message that ends the exchange (the result), when the reader cannot be observed. */
export const PACE_GAP_MS = 2;
export const PACE_LAST_GAP_MS = 25;
/** How long the condition may take before the next message goes anyway (a reader busy elsewhere). */
export const PACE_READ_MAX_MS = 2000;

/**
 * Marks the reader before a write; `wait()` then resolves once it has read
 * what was written on its own (the condition), else after `gapMs`.
 */
export function readBy(reader: Reader | undefined, gapMs: number): { wait: () => Promise<unknown> } {
  if (!reader) return { wait: () => new Promise((r) => setTimeout(r, gapMs)) };
  const mark = peerMark(reader);
  return { wait: () => waitUntilRead(reader, mark, PACE_READ_MAX_MS) };
}

/** The messages of a response, each with its "\n" (a last one without stays as it is). */
export function messagesOf(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, start)) {
    out.push(bytes.subarray(start, i + 1));
    start = i + 1;
  }
  if (start < bytes.length) out.push(bytes.subarray(start));
  return out;
}

/**
 * Writes each part, waiting for it to be handed on and a short gap before the
 * next. `reader`, when known, is waited for by condition before the last part
 * (the result): it has run since the messages before it were written and is
 * waiting again, so it read them on their own, however loaded the machine;
 * else a fixed gap.
 */
export async function writePaced(parts: readonly (Buffer | string)[], write: (part: Buffer | string, done: () => void) => void, pace: Pace, reader?: Reader): Promise<void> {
  if (pace === 'none' || parts.length <= 1) {
    for (const p of parts) write(p, () => {});
    return;
  }
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 2;
    const read = readBy(last ? reader : undefined, last ? PACE_LAST_GAP_MS : PACE_GAP_MS); // marked before the write
    await new Promise<void>((resolve) => write(parts[i], resolve));
    if (i === parts.length - 1) break;
    await read.wait();
  }
}
