/**
 * Shared memory the cast worker decodes output into and the player parses
 * from: a ring of slots, each one batch of code points, used in turn. Arrays
 * sent between threads are either copied (a cost on both) or transferred,
 * which detaches them: the first detach in a thread makes V8 drop every
 * optimized function there that reads typed arrays and rebuild it with detach
 * checks. Handing parsed arrays back to the worker that way put a 50 MB cast at
 * 0.80x raw xterm.js; not handing them back, 0.73x, but with a fresh array per
 * batch left for the collector. The ring detaches nothing and allocates nothing.
 */

/** Slots in the ring: the worker stops while every one waits to be parsed (about 2.3 MB of output ahead). */
export const RING_SLOTS = 16;
/** Code points per slot: a batch (the worker's MESSAGE_BYTES) and the event that fills it, in most casts. */
export const SLOT_UNITS = 36 * 1024;
const SLOT_BYTES = SLOT_UNITS * Uint32Array.BYTES_PER_ELEMENT;

export function createRing(): SharedArrayBuffer {
  return new SharedArrayBuffer(RING_SLOTS * SLOT_BYTES);
}

/** A slot's code points. */
export function slotView(ring: SharedArrayBuffer, slot: number): Uint32Array {
  return new Uint32Array(ring, slot * SLOT_BYTES, SLOT_UNITS);
}

/** The worker's side: which slot is free next, and how many wait to be parsed. */
export class RingWriter {
  private readonly slots: Uint32Array[];
  private next = 0;
  private inUse = 0;

  constructor(private readonly ring: SharedArrayBuffer) {
    this.slots = Array.from({ length: RING_SLOTS }, (_, i) => slotView(ring, i));
  }

  /** The slot the next batch goes into (free whenever `full` is false). */
  free(): Uint32Array {
    return this.slots[this.next];
  }

  /** The slot a batch lies in, or -1 (one that outgrew its slot moved to an array of its own). */
  slotOf(codepoints: Uint32Array): number {
    return codepoints.buffer === this.ring ? codepoints.byteOffset / SLOT_BYTES : -1;
  }

  /** The free slot is sent: the next one is free next. */
  take(): void {
    this.next = (this.next + 1) % RING_SLOTS;
    this.inUse++;
  }

  /** The player parsed this many slots. */
  release(slots: number): void {
    this.inUse -= slots;
  }

  get full(): boolean {
    return this.inUse >= RING_SLOTS;
  }
}
