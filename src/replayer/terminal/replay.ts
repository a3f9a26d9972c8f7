import { readFileSync, rmSync, statSync } from 'node:fs';
import { freshHome, freshHomeEnv, recordedCwd, recordedEnv } from './home.js';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { signalExitCode } from '../../plumbing/process/exit.js';
import type { ScreenMask } from '../../render/golden-text.js';
import type { TerminalEvent } from '../../session/events.js';
import { spawnTerminal, type Terminal, type TerminalExit } from '../../session/terminal.js';
import type { Drift } from '../../core/diagnostics/drift.js';
import { screenDrift, terminalDrift } from './drift.js';
import { liveRedaction } from './redact.js';
import { planTerminalReplay, type PlanOptions, type PlannedStep, type TerminalPlan, type TerminalStepKind } from './plan.js';
import { checkpointKey, syncKey } from './screen.js';
import { CheckpointScreenshots, type CheckpointScreenshot, type ScreenshotCheckpointOptions } from './screenshot.js';
import { DEFAULT_STEP_TIMEOUT_MS } from './defaults.js';
import { castFromLive, rewriteCastFromLive, type StepRef } from './update.js';
import { tapeDecision } from '../../core/golden/decision.js';
import { goldenPaths } from '../../core/golden/paths.js';
import { exitWithin, waitForQuiet, waitForScreenKey, type ScreenWaitOutcome } from './wait.js';

export type { CheckpointScreenshot, ScreenshotCheckpointOptions } from './screenshot.js';

export interface TerminalReplayOptions {
  /** Program and arguments; default the tape's recorded argv (or its command line, split without a shell). */
  command?: readonly string[];
  /** Run the recorded command only for tapes under these folders (see tape-trust.ts; the CLI sets it). */
  trust?: PlanOptions['trust'];
  /** Volatile regions, hidden on both sides: regexes over each line, or cell rectangles. */
  mask?: readonly ScreenMask[];
  /** Compare the style layer at checkpoints (markers, end of tape) too. */
  styles?: boolean;
  /**
   * At each marker also render the live screen (masks painted over) and
   * pixel-compare it with `<cast without .cast>.<marker>.png` beside the tape
   * (TD1106 when it differs). Goldens follow the update modes: `all` with
   * `update`, else `new` locally (missing ones written) and `none` on CI.
   */
  screenshots?: boolean | ScreenshotCheckpointOptions;
  /** How long one step may wait for its screen (default 5000). */
  stepTimeoutMs?: number;
  /** Stop at the first drift (default: send the input anyway and go on). Ignored with `update`. */
  bail?: boolean;
  /** Sleep the recorded interval before each step, for programs that need the pauses. */
  realtime?: boolean;
  /** Rewrite the tape's output from the live run when it drifted (atomically). */
  update?: boolean;
  /** Without update: leave the re-recorded tape beside it as `<tape>.new`, for `tapedeck review`. */
  writePending?: boolean;
  /** Merged over the recorded environment (`undefined` removes a variable). */
  env?: Record<string, string | undefined>;
  /** The caller's environment and directory (default process.env, process.cwd()): the program's env starts from baseEnv, redacted values come from it, and a tape without a recorded directory runs in baseCwd. */
  baseEnv?: NodeJS.ProcessEnv;
  baseCwd?: string;
  /** Where the program runs; default the tape's recorded directory when it exists, else the current one. */
  cwd?: string;
  /** HOME: `fresh` (default) an empty temporary directory removed after the run, `inherit` the caller's. */
  home?: 'fresh' | 'inherit';
}

export type TerminalStepStatus = 'ok' | 'drifted' | 'not-run';

export interface TerminalStepResult {
  step: number;
  kind: TerminalStepKind;
  description: string;
  /** Cast line of the event. */
  line: number;
  status: TerminalStepStatus;
  /** Recorded screen (screen-golden text after masks; with styles at checkpoints under `styles`). */
  expected: string;
  /** Live screen in the same form (absent for steps not run). */
  actual?: string;
  /** Time spent waiting for the screen. */
  waitedMs: number;
}

export interface TerminalTapeResult {
  kind: 'terminal';
  tape: string;
  command: string[];
  steps: TerminalStepResult[];
  drifts: Drift[];
  /** The tape was rewritten from the live run (--update). */
  updated: boolean;
  /** The candidate tape written beside it (writePending), when there was drift to accept. */
  pendingPath?: string;
  /** The live run as a cast (same header, the tape's inputs, the live output), for reports; only when it drifted. */
  liveCast?: string;
  exit?: { recorded?: number; live?: TerminalExit };
  /** With `screenshots`: each checkpoint's screenshot golden and what happened to it. */
  screenshots?: CheckpointScreenshot[];
  /** Each step's cast line and recorded time (and marker name): where a report puts its markers. */
  timeline: Array<{ line: number; time: number; marker?: string }>;
  /** The tape as recorded, when --update has since rewritten it (for reports). */
  recordedCast?: string;
  /** Spawn until the first step could go (program start-up). */
  startupMs: number;
  durationMs: number;
  /** Length of the recording. */
  recordedMs: number;
}

