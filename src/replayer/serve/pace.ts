/**
 * `serve --pace`: how a recorded response with several messages goes out.
 * `recorded` (the default) writes them in the recorded order one at a time, with
 * a pause between them, so a client reads each on its own: the MCP SDK client
 * handles notifications a microtask later than responses, and drops progress
 * notifications that arrive in the same read as their result. `none` writes the
 * whole response at once.
 */
export type Pace = 'recorded' | 'none';

/** Between two server messages, and longer before a message that ends the exchange (the result). */
export const PACE_GAP_MS = 2;
export const PACE_LAST_GAP_MS = 25;


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
 * next. `read`, when the reader's process is known (plumbing/process/pipe-peer.ts),
 * waits for the condition itself before the last part (the result): the reader
 * has run since the messages before it were written and is waiting again, so it
 * read them on their own, however loaded the machine; else a fixed gap.
 */
export async function writePaced(parts: readonly (Buffer | string)[], write: (part: Buffer | string, done: () => void) => void, pace: Pace, read?: () => { wait: () => Promise<unknown> }): Promise<void> {
  if (pace === 'none' || parts.length <= 1) {
    for (const p of parts) write(p, () => {});
    return;
  }
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 2;
    const reader = last ? read?.() : undefined; // marked before the write: a read right after it still counts
    await new Promise<void>((resolve) => write(parts[i], resolve));
    if (i === parts.length - 1) break;
    if (reader) await reader.wait();
    else await new Promise((r) => setTimeout(r, last ? PACE_LAST_GAP_MS : PACE_GAP_MS));
  }
}

/** How long the condition may take before the result goes anyway (a reader busy elsewhere). */
export const PACE_READ_MAX_MS = 2000;
