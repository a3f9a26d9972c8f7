import type { CliOutput } from './io.js';

/**
 * A one-line progress display for long runs, redrawn in place on a terminal
 * and silent otherwise (CI logs and pipes get only the final summary).
 */
export class ProgressLine {
  private shown = false;

  constructor(
    private readonly enabled: boolean,
    private readonly stream: CliOutput = process.stderr,
  ) {}

  show(text: string): void {
    if (!this.enabled) return;
    const width = Math.max(20, (this.stream.columns ?? 80) - 1);
    this.stream.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    this.shown = true;
  }

  clear(): void {
    if (!this.shown) return;
    this.stream.write('\r\x1b[2K');
    this.shown = false;
  }
}
