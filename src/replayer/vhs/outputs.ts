import { resolve } from 'node:path';
import type { Drift } from '../../core/diagnostics/drift.js';
import type { GoldenResult, GoldenStore } from '../../core/golden/store.js';
import { castHeaderLine } from '../../tape/asciicast/write.js';
import type { VhsCommand } from '../../tape/vhs/index.js';
import { unifiedDiff } from '../protocol/compare.js';
import type { VhsRunResult } from './run.js';
import { lineError } from './options.js';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import type { PixelCompareOptions } from '../../render/pixel/diff.js';

/** VHS's frame separator (testing.go): 80 box-drawing dashes. */
export const SEPARATOR = '─'.repeat(80);

/** A .txt/.ascii output exactly as VHS writes it: each frame's lines, then the separator line. */
export function textOutput(result: VhsRunResult): string {
  return result.frames.map((f) => `${f.lines.map((l) => `${l}\n`).join('')}${SEPARATOR}\n`).join('');
}

/** Splits a VHS text output back into frames (the lines between separators). */
export function textFrames(text: string): string[][] {
  const frames: string[][] = [];
  let cur: string[] = [];
  for (const line of text.replace(/\r\n/g, '\n').split('\n').slice(0, -1)) {
    if (line === SEPARATOR) {
      frames.push(cur);
      cur = [];
    } else cur.push(line);
  }
  if (cur.length) frames.push(cur);
  return frames;
}

/** The run as an asciicast v2 (tapedeck's header), one "m" marker after each command: what the .cast golden holds. */
export function castOutput(result: VhsRunResult): string {
  const { timestamp: _drop, ...header } = castHeaderLine({ format: 'v2', cols: result.cols, rows: result.rows, termType: 'xterm-256color', title: result.tape.file });
  const lines = [JSON.stringify(header)];
  for (const e of result.cast) lines.push(JSON.stringify([Math.round(e.time) / 1000, e.code, e.data]));
  return `${lines.join('\n')}\n`;
}

/** The screens of a cast at each marker (what the cast golden is compared by), played on a headless screen. */
export async function castScreens(text: string, rows: number, cols: number): Promise<string[][]> {
  const { Screen } = await import('../../session/screen/screen.js');
  const lines = text.split('\n').filter(Boolean);
  let header: { width?: number; height?: number } = {};
  try {
    header = JSON.parse(lines[0]) as typeof header;
  } catch {
    return [];
  }
  const screen = new Screen({ rows: header.height ?? rows, cols: header.width ?? cols });
  const out: string[][] = [];
  try {
    for (const line of lines.slice(1)) {
      let ev: unknown;
      try {
        ev = JSON.parse(line);
      } catch {
        continue;
      }
      if (!Array.isArray(ev)) continue;
      if (ev[1] === 'o') await screen.write(String(ev[2]));
      else if (ev[1] === 'm') {
        await screen.flush();
        out.push(screen.visibleLines().map((l) => l.trimEnd()));
      }
    }
  } finally {
    screen.dispose();
  }
  return out;
}

export interface OutputCheck {
  output: Extract<VhsCommand, { kind: 'Output' }>;
  path: string;
  golden?: GoldenResult;
  drift?: Drift;
  /** Why it was not produced. */
  skipped?: string;
  /** What of the tape's look it was not drawn with. */
  note?: string;
  /** Where a Screenshot, GIF, video or frame first differs: the golden's and the run's pictures (PNG), for the HTML report. */
  pictures?: { expected?: Buffer; actual?: Buffer; label: string };
}

