import { parentPort, workerData } from 'node:worker_threads';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { castSteps, type CastPosition } from './steps.js';
import { RingWriter } from './codepoint-ring.js';

/**
 * Reads and parses a cast off the main thread, so JSON parsing overlaps with
 * xterm parsing on the main thread. It says "ready" once loaded; the player,
 * which has been reading the start of the cast itself meanwhile, answers with
 * the line it hands over from (`from`): the events before it are followed
 * (times, markers) but not sent. Output goes through a shared ring of code
 * point slots (codepoint-ring.ts); a batch that outgrew its slot, or output
 * kept as bytes, is sent as a message of its own. Flow control: it stops
 * reading while every slot, or more than MAX_UNACKED bytes of those messages,
 * wait to be parsed, so memory stays flat.
 */
const MAX_UNACKED = 2 * 1024 * 1024;
/** Output per message (characters, for code points): each message (and its ack) costs the main thread a little. */
const MESSAGE_BYTES = 32 * 1024;
const { path, position, ring: sharedRing } = workerData as { path: string; position: CastPosition; ring: SharedArrayBuffer };
const ring = new RingWriter(sharedRing);
const port = parentPort!;
let sent = 0;
let acked = 0;
let wake: (() => void) | undefined;
let from: number | undefined;
port.on('message', (msg: { ack?: number; slots?: number; from?: number }) => {
  if (typeof msg.from === 'number') from = msg.from;
  if (typeof msg.ack === 'number') acked += msg.ack;
  if (typeof msg.slots === 'number') ring.release(msg.slots);
  wake?.();
});

async function main(): Promise<void> {
  try {
    port.postMessage({ kind: 'ready' });
    while (from === undefined) await new Promise<void>((resolve) => (wake = resolve));
    // Output goes as code points: decoding here takes that work off the screen's thread.
    for await (const step of castSteps(path, position, { from, batchBytes: MESSAGE_BYTES, codepoints: true, batchArray: () => ring.free() })) {
      const slot = step.kind === 'codepoints' ? ring.slotOf(step.codepoints) : -1;
      if (step.kind === 'codepoints' && slot !== -1) {
        ring.take();
        port.postMessage({ kind: 'ring', slot, length: step.codepoints.length, repeats: step.repeats });
      } else if (step.kind === 'output' || step.kind === 'codepoints') {
        // Bytes are copied first: Buffer slices may share a pooled ArrayBuffer that must not be transferred.
        const data = step.kind === 'output' ? new Uint8Array(step.bytes) : step.codepoints;
        sent += data.byteLength;
        port.postMessage(step.kind === 'output' ? { kind: 'output', bytes: data } : { ...step, codepoints: data }, [data.buffer as ArrayBuffer]);
      } else {
        port.postMessage(step);
      }
      // Whatever was sent, the next batch needs a free slot.
      while (ring.full || sent - acked > MAX_UNACKED) await new Promise<void>((resolve) => (wake = resolve));
    }
  } catch (err) {
    const e = err as TapedeckError;
    port.postMessage({
      kind: 'error',
      error: err instanceof TapedeckError
        ? { code: e.code, message: e.message, location: e.location, details: e.details }
        : { message: (err as Error)?.message ?? String(err) },
    });
  }
  port.close();
}

void main();
