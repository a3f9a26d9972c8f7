import { TapedeckError } from '../../core/diagnostics/errors.js';
import { encodeKey } from '../../session/input/keys.js';
import type { ScreenSnapshot } from '../../session/screen/screen.js';
import { compileGoRegex, type VhsCommand, type VhsLocation, type VhsTape } from '../../tape/vhs/index.js';
import { Driver, type CastEvent } from './driver.js';
import { terminalSize } from './geometry.js';
import { applySetting, lineError, preflight, type VhsOptions } from './options.js';

/** One text frame: VHS's Buffer() after a command (the first `rows` lines of the buffer, each trimmed at the end). */
export interface VhsFrame {
  lines: string[];
  /** The visible screen (what a player of the .cast shows). */
  screen: string[];
  at: VhsLocation;
  /** Taken for a header command (Set, Output, Require before the first other command): VHS takes these before it sizes the terminal. */
  header?: boolean;
}

export interface VhsRunResult {
  tape: VhsTape;
  options: VhsOptions;
  rows: number;
  cols: number;
  frames: VhsFrame[];
  cast: CastEvent[];
  /** Screenshot commands: the screen at the next frame, with cells for the renderer. */
  screenshots: { path: string; at: VhsLocation; snapshot: ScreenSnapshot }[];
  /** Output commands (in order) and notes about what was not produced. */
  outputs: Extract<VhsCommand, { kind: 'Output' }>[];
  timelineMs: number;
  /** Where recording (VHS's frame capture) starts on the timeline: after a leading Hide block. */
  recordStartMs: number;
  /** Hidden stretches of the timeline after that ([from, to) ms): no frame is captured in them. */
  hidden: [number, number][];
  wallMs: number;
}

export interface VhsRunOptions {
  cwd: string;
  baseEnv: NodeJS.ProcessEnv;
  realtime?: boolean;
}

const KEY_NAMES: Record<string, string> = { PageUp: 'pageup', PageDown: 'pagedown' };
const TYPED: Record<string, string> = { '\n': '\r', '\r': '\r', '\b': '\x7f' };

/**
 * Runs a parsed tape as VHS's Evaluate does (evaluator.go): the leading Set,
 * Output and Require commands first (each one a frame once a text Output is
 * known, as VHS records from the start), a leading Hide block before recording
 * starts, then every command, a frame after each while recording; later Set
 * commands other than TypingSpeed are ignored, as VHS ignores them.
 */