/** Checks (or writes) every Output of a run through the golden store. */
export async function checkOutputs(result: VhsRunResult, store: GoldenStore, cwd: string, pixel: PixelCompareOptions = {}): Promise<OutputCheck[]> {
  const checks: OutputCheck[] = [];
  const text = textOutput(result);
  // A video too long to make fails before any output is written.
  if (result.outputs.some((o) => o.format !== 'txt' && o.format !== 'ascii' && o.format !== 'cast')) (await import('./media.js')).framePlan(result);
  for (const output of result.outputs) {
    const path = resolve(cwd, output.path);
    try {
      await checkOne(result, store, output, path, text, checks, pixel);
    } catch (err) {
      if (err instanceof TapedeckError && err.code === 'EXPORT_ERROR') throw lineError(output.at, `cannot make ${output.path}: ${err.message}`, 'EXPORT_ERROR');
      if (err instanceof TapedeckError) throw err;
      throw lineError(output.at, `cannot write ${output.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'STORAGE_WRITE_ERROR');
    }
  }
  let draw: ((snapshot: VhsRunResult['screenshots'][number]['snapshot']) => import('../../render/vhs/window.js').Picture) | undefined;
  for (const shot of result.screenshots) {
    const path = resolve(cwd, shot.path);
    try {
      const { vhsLook, vhsPng } = await import('./media.js');
      const { comparePngs } = await import('../../render/pixel/diff.js');
      draw ??= await vhsLook(result);
      const png = await vhsPng(result, shot.snapshot, draw(shot.snapshot));
      const golden = store.check({ path, actual: png, displayPath: shot.path, compare: (expected) => comparePngs(expected, png, pixel) });
      const output = { kind: 'Output' as const, path: shot.path, format: 'frames' as const, at: shot.at };
      const code = golden.status === 'missing' ? 'TD1203' : 'TD1204';
      const pictures = golden.pass ? undefined : { expected: store.read(path), actual: png, label: shot.path };
      checks.push({ output, path, golden, ...lookNote(result), ...(golden.pass ? {} : { pictures, drift: makeDrift(result, output, code, golden.status === 'missing' ? `screenshot ${shot.path} missing` : `screenshot ${shot.path} differs`, golden.message.split('\n'), 1) }) });
    } catch (err) {
      if (err instanceof TapedeckError) throw err;
      throw lineError(shot.at, `cannot write ${shot.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'STORAGE_WRITE_ERROR');
    }
  }
  return checks;
}

async function checkOne(result: VhsRunResult, store: GoldenStore, output: Extract<VhsCommand, { kind: 'Output' }>, path: string, text: string, checks: OutputCheck[], pixel: PixelCompareOptions): Promise<void> {
  {
    if (output.format === 'txt' || output.format === 'ascii') {
      const golden = store.check({ path, actual: text, displayPath: output.path, compare: (expected) => compareText(expected.toString('utf8'), result) });
      checks.push({ output, path, golden, ...(golden.pass ? {} : { drift: textDrift(result, output, golden, store.read(path)?.toString('utf8')) }) });
    } else if (output.format === 'cast') {
      const cast = castOutput(result);
      const expected = store.read(path);
      const verdict = expected === undefined ? undefined : await compareCast(expected.toString('utf8'), result);
      const golden = store.settle({ path, actual: cast, verdict, displayPath: output.path });
      checks.push({ output, path, golden, ...(golden.pass ? {} : { drift: makeDrift(result, output, golden.status === 'missing' ? 'TD1203' : 'TD1202', golden.status === 'missing' ? 'cast output missing' : 'cast screens differ', golden.message.split('\n'), 1) }) });
    } else {
      const { checkAnimation, checkFramesFolder } = await import('./media-check.js');
      const m = output.format === 'frames' ? await checkFramesFolder(result, store, output, path, pixel) : await checkAnimation(result, store, output, path, pixel);
      const golden = m.golden;
      const kind = output.format === 'frames' ? 'frames folder' : `.${output.format}`;
      const drift = golden.pass ? undefined : makeDrift(result, output, golden.status === 'missing' ? 'TD1203' : 'TD1205', golden.status === 'missing' ? `${kind} output ${output.path} missing` : `${kind} output ${output.path} differs`, golden.message.split('\n'), 1);
      checks.push({ output, path, golden, ...lookNote(result), ...(drift ? { drift, ...(m.pictures ? { pictures: m.pictures } : {}) } : {}) });
    }
  }
}

function compareText(expected: string, result: VhsRunResult): { pass: boolean; message?: string } {
  const want = textFrames(expected);
  const got = result.frames.map((f) => f.lines);
  const n = firstDifference(want, got, headerCount(result));
  if (n < 0) return { pass: true };
  return { pass: false, message: frameMessage(result, n, want, got) };
}

/** The frames taken for the tape's header commands (they come first). */
function headerCount(result: VhsRunResult): number {
  let n = 0;
  while (result.frames[n]?.header) n++;
  return n;
}

/**
 * The first frame that differs. The first `header` frames are compared
 * without their trailing empty lines: VHS takes them before it sizes the
 * terminal, at its browser's first size (go-rod's 1280 x 800 window, ttyd's
 * 13 px font: dozens of rows), so a VHS file has more, empty, rows there.
 */
function firstDifference(want: string[][], got: string[][], header = 0): number {
  const trim = (lines: string[]) => {
    let end = lines.length;
    while (end > 0 && lines[end - 1] === '') end--;
    return lines.slice(0, end).join('\n');
  };
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    const a = want[i] ?? [];
    const b = got[i] ?? [];
    if (i < header && want[i] && got[i] ? trim(a) !== trim(b) : a.join('\n') !== b.join('\n')) return i;
  }
  return -1;
}

