import { spawnTerminal, type Terminal } from '../../session/terminal.js';
import { EventFile } from './event-store.js';
import { updateManifest, readManifest, type SessionRecord } from '../manifest.js';
import { sessionPaths } from '../paths.js';
import { sessionEnvironment } from '../session-env.js';
import { END_MARKER_PREFIX } from '../protocol.js';

/**
 * One session host: owns the PTY child (through tapedeck's Terminal, with its
 * headless screen), persists every event to the session's event log as it
 * happens, keeps the manifest current, and ends the session on destroy, on
 * idle timeout, or a while after the program exited with nobody asking.
 */
export type EndReason = 'destroy' | 'idle-timeout' | 'host-signal' | 'linger';

/** How long a host stays after its program exited, so waits and snapshots still reach the live screen. */
function lingerMs(): number {
  const v = Number(process.env.AGENT_TTY_EXIT_LINGER_MS);
  return Number.isFinite(v) && v >= 0 ? v : 60_000;
}

export class SessionHost {
  readonly terminal: Terminal;
  private record: SessionRecord;
  private readonly events: EventFile;
  private idleTimer?: NodeJS.Timeout;
  private lingerTimer?: NodeJS.Timeout;
  private ending?: Promise<void>;
  /** Set once the host ends the session itself, so the child's exit does not mark it "exited". */
  private endStatus?: 'destroyed';
  /** Called once everything is closed; the host process then exits. */
  onEnded: () => void = () => {};

  constructor(readonly home: string, readonly sessionId: string, readonly binPath: string) {
    this.record = readManifest(home, sessionId);
    const paths = sessionPaths(home, sessionId);
    this.events = new EventFile(paths.events);
    const [command, ...args] = this.record.command;
    // The host's own settings are not the program's: a CLI run inside must start from its defaults.
    const env = { AGENT_TTY_LOG_LEVEL: undefined, AGENT_TTY_EXIT_LINGER_MS: undefined, ...this.record.env, ...sessionEnvironment({ home, sessionId, socketPath: this.record.socketPath, binPath }) };
    this.terminal = spawnTerminal(command, args, {
      rows: this.record.rows,
      cols: this.record.cols,
      cwd: this.record.cwd,
      term: this.record.term,
      env,
      // The log is on disk; memory would grow with every byte of a long session.
      retainEvents: false,
    });
    this.terminal.onEvent((event) => {
      this.events.append(event);
      if (event.type === 'output') this.touch();
    });
    void this.terminal.exited.then((exit) => this.onChildExit(exit.exitCode, exit.signal));
  }

  /** Marks the session running: the host is ready for requests. */
  markRunning(): SessionRecord {
    this.record = updateManifest(this.home, this.sessionId, { status: 'running', hostPid: process.pid, childPid: this.terminal.pid });
    this.touch();
    return this.record;
  }

  /** The live record: the manifest plus what only the host knows right now. */
  current(): SessionRecord {
    return { ...this.record, rows: this.terminal.rows, cols: this.terminal.cols };
  }

  /** Any request or output counts as activity for --idle-timeout-ms. */
  touch(): void {
    if (this.record.idleTimeoutMs && !this.ending) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => void this.end('idle-timeout'), this.record.idleTimeoutMs);
    }
    if (this.lingerTimer) this.armLinger();
  }

  resized(rows: number, cols: number): void {
    this.record = updateManifest(this.home, this.sessionId, { rows, cols });
  }

  private armLinger(): void {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = setTimeout(() => void this.end('linger'), lingerMs());
  }

  private onChildExit(exitCode: number, signal: string | null): void {
    if (this.endStatus) return;
    // A program killed by a signal has no exit code of its own (node-pty reports 0).
    this.record = updateManifest(this.home, this.sessionId, { status: 'exited', exitCode: signal ? null : exitCode, exitSignal: signal, childPid: null });
    this.armLinger();
  }

  /**
   * Ends the session: the child and its process group get SIGHUP (then SIGKILL),
   * the manifest says why, the socket goes away, and onEnded runs. Idempotent.
   */
  end(reason: EndReason): Promise<void> {
    if (this.ending) return this.ending;
    this.ending = (async () => {
      clearTimeout(this.idleTimer);
      clearTimeout(this.lingerTimer);
      const wasRunning = this.terminal.running;
      if (reason !== 'linger') this.endStatus = 'destroyed';
      // Where the agent ended the session: an export stops here, so the kill is not part of the tape.
      if (wasRunning) this.terminal.marker(`${END_MARKER_PREFIX}${reason}`);
      await this.terminal.dispose();
      const exit = { exitCode: this.terminal.exitSignal ? null : this.terminal.exitCode, exitSignal: this.terminal.exitSignal };
      if (reason === 'linger') {
        // The program ended on its own earlier; the host just stops serving.
        this.record = updateManifest(this.home, this.sessionId, { hostPid: null, childPid: null });
      } else {
        this.record = updateManifest(this.home, this.sessionId, {
          status: 'destroyed',
          hostPid: null,
          childPid: null,
          ...(wasRunning ? exit : {}),
          ...(reason === 'idle-timeout' || reason === 'host-signal' ? { endReason: reason } : {}),
        });
      }
      this.events.close();
      this.onEnded();
    })();
    return this.ending;
  }

  get status(): SessionRecord['status'] {
    return this.record.status;
  }

  get isEnding(): boolean {
    return this.ending !== undefined;
  }
}
