import { parentPort, workerData } from 'node:worker_threads';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { castSteps, type CastPosition } from './steps.js';

/**
 * Reads and parses a cast off the main thread, so JSON parsing overlaps with
 * xterm parsing on the main thread. Flow control: it stops reading while more
 * than MAX_UNACKED output bytes wait to be parsed, so memory stays flat.
 */
const MAX_UNACKED = 8 * 1024 * 1024;
const { path, position } = workerData as { path: string; position: CastPosition };
const port = parentPort!;
let sent = 0;
let acked = 0;
let wake: (() => void) | undefined;
port.on('message', (msg: { ack: number }) => {
  acked += msg.ack;
  wake?.();
});

async function main(): Promise<void> {
  try {
    for await (const step of castSteps(path, position)) {
      if (step.kind === 'output') {
        // A standalone copy: Buffer slices may share a pooled ArrayBuffer that must not be transferred.
        const bytes = new Uint8Array(step.bytes);
        sent += bytes.length;
        port.postMessage({ kind: 'output', bytes }, [bytes.buffer]);
        while (sent - acked > MAX_UNACKED) await new Promise<void>((resolve) => (wake = resolve));
      } else {
        port.postMessage(step);
      }
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
