import { spawnTerminal, type Terminal } from '../../session/terminal.js';
import { bytesWritten, cpuTime, processState } from '../../plumbing/process/quiet.js';

/** A command still waits past its own time while a process is busy (running, in the disk), up to this. */
const BUSY_GRACE_MS = 3000;
const POLL_MS = 1;
const QUIET_CAP_MS = 250;

export interface CastEvent {
  /** Timeline milliseconds (what VHS would have recorded). */
  time: number;
  code: 'o' | 'm';
  data: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * One VHS run's terminal and timeline. Input goes in at the timeline position
 * VHS would send it; `settle(ms)` lets `ms` of timeline pass: with --realtime
 * it sleeps that long, otherwise it returns as soon as waiting longer cannot
 * change the screen (the screen unchanged and every process blocked on
 * terminal input: quiet.ts), never later than the timeline needs (a busy
 * process may extend a short step by up to BUSY_GRACE_MS). Output that
 * arrives during a step is put on the timeline at that step's start plus the
 * real time it took, capped at the step's end.
 */
export class Driver {
  readonly term: Terminal;
  /** The timeline position (ms). */
  now = 0;
  readonly cast: CastEvent[] = [];
  private pending: Buffer[] = [];
  private outputs = 0;
  private received = 0;
  private stepStart = 0;
  private stepReal = 0;
  private stepEnd = 0;
  private readonly unsubscribe: () => void;

  constructor(
    file: string,
    args: string[],
    spawn: { rows: number; cols: number; cwd: string; env: Record<string, string>; baseEnv: NodeJS.ProcessEnv },
    readonly realtime: boolean,
  ) {
    this.term = spawnTerminal(file, args, { ...spawn, scrollback: 1000 });
    this.unsubscribe = this.term.onEvent((e) => {
      if (e.type !== 'output') return;
      this.outputs++;
      this.received += e.data.length;
      this.pending.push(e.data);
      // Without --realtime a step's output is on the timeline at the step's start: when it came in real time
      // is not part of the tape (it differs run to run), so the frames of a GIF or video do not move.
      const at = this.realtime ? Math.min(this.stepStart + (performance.now() - this.stepReal), this.stepEnd) : this.stepStart;
      this.emitOutput(Math.max(at, this.lastTime()));
    });
  }

  /** Output events so far. */
  get outputCount(): number {
    return this.outputs;
  }

  private lastTime(): number {
    return this.cast.length ? this.cast[this.cast.length - 1].time : 0;
  }

  private emitOutput(time: number): void {
    const data = Buffer.concat(this.pending);
    this.pending = [];
    const last = this.cast[this.cast.length - 1];
    // One event per step: the chunking of a PTY read is not part of the timeline.
    if (last && last.code === 'o' && last.time === Math.round(time)) last.data += data.toString('utf8');
    else this.cast.push({ time: Math.round(time), code: 'o', data: data.toString('utf8') });
  }

  marker(label: string): void {
    this.cast.push({ time: Math.round(Math.max(this.now, this.lastTime())), code: 'm', data: label });
  }

  send(bytes: string): void {
    if (!this.term.running) throw new Error(`the shell has exited (code ${this.term.exitCode})`);
    if (!this.sent) {
      this.cpuAtSend = cpuTime(this.term.pid);
      this.writtenAtSend = bytesWritten(this.term.pid);
      this.receivedAtSend = this.received;
    }
    this.term.write(bytes);
    this.sent = true;
  }

  /** Input went in since the last settle: idle only counts once the program has reacted (see settle). */
  private sent = false;
  private cpuAtSend = 0;
  private writtenAtSend = 0;
  private receivedAtSend = 0;

  /** Lets `ms` of timeline pass (see the class comment); resolves with the screen settled. */
  async settle(ms: number): Promise<void> {
    this.stepStart = this.now;
    this.stepEnd = this.now + ms;
    this.stepReal = performance.now();
    const start = this.stepReal;
    if (this.realtime) {
      await sleep(ms);
    } else {
      let quiet = 0;
      let seen = -1;
      // Input reaches the program through the kernel's tty queue a little later: until it printed
      // something or used CPU, a still-idle program has not read it yet (on a loaded machine, for a while).
      const outputsBefore = this.outputs;
      const cpuBefore = this.cpuAtSend;
      let reacted = !this.sent;
      // Bytes written but not yet arrived keep the step open (a write to a file, not the terminal, only for QUIET_CAP_MS).
      const writtenBefore = this.sent ? this.writtenAtSend : bytesWritten(this.term.pid);
      const receivedBefore = this.sent ? this.receivedAtSend : this.received;
      this.sent = false;
      let quietSince = 0;
      for (;;) {
        await this.term.screen.flush();
        const elapsed = performance.now() - start;
        const fresh = this.outputs !== seen;
        seen = this.outputs;
        if (!this.term.running) break;
        const state = processState(this.term.pid);
        if (!reacted && (state !== 'idle' || this.outputs !== outputsBefore || cpuTime(this.term.pid) !== cpuBefore)) reacted = true;
        quiet = reacted && !fresh && state === 'idle' ? quiet + 1 : 0;
        if (quiet === 1) quietSince = performance.now();
        const settled = () => bytesWritten(this.term.pid) - writtenBefore <= this.received - receivedBefore || performance.now() - quietSince >= QUIET_CAP_MS;
        if (quiet >= 2 && settled()) break;
        // Its time is up: move on unless a program is still busy, has yet to read what was typed, or its output is on the way.
        if (elapsed >= ms && !fresh && (state === 'timer' || (state === 'idle' && reacted && quiet >= 1 && settled()))) break;
        if (elapsed >= ms + BUSY_GRACE_MS) break;
        await sleep(Math.min(POLL_MS, Math.max(0, ms - elapsed) || POLL_MS));
      }
    }
    await this.term.screen.flush();
    this.now = this.stepEnd;
  }

  /**
   * Polls `test` until it passes or `timeoutMs` of real time is gone. With
   * --realtime the timeline advances by the time it took; without, by none
   * (how long a program took to print is not the tape's, and would move
   * every later frame from run to run).
   */
  async until(test: () => boolean, timeoutMs: number): Promise<boolean> {
    const start = performance.now();
    this.stepStart = this.now;
    this.stepEnd = this.now + timeoutMs;
    this.stepReal = start;
    let quietSince: number | undefined;
    let seen = -1;
    let ok = false;
    for (;;) {
      await this.term.screen.flush();
      if (test()) {
        ok = true;
        break;
      }
      const t = performance.now() - start;
      if (t >= timeoutMs) break;
      // Nothing can change the screen any more: fail now instead of at the timeout (--realtime waits it out).
      const quietNow = !this.realtime && this.outputs === seen && (!this.term.running || processState(this.term.pid) === 'idle');
      seen = this.outputs;
      quietSince = quietNow ? quietSince ?? t : undefined;
      if (quietSince !== undefined && t - quietSince >= 1000) break;
      await sleep(10);
    }
    if (this.realtime) this.now += Math.round(performance.now() - start);
    return ok;
  }

  async dispose(): Promise<void> {
    this.unsubscribe();
    await this.term.dispose();
  }
}