export async function runVhsTape(tape: VhsTape, run: VhsRunOptions): Promise<VhsRunResult> {
  const started = performance.now();
  const pre = preflight(tape, run.cwd, run.baseEnv);
  const options = pre.options;
  const { rows, cols } = terminalSize(options);
  const driver = new Driver(pre.shell.file, pre.shell.args, { rows, cols, cwd: run.cwd, env: { ...pre.shell.env, ...pre.env }, baseEnv: run.baseEnv }, run.realtime === true);
  const result: VhsRunResult = { tape, options, rows, cols, frames: [], cast: driver.cast, screenshots: [], outputs: [], timelineMs: 0, recordStartMs: 0, hidden: [], wallMs: 0 };
  let hiddenSince: number | undefined;
  let recording = true;
  let text = false;
  let shotNext: { path: string; at: VhsLocation } | undefined;
  let clipboard = '';
  const frame = (at: VhsLocation, header = false) => {
    driver.marker(`${at.line}: ${at.text.trim()}`);
    if (!recording) return;
    const x = driver.term.screen.xterm;
    const buf = x.buffer.active;
    const screen = driver.term.screen.visibleLines();
    if (shotNext) {
      result.screenshots.push({ ...shotNext, snapshot: driver.term.screen.snapshot({ includeCells: true }) });
      shotNext = undefined;
    }
    if (!text) return;
    const lines: string[] = [];
    for (let i = 0; i < x.rows; i++) lines.push((buf.getLine(i)?.translateToString() ?? '').trimEnd());
    result.frames.push({ lines, screen, at, ...(header ? { header } : {}) });
  };
  const type = async (chars: string, speed: number) => {
    for (const ch of chars) {
      driver.send(TYPED[ch] ?? ch);
      await driver.settle(speed);
    }
  };
  const key = (name: string) => encodeKey(name, driver.term.screen.modes);
  const exec = async (cmd: VhsCommand): Promise<void> => {
    switch (cmd.kind) {
      case 'Set':
        applySetting(options, cmd);
        return;
      case 'Output':
        result.outputs.push(cmd);
        if (cmd.format === 'txt' || cmd.format === 'ascii') text = true;
        return;
      case 'Require':
      case 'Env':
        return;
      case 'Sleep':
        return driver.settle(cmd.ms);
      case 'Type':
        return type(cmd.text, cmd.speedMs ?? options.typingSpeedMs);
      case 'Paste':
        return type(clipboard, 0);
      case 'Copy':
        clipboard = cmd.text;
        return;
      case 'Key':
        for (let i = 0; i < cmd.count; i++) {
          driver.send(key(KEY_NAMES[cmd.key] ?? cmd.key.toLowerCase()));
          await driver.settle(cmd.speedMs ?? options.typingSpeedMs);
        }
        return;
      case 'Scroll':
        for (let i = 0; i < cmd.count; i++) {
          driver.term.screen.xterm.scrollLines(cmd.direction);
          await driver.settle(cmd.speedMs ?? options.typingSpeedMs);
        }
        return;
      case 'Ctrl': {
        const base = cmd.key === '-' ? undefined : cmd.key.length === 1 ? cmd.key : cmd.key.toLowerCase();
        const chord = [...(cmd.modifiers.map((m) => m.toLowerCase())), 'ctrl', base ?? '_'].join('+');
        driver.send(cmd.key === '-' ? `${cmd.modifiers.includes('Alt') ? '\x1b' : ''}\x1f` : key(chord));
        return driver.settle(0);
      }
      case 'Alt':
      case 'Shift': {
        const named = cmd.key === 'Enter' || cmd.key === 'Tab' ? [cmd.key.toLowerCase()] : [...cmd.key];
        driver.send(named.map((k) => key(`${cmd.kind.toLowerCase()}+${k === '+' ? '+' : k}`)).join(''));
        return driver.settle(0);
      }
      case 'Hide':
        if (recording) hiddenSince = driver.now;
        recording = false;
        return;
      case 'Show':
        if (!recording && hiddenSince !== undefined) result.hidden.push([hiddenSince, driver.now]);
        hiddenSince = undefined;
        recording = true;
        return;
      case 'Screenshot':
        shotNext = { path: cmd.path, at: cmd.at };
        return;
      case 'Wait':
        return wait(driver, cmd, options);
    }
  };
  try {
    if (!(await driver.until(() => driver.outputCount > 0, 10_000))) throw lineError(tape.commands[0].at, `the shell ${options.shell} printed nothing within 10 s`, 'SPAWN_FAILED');
    await driver.settle(0);
    driver.now = 0;
    const cmds = tape.commands;
    let offset = pre.offset;
    for (const cmd of cmds.slice(0, offset)) {
      if (cmd.kind === 'Set' && cmd.setting === 'Shell') continue;
      await exec(cmd);
      frame(cmd.at, true);
    }
    if (cmds[offset]?.kind === 'Hide') {
      const show = cmds.findIndex((c, i) => i > offset && c.kind === 'Show');
      const end = show < 0 ? cmds.length : show;
      for (const cmd of cmds.slice(offset, end)) await runOne(cmd, exec);
      offset = end;
      hiddenSince = undefined;
    }
    result.recordStartMs = driver.now;
    for (const cmd of cmds.slice(offset)) {
      if ((cmd.kind === 'Set' && cmd.setting !== 'TypingSpeed') || cmd.kind === 'Require') continue;
      await runOne(cmd, exec);
      frame(cmd.at);
    }
  } finally {
    await driver.dispose();
  }
  result.timelineMs = driver.now;
  if (hiddenSince !== undefined) result.hidden.push([hiddenSince, driver.now]);
  result.wallMs = performance.now() - started;
  return result;
}

async function runOne(cmd: VhsCommand, exec: (cmd: VhsCommand) => Promise<void>): Promise<void> {
  try {
    await exec(cmd);
  } catch (err) {
    if (err instanceof TapedeckError) throw err;
    throw lineError(cmd.at, (err as Error).message);
  }
}

async function wait(driver: Driver, cmd: Extract<VhsCommand, { kind: 'Wait' }>, options: VhsOptions): Promise<void> {
  const rx = compileGoRegex(cmd.pattern ?? options.waitPattern);
  const timeout = cmd.timeoutMs ?? options.waitTimeoutMs;
  let last = '';
  const test = () => {
    const x = driver.term.screen.xterm;
    const buf = x.buffer.active;
    if (cmd.scope === 'Line') {
      last = (buf.getLine(buf.cursorY + buf.baseY)?.translateToString() ?? '').trimEnd();
      return rx.test(last);
    }
    // VHS reads the buffer from its top (its Buffer()); the visible screen counts too, once scrolled.
    const top: string[] = [];
    for (let i = 0; i < x.rows; i++) top.push((buf.getLine(i)?.translateToString() ?? '').trimEnd());
    last = top.join('\n');
    if (rx.test(last)) return true;
    const visible = driver.term.screen.visibleLines().map((l) => l.trimEnd()).join('\n');
    if (visible !== last && rx.test(visible)) return true;
    last = visible;
    return false;
  };
  if (await driver.until(test, timeout)) return;
  const shown = last.split('\n').map((l) => `    ${l}`).join('\n');
  throw lineError(cmd.at, `Wait+${cmd.scope} /${cmd.pattern ?? options.waitPattern}/ timed out after ${timeout} ms; the ${cmd.scope === 'Line' ? 'current line' : 'screen'} was:\n${shown}`, 'WAIT_TIMEOUT');
}