export { DEFAULT_STEP_TIMEOUT_MS } from './defaults.js';
/** After a drift, later steps stop waiting once the screen sat still this long (see ScreenWaitOptions). */
const GIVE_UP_AFTER_DRIFT_MS = 500;
/** Larger tapes are not kept in memory for reports. */
const MAX_KEPT_CAST_BYTES = 8 * 1024 * 1024;

/**
 * Replays a terminal tape against a fresh PTY of the recorded size: each
 * recorded input is sent once the live screen shows what the recording
 * showed just before it (never after a recorded delay, unless `realtime`),
 * resizes are replayed, markers are checkpoints, and the end state (final
 * screen, exit status) is compared.
 */
export async function replayTerminal(castOrPlan: string | TerminalPlan, options: TerminalReplayOptions = {}): Promise<TerminalTapeResult> {
  const plan = typeof castOrPlan === 'string' ? await planTerminalReplay(castOrPlan, options) : castOrPlan;
  return new TerminalReplay(plan, options).run();
}

class TerminalReplay {
  private readonly timeoutMs: number;
  private readonly drifts: Drift[] = [];
  private readonly steps: TerminalStepResult[] = [];
  /** Live event seq → the step it carried out (for --update). */
  private readonly stepTimes = new Map<number, StepRef>();
  private stopped = false;
  private terminal!: Terminal;
  private started = 0;
  private startupMs = -1;
  private lastStepAt = 0;
  private lastStepRecorded = 0;
  private readonly shots?: CheckpointScreenshots;

  constructor(private readonly plan: TerminalPlan, private readonly options: TerminalReplayOptions) {
    this.timeoutMs = options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS;
    if (options.screenshots) {
      const shotOptions = options.screenshots === true ? {} : options.screenshots;
      this.shots = new CheckpointScreenshots(plan, shotOptions, options.mask, options.update === true);
    }
  }

  async run(): Promise<TerminalTapeResult> {
    const { plan } = this;
    // The renderer starts before the program (not counted in its timings): no Chromium, no run.
    if (this.shots?.needed) await this.shots.prepare();
    this.started = performance.now();
    this.lastStepAt = this.started;
    const home = this.options.home === 'inherit' ? undefined : freshHome();
    try {
      this.terminal = this.spawn(home?.path);
    } catch (err) {
      home?.remove();
      throw err;
    }
    let live: TerminalEvent[] = [];
    let liveExit: TerminalExit | undefined;
    try {
      for (const step of plan.steps) {
        if (this.stopped) this.record(step, 'not-run', undefined, 0);
        else if (step.kind === 'end') liveExit = await this.end(step);
        else if (step.kind === 'marker') await this.marker(step);
        else await this.act(step);
      }
      // Snapshot the log before stopping the program: our kill is not part of the run.
      live = [...this.terminal.events.events];
    } finally {
      await this.terminal.dispose();
      home?.remove();
    }
    let updated = false;
    let pendingPath: string | undefined;
    // A run that ended early never sent the rest of the inputs: there is nothing complete to accept.
    // Screenshot drifts are accepted through their own golden (its .new), not by re-recording the tape.
    const tapeDrifts = this.drifts.filter((d) => d.code !== 'TD1106');
    // A run cut short (the program exited early, or --bail stopped it) has no complete live session to accept.
    const acceptable = tapeDrifts.length > 0 && !this.drifts.some((d) => d.code === 'TD1105') && !this.stopped;
    let recordedCast: string | undefined;
    const decision = tapeDecision(this.options, tapeDrifts.length > 0);
    if (acceptable && decision.writeGolden) {
      // Reports show the session as recorded: keep it before the update replaces it.
      if (statSync(plan.path).size <= MAX_KEPT_CAST_BYTES) recordedCast = readFileSync(plan.path, 'utf8');
      rewriteCastFromLive(plan, live, this.stepTimes);
      updated = true;
    } else if (acceptable && decision.writeCandidate && plan.header.version !== 1) {
      pendingPath = goldenPaths(plan.path).candidate;
      rewriteCastFromLive(plan, live, this.stepTimes, pendingPath);
    } else if (decision.clean && tapeDrifts.length === 0) {
      rmSync(goldenPaths(plan.path).candidate, { force: true }); // a clean replay makes an old candidate stale
    }
    const durationMs = performance.now() - this.started;
    return {
      kind: 'terminal',
      tape: plan.path,
      command: plan.command,
      steps: this.steps,
      drifts: this.drifts,
      updated,
      ...(pendingPath ? { pendingPath } : {}),
      ...(this.drifts.length > 0 ? { liveCast: castFromLive(plan, live, this.stepTimes) } : {}),
      exit: { recorded: plan.recordedExit, live: liveExit },
      timeline: plan.steps.map((s) => ({ line: s.at.line, time: s.time, ...(s.marker !== undefined ? { marker: s.marker } : {}) })),
      ...(recordedCast !== undefined ? { recordedCast } : {}),
      ...(this.shots ? { screenshots: this.shots.results } : {}),
      startupMs: this.startupMs < 0 ? durationMs : this.startupMs,
      durationMs,
      recordedMs: plan.durationSeconds * 1000,
    };
  }

