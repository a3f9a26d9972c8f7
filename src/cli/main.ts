#!/usr/bin/env node
import { processIO } from './io.js';
import { main } from './run.js';
import { shutdown } from '../plumbing/process/shutdown.js';
import { readFileStdinSync } from './file-stdin.js';

/**
 * The tapedeck bin: main(argv, io) (cli/run.ts) on the real process, then exit
 * once stdout and stderr are flushed. Signals and the exit belong here only, so
 * main() stays callable many times in one process.
 */

readFileStdinSync();

// On Ctrl+C or a kill, exit through process.exit so the 'exit' hooks end the
// terminals and servers this run started (they run in their own process groups).
// Commands that handle a signal themselves (the recorders forward it) take precedence.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
  const onSignal = () => {
    if (process.listenerCount(signal) === 1) process.exit(code);
  };
  process.on(signal, onSignal);
}

/**
 * Exits once stdout and stderr have handed every byte to the OS. process.exit()
 * drops what is still queued for a pipe whose reader is slow (a 1 MB --json
 * through `| (sleep 1; cat)` was cut at 64 KiB), so wait for both write queues.
 */
export function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let waiting = 2;
  const done = () => {
    if (--waiting === 0) process.exit(code);
  };
  for (const stream of [process.stdout, process.stderr]) {
    let flushed = false;
    const once = () => {
      if (!flushed) (flushed = true), done();
    };
    // A reader that went away (EPIPE) has nothing left to receive; nothing queued, nothing to wait for.
    stream.once('error', once);
    if (stream.destroyed || !stream.writable || stream.writableLength === 0) once();
    else stream.write('', once);
  }
}

// Exit explicitly: a paused stdin or a finished child's pipes must not keep the CLI alive.
// main() turns every error into an exit code; the catch is for a failure writing that line.
// What commands left open for later calls in this process (the renderer) closes first.
main(process.argv.slice(2), processIO()).then(
  (code) => shutdown().then(() => exitWhenFlushed(code)),
  () => shutdown().then(() => exitWhenFlushed(2)),
);