function frameMessage(result: VhsRunResult, n: number, want: string[][], got: string[][]): string {
  const at = result.frames[n]?.at ?? result.frames[result.frames.length - 1]?.at;
  const where = at ? ` (after line ${at.line}: ${at.text.trim()})` : '';
  const count = want.length !== got.length ? ` (${want.length} frames in the file, ${got.length} live)` : '';
  const diff = unifiedDiff((want[n] ?? ['<no frame>']).join('\n'), (got[n] ?? ['<no frame>']).join('\n'), `frame ${n + 1} in the file`, `frame ${n + 1} live`);
  return [`frame ${n + 1}${where} differs${count}`, ...diff].join('\n');
}

async function compareCast(expected: string, result: VhsRunResult): Promise<{ pass: boolean; message?: string }> {
  const want = await castScreens(expected, result.rows, result.cols);
  const got = await castScreens(castOutput(result), result.rows, result.cols);
  const n = firstDifference(want, got);
  if (n < 0) return { pass: true };
  const diff = unifiedDiff((want[n] ?? ['<no screen>']).join('\n'), (got[n] ?? ['<no screen>']).join('\n'), `screen ${n + 1} in the cast`, `screen ${n + 1} live`);
  return { pass: false, message: [`cast screen ${n + 1} differs${want.length !== got.length ? ` (${want.length} markers in the file, ${got.length} live)` : ''}`, ...diff].join('\n') };
}

function textDrift(result: VhsRunResult, output: Extract<VhsCommand, { kind: 'Output' }>, golden: GoldenResult, expected: string | undefined): Drift {
  if (golden.status === 'missing') return makeDrift(result, output, 'TD1203', `text output ${output.path} missing`, golden.message.split('\n'), 1);
  const want = textFrames(expected ?? '');
  const n = Math.max(0, firstDifference(want, result.frames.map((f) => f.lines), headerCount(result)));
  return makeDrift(result, output, 'TD1201', `text output ${output.path} differs at frame ${n + 1}`, golden.message.split('\n'), n + 1, want[n]?.join('\n') ?? '', result.frames[n]?.lines.join('\n'));
}

function makeDrift(result: VhsRunResult, output: Extract<VhsCommand, { kind: 'Output' }>, code: Drift['code'], title: string, details: string[], frame: number, expected = '', actual?: string): Drift {
  return { code, tape: result.tape.file, line: output.at.line, byteStart: 0, byteEnd: 0, pair: frame, request: output.at.text.trim(), recordedLine: output.at.text, title, details, expected, actual };
}

/** A theme by name (VHS's themes.json is not built in): drawn in VHS's default theme, said once per picture output. */
function lookNote(result: VhsRunResult): { note?: string } {
  const t = result.options.theme;
  return typeof t === 'string' && t !== '' ? { note: `Theme ${JSON.stringify(t)}: tapedeck knows only VHS's default theme by name (give the colours as JSON); drawn in the default` } : {};
}