  private spawn(home: string | undefined): Terminal {
    const { header, command } = this.plan;
    try {
      return spawnTerminal(command[0], command.slice(1), {
        rows: header.rows,
        cols: header.cols,
        term: header.termType,
        env: { ...recordedEnv(header), ...(home ? freshHomeEnv(home) : {}), ...this.options.env },
        baseEnv: this.options.baseEnv,
        cwd: this.options.cwd ?? recordedCwd(this.plan.path, header) ?? this.options.baseCwd,
        ...liveRedaction(this.plan.secrets, { ...(this.options.baseEnv ?? process.env), ...this.options.env }),
      });
    } catch (err) {
      if (err instanceof TapedeckError && !err.location) {
        throw new TapedeckError(err.code, err.message, { location: { file: this.plan.path }, details: err.details, cause: err });
      }
      throw err;
    }
  }

  private record(step: PlannedStep, status: TerminalStepStatus, actual: string | undefined, waitedMs: number): void {
    this.steps.push({ step: step.step, kind: step.kind, description: step.description, line: step.at.line, status, expected: step.expected, actual, waitedMs });
  }

  private drift(d: Drift): void {
    this.drifts.push(d);
    // An update needs the whole run (every input sent), so it replays to the end whatever bail says.
    if (this.options.bail && !this.options.update) this.stopped = true;
  }

  private wait(accepted: readonly string[], keyOf: () => string, timeoutMs = this.timeoutMs): Promise<ScreenWaitOutcome> {
    return waitForScreenKey(this.terminal, keyOf, accepted, {
      timeoutMs,
      giveUpWhenStableMs: this.drifts.length > 0 ? GIVE_UP_AFTER_DRIFT_MS : undefined,
    });
  }

  private syncKeyNow = () => syncKey(this.terminal.screen, this.plan.compare);
  private checkpointKeyNow = () => checkpointKey(this.terminal.screen, this.plan.compare);

  private exitedEarly(step: PlannedStep, screen: string): void {
    const exit = this.terminal.exitSignal ? `signal ${this.terminal.exitSignal}` : `exit ${this.terminal.exitCode}`;
    const left = this.plan.steps.length - step.step;
    this.drifts.push(
      screenDrift(this.plan, step, 'TD1105', `program exited (${exit}) before ${step.description}`, screen, [`${left} later step(s) not replayed; the screen it left:`]),
    );
    this.stopped = true;
    this.record(step, 'drifted', screen, 0);
  }

  /** An input or a resize: wait for the recorded screen, then carry it out. */
  private async act(step: PlannedStep): Promise<void> {
    let outcome: ScreenWaitOutcome | undefined;
    if (step.sync) {
      outcome = await this.wait(step.accepted, this.syncKeyNow);
      if (this.startupMs < 0) this.startupMs = performance.now() - this.started;
      if (!outcome.matched) {
        if (outcome.exited) return this.exitedEarly(step, outcome.key);
        this.drift(screenDrift(this.plan, step, 'TD1101', `screen never matched the recording before ${step.description}`, outcome.key, [`waited ${Math.round(outcome.waitedMs)} ms`]));
        this.record(step, 'drifted', outcome.key, outcome.waitedMs);
        if (this.stopped) return;
      }
    }
    if (step.quietMs !== undefined && (!outcome || outcome.matched)) {
      // Around a resize: act once the program is as quiet as recorded, on the recorded screen (wait.ts).
      await waitForQuiet(this.terminal, step.quietMs, this.timeoutMs);
      const again = outcome && this.terminal.running ? await this.wait(step.accepted, this.syncKeyNow) : undefined;
      if (again?.matched) outcome = { ...again, waitedMs: outcome!.waitedMs + again.waitedMs };
    }
    if (!this.terminal.running) {
      await this.terminal.screen.flush();
      return this.exitedEarly(step, this.syncKeyNow());
    }
    if (this.options.realtime) await this.sleepRecordedInterval(step);
    if (!this.terminal.running) return this.exitedEarly(step, this.syncKeyNow());
    // A step sent without waiting (no output since the last one) shows the screen it went out on.
    const sentOn = outcome?.key ?? this.syncKeyNow();
    const seq = step.input ? this.terminal.write(step.input).seq : this.terminal.resize(step.size!.rows, step.size!.cols).seq;
    this.stepDone(step, seq);
    if (!outcome || outcome.matched) this.record(step, 'ok', sentOn, outcome?.waitedMs ?? 0);
  }

