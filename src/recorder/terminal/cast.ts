import { signalExitCode } from '../../plumbing/process/exit.js';
import type { CastWriter } from '../../tape/asciicast/write.js';
import type { Terminal } from '../../session/terminal.js';
import type { TerminalEvent } from '../../session/events.js';

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
      // A program killed by a signal has no exit code of its own: record the shell's 128+N.
      writer.exit(t, event.signal ? signalExitCode(event.signal as NodeJS.Signals) : event.exitCode);
      break;
    case 'signal':
      // asciicast has no signal event; the signal shows in the exit status and the output.
      break;
  }
}

/**
 * Streams every event of `terminal` into `writer` until unsubscribed. When the
 * tape cannot be written (disk full), the program is stopped: a recording that
 * cannot be kept should not go on.
 */
export function attachCastWriter(terminal: Terminal, writer: CastWriter): () => void {
  let stopped = false;
  return terminal.onEvent((event) => {
    writeEventToCast(writer, event);
    if (writer.failure && !stopped) {
      stopped = true;
      void terminal.kill();
    }
  });
}
