import type { CastWriter } from '../render/asciicast-write.js';
import type { Terminal } from '../session/terminal.js';
import type { TerminalEvent } from '../session/events.js';

/** Writes one terminal event into a cast (times: ms in the log, seconds in the tape). */
export function writeEventToCast(writer: CastWriter, event: TerminalEvent): void {
  const t = event.time / 1000;
  switch (event.type) {
    case 'output':
      writer.output(t, event.data);
      break;
    case 'input':
      // Replies are the headless screen answering queries; a player's terminal answers by itself.
      if (event.kind !== 'reply') writer.input(t, event.data);
      break;
    case 'resize':
      writer.resize(t, event.cols, event.rows);
      break;
    case 'marker':
      writer.marker(t, event.name);
      break;
    case 'exit':
      writer.exit(t, event.exitCode);
      break;
    case 'signal':
      // asciicast has no signal event; the signal shows in the exit status and the output.
      break;
  }
}

/** Streams every event of `terminal` into `writer` until unsubscribed. */
export function attachCastWriter(terminal: Terminal, writer: CastWriter): () => void {
  return terminal.onEvent((event) => writeEventToCast(writer, event));
}