  /**
   * A marker: a checkpoint where the live screen must equal the recorded one
   * (and, with screenshots, its rendering the checkpoint's PNG golden).
   */
  private async marker(step: PlannedStep): Promise<void> {
    const outcome = await this.wait(step.accepted, this.checkpointKeyNow);
    if (this.startupMs < 0) this.startupMs = performance.now() - this.started;
    // The very frame the text comparison saw, before the program draws on.
    const frame = this.shots ? this.terminal.screen.snapshot({ includeCells: true }) : undefined;
    if (this.options.realtime) await this.sleepRecordedInterval(step);
    this.stepDone(step, this.terminal.marker(step.marker!).seq);
    // agent-tty writes a signal it sent as a "signal:SIGxxx" marker (asciicast has no signal event): send it again.
    const signal = /^signal:(SIG[A-Z0-9]+)$/.exec(step.marker!)?.[1];
    if (signal && this.terminal.running) this.terminal.signal(signal);
    const textDrift = outcome.matched
      ? undefined
      : screenDrift(this.plan, step, 'TD1102', `checkpoint ${step.description}: screen differs`, outcome.key, [`waited ${Math.round(outcome.waitedMs)} ms`]);
    // A screen that is already wrong is not pixel-compared and never becomes a new golden;
    // under `update` (the tape is re-recorded from this run) its golden is rewritten along with it.
    const shotDrift = frame && (outcome.matched || (this.options.update && this.shots!.updatesAll)) ? await this.shots!.check(step, frame) : undefined;
    this.record(step, textDrift || shotDrift ? 'drifted' : 'ok', outcome.key, outcome.waitedMs);
    if (textDrift) this.drift(textDrift);
    if (shotDrift) this.drift(shotDrift);
  }

  /** The end of the tape: exit status (when recorded) and the final screen. */
  private async end(step: PlannedStep): Promise<TerminalExit | undefined> {
    const recorded = this.plan.recordedExit;
    let exit: TerminalExit | undefined;
    let exitDrift: Drift | undefined;
    if (recorded !== undefined) {
      exit = await exitWithin(this.terminal.exited, this.timeoutMs);
      const live = exit ? (exit.signal ? `signal ${exit.signal}` : `exit ${exit.exitCode}`) : `still running after ${this.timeoutMs} ms`;
      // A cast records a signal death as the shell's 128+N, so a live death by the same signal matches.
      if (!exit || (exit.signal ? signalExitCode(exit.signal as NodeJS.Signals) : exit.exitCode) !== recorded) {
        exitDrift = terminalDrift(this.plan, step, 'TD1104', `exit status differs: recorded exit ${recorded}, live ${live}`, [`recorded: exit ${recorded}`, `live: ${live}`], `exit ${recorded}`, live);
      }
    }
    // Once the program ended its screen is final; otherwise give it the step timeout to get there.
    const outcome = await this.wait(step.accepted, this.checkpointKeyNow, recorded !== undefined ? 0 : this.timeoutMs);
    if (this.startupMs < 0) this.startupMs = performance.now() - this.started;
    if (!outcome.matched) this.drifts.push(screenDrift(this.plan, step, 'TD1103', 'final screen differs', outcome.key));
    if (exitDrift) this.drifts.push(exitDrift);
    this.record(step, outcome.matched && !exitDrift ? 'ok' : 'drifted', outcome.key, outcome.waitedMs);
    return exit ?? (this.terminal.running ? undefined : { exitCode: this.terminal.exitCode ?? 0, signal: this.terminal.exitSignal });
  }

  private stepDone(step: PlannedStep, seq: number): void {
    this.stepTimes.set(seq, { time: step.time, line: step.at.line });
    this.lastStepAt = performance.now();
    this.lastStepRecorded = step.time;
  }

  /** --realtime: at least the recorded interval since the previous step. */
  private async sleepRecordedInterval(step: PlannedStep): Promise<void> {
    const due = this.lastStepAt + (step.time - this.lastStepRecorded) * 1000 - performance.now();
    if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
  }
}
