import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import type { VhsCommand, VhsLocation, VhsTape } from '../../tape/vhs/index.js';
import { resolveCommand } from '../../session/pty/resolve-command.js';
import type { VhsStyle } from './geometry.js';
import { minimumSize } from './geometry.js';
import { SHELLS, type VhsShell } from './shells.js';

/** VHS's options (vhs.go, style.go, video.go defaults) as the tape's settings leave them. */
export interface VhsOptions extends VhsStyle {
  shell: string;
  shellAt?: VhsLocation;
  fontFamily: string;
  typingSpeedMs: number;
  theme: string | Record<string, unknown>;
  borderRadius: number;
  framerate: number;
  playbackSpeed: number;
  loopOffset: number;
  cursorBlink: boolean;
  waitTimeoutMs: number;
  waitPattern: string;
}

export function defaultOptions(): VhsOptions {
  return {
    shell: 'bash', fontFamily: 'JetBrains Mono', fontSize: 22, letterSpacing: 1, lineHeight: 1, typingSpeedMs: 50,
    theme: '', width: 1200, height: 600, padding: 60, margin: 0, marginFill: '#171717', windowBar: '', windowBarSize: 30,
    borderRadius: 0, framerate: 50, playbackSpeed: 1, loopOffset: 0, cursorBlink: true, waitTimeoutMs: 15_000,
    waitPattern: '>$',
  };
}

const FIELD: Record<string, keyof VhsOptions> = {
  Shell: 'shell', FontFamily: 'fontFamily', FontSize: 'fontSize', LetterSpacing: 'letterSpacing', LineHeight: 'lineHeight',
  TypingSpeed: 'typingSpeedMs', Theme: 'theme', Width: 'width', Height: 'height', Padding: 'padding', Margin: 'margin',
  MarginFill: 'marginFill', WindowBar: 'windowBar', WindowBarSize: 'windowBarSize', BorderRadius: 'borderRadius',
  Framerate: 'framerate', PlaybackSpeed: 'playbackSpeed', LoopOffset: 'loopOffset', CursorBlink: 'cursorBlink',
  WaitTimeout: 'waitTimeoutMs', WaitPattern: 'waitPattern',
};

export function applySetting(options: VhsOptions, cmd: Extract<VhsCommand, { kind: 'Set' }>): void {
  (options as unknown as Record<string, unknown>)[FIELD[cmd.setting]] = cmd.value;
  if (cmd.setting === 'Shell') options.shellAt = cmd.at;
}

/** An error about one tape line: `file:line: message`, exit 2 (or the code given). */
export function lineError(at: VhsLocation, message: string, code: 'INVALID_INPUT' | 'SPAWN_FAILED' | 'WAIT_TIMEOUT' | 'STORAGE_WRITE_ERROR' | 'EXPORT_ERROR' = 'INVALID_INPUT'): TapedeckError {
  return new TapedeckError(code, `${message}\n  ${at.line} | ${at.text.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}`, {
    location: { file: `${at.file}`, line: at.line },
  });
}

export interface Preflight {
  options: VhsOptions;
  /** Index of the first command that is not a Set, Output or Require (evaluator.go's offset). */
  offset: number;
  env: Record<string, string>;
  shell: VhsShell & { file: string };
}

/**
 * Everything checked before a shell starts, as VHS's Evaluate does first: the
 * settings (header Sets apply; Set Shell and Env apply wherever they are),
 * VHS's minimum dimensions, every Require on PATH, the shell on PATH, and
 * every Output's folder writable. Any failure names its tape line.
 */
export function preflight(tape: VhsTape, cwd: string, baseEnv: NodeJS.ProcessEnv): Preflight {
  const options = defaultOptions();
  const env: Record<string, string> = {};
  for (const cmd of tape.commands) {
    if (cmd.kind === 'Set' && cmd.setting === 'Shell') applySetting(options, cmd);
    if (cmd.kind === 'Env') env[cmd.name] = cmd.value;
  }
  let offset = 0;
  while (offset < tape.commands.length && ['Set', 'Output', 'Require'].includes(tape.commands[offset].kind)) {
    const cmd = tape.commands[offset++];
    if (cmd.kind === 'Set') applySetting(options, cmd);
  }
  const min = minimumSize(options);
  if (options.width < min.width || options.height < min.height) {
    const at = tape.commands.find((c) => c.kind === 'Set' && (c.setting === 'Width' || c.setting === 'Height'))?.at ?? tape.commands[0].at;
    throw lineError(at, `dimensions must be at least ${min.width} x ${min.height} (twice the padding and margin, plus the window bar)`);
  }
  const path: Record<string, string> = { PATH: baseEnv.PATH ?? '', ...env };
  for (const cmd of tape.commands) {
    if (cmd.kind !== 'Require') continue;
    try {
      resolveCommand(cmd.program, cwd, path);
    } catch {
      throw lineError(cmd.at, `Require ${cmd.program}: ${JSON.stringify(cmd.program)} is not on PATH`);
    }
  }
  const def = SHELLS[options.shell];
  let file: string;
  try {
    file = resolveCommand(def.command, cwd, path);
  } catch {
    const where = options.shellAt ?? tape.commands[0].at;
    throw lineError(where, `shell ${JSON.stringify(options.shell)} (${def.command}) is not on PATH${options.shellAt ? '' : ' (the default shell; Set Shell picks another)'}`, 'SPAWN_FAILED');
  }
  const video = tape.commands.find((c) => c.kind === 'Output' && (c.format === 'webm' || c.format === 'mp4'));
  if (video) {
    const ffmpeg = baseEnv.TAPEDECK_FFMPEG ?? 'ffmpeg';
    try {
      resolveCommand(ffmpeg, cwd, { PATH: baseEnv.PATH ?? '' });
    } catch {
      throw lineError(video.at, `a video Output needs ffmpeg, and ${JSON.stringify(ffmpeg)} is not on PATH (Debian: apt-get install -y ffmpeg; or set TAPEDECK_FFMPEG)`, 'EXPORT_ERROR');
    }
  }
  for (const cmd of tape.commands) if (cmd.kind === 'Output' || cmd.kind === 'Screenshot') checkWritable(`${resolve(cwd, cmd.path)}${cmd.kind === 'Output' && cmd.format === 'frames' ? '/' : ''}`, cmd.at);
  return { options, offset, env, shell: { ...def, file } };
}

function checkWritable(path: string, at: VhsLocation): void {
  const dir = path.endsWith('/') ? path.replace(/\/+$/, '') : dirname(path);
  try {
    // Creating the folder is the one sure test (access() says yes to root under /proc); an empty folder is no output.
    makeFolders(dir);
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw lineError(at, `cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'STORAGE_WRITE_ERROR');
  }
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    isDir = false;
  }
  if (isDir && !path.endsWith('/')) throw lineError(at, `cannot write ${path}: it is a directory`, 'STORAGE_WRITE_ERROR');
}

/** mkdir -p one level at a time (Node's recursive mkdir spins forever under /proc). */
function makeFolders(dir: string): void {
  const missing: string[] = [];
  let cur = dir;
  for (;;) {
    try {
      if (!statSync(cur).isDirectory()) throw Object.assign(new Error(`${cur} is not a directory`), { code: 'ENOTDIR' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(cur) === cur) throw err;
      missing.unshift(cur);
      cur = dirname(cur);
    }
  }
  for (const d of missing) mkdirSync(d);
}
