import { limit } from '../../core/config/limits.js';

/**
 * The server bytes a recorder holds for the tape until a pair completes. A
 * pair must fit in one tape line (TAPEDECK_MAX_LINE_BYTES, 64 MiB by default),
 * so a response past that could never be read back: the recorder stops keeping
 * bytes instead of holding a flood in memory, and the session itself goes on,
 * forwarded as before (seed 000: a recording that fails never halts it).
 */
export class RecordBudget {
  private held = 0;
  exhausted = false;

  constructor(
    private readonly onExhausted: (reason: string) => void,
    private readonly max = limit('maxLineBytes'),
  ) {}

  /** Counts bytes held for the tape; false once over the limit, and from then on. */
  hold(bytes: number): boolean {
    if (this.exhausted) return false;
    this.held += bytes;
    if (this.held <= this.max) return true;
    this.exhausted = true;
    this.onExhausted(`a response over the ${this.max}-byte tape line limit (raise it with TAPEDECK_MAX_LINE_BYTES) cannot be recorded`);
    return false;
  }

  /** A pair was written: the bytes it held are released. */
  release(): void {
    this.held = 0;
  }
}
