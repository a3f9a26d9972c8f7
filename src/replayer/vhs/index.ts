import { dirname, relative, resolve } from 'node:path';
import type { UpdatePolicy } from '../../core/config/ci.js';
import type { Drift } from '../../core/diagnostics/drift.js';
import { TapedeckError } from '../../core/diagnostics/errors.js';
import { GoldenStore } from '../../core/golden/store.js';
import type { PixelCompareOptions } from '../../render/pixel/diff.js';
import { formatDiagnostics, loadTape, type VhsDiagnostic } from '../../tape/vhs/index.js';
import { isTrustedTape, type TapeTrust } from '../tape-trust.js';
import { checkOutputs, type OutputCheck } from './outputs.js';
import { runVhsTape, type VhsRunResult } from './run.js';

export { runVhsTape, type VhsRunResult, type VhsFrame } from './run.js';
export { textOutput, castOutput, textFrames, SEPARATOR, type OutputCheck } from './outputs.js';
export { terminalSize } from './geometry.js';

export interface VhsTapeResult {
  tape: string;
  kind: 'terminal';
  durationMs: number;
  /** Frames written (the tape's steps, for reports). */
  units: number;
  drifts: Drift[];
  checks: OutputCheck[];
  /** Parse errors (nothing ran) or the run's error (nothing written). */
  errors?: VhsDiagnostic[];
  error?: TapedeckError;
  run?: VhsRunResult;
}

export interface VhsRunFilesOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  policy: UpdatePolicy;
  realtime?: boolean;
  /** Tapes outside these roots are not run (the CLI's rule; --trust-tape drops it). */
  trust?: TapeTrust;
  /** How Screenshot PNGs, GIF frames, video frames and frame PNGs are compared (the screenshot options). */
  pixel?: PixelCompareOptions;
}

export interface VhsFilesResult {
  tapes: VhsTapeResult[];
  exitCode: 0 | 1 | 2;
  durationMs: number;
}

/**
 * Runs VHS tapes one after another: each parsed (every error of every tape
 * reported, nothing run for a tape with errors), run in its own folder (the
 * paths in it, Output and Source, are relative to the tape), and its outputs
 * checked as goldens. Exit 2 when any tape could not be read or run, else 1
 * when any output drifted, else 0.
 */
export async function runVhsFiles(paths: readonly string[], options: VhsRunFilesOptions): Promise<VhsFilesResult> {
  const started = performance.now();
  const tapes: VhsTapeResult[] = [];
  for (const given of paths) {
    const abs = resolve(options.cwd, given);
    const shown = relative(options.cwd, abs) || abs;
    const t0 = performance.now();
    const base: VhsTapeResult = { tape: shown, kind: 'terminal', durationMs: 0, units: 0, drifts: [], checks: [] };
    if (options.trust && !isTrustedTape(abs, options.trust)) {
      base.error = new TapedeckError('UNTRUSTED_TAPE', `the tape is not in this project (not under ${options.trust.roots.join(' or ')}), so its commands are not run; pass --trust-tape to run it`, { location: { file: shown } });
      tapes.push(base);
      continue;
    }
    const loaded = loadTape(abs, { display: shown, base: options.cwd });
    if (!loaded.tape) {
      tapes.push({ ...base, errors: loaded.errors, durationMs: performance.now() - t0 });
      continue;
    }
    const cwd = dirname(abs);
    try {
      const run = await runVhsTape(loaded.tape, { cwd, baseEnv: options.env, realtime: options.realtime });
      const store = new GoldenStore(options.policy, undefined, options.cwd);
      const checks = await checkOutputs(run, store, cwd, options.pixel);
      tapes.push({ ...base, run, checks, units: run.frames.length, drifts: checks.flatMap((c) => (c.drift ? [c.drift] : [])), durationMs: performance.now() - t0 });
    } catch (err) {
      if (!(err instanceof TapedeckError)) throw err;
      tapes.push({ ...base, error: err, durationMs: performance.now() - t0 });
    }
  }
  const bad = tapes.some((t) => t.errors || t.error);
  const drift = tapes.some((t) => t.drifts.length > 0);
  return { tapes, exitCode: bad ? 2 : drift ? 1 : 0, durationMs: performance.now() - started };
}

/** The human report of a run: errors as a compiler prints them, then per tape what was written, matched or drifted. */
export function formatVhsReport(result: VhsFilesResult): string {
  const out: string[] = [];
  for (const t of result.tapes) {
    if (t.errors) out.push(formatDiagnostics(t.errors), `tapedeck: ${t.tape}: ${t.errors.length} error${t.errors.length === 1 ? '' : 's'}; nothing was run`);
    if (t.error) out.push(`tapedeck: ${t.error.describe()}`);
    for (const c of t.checks) {
      if (c.skipped) out.push(`tapedeck: ${t.tape}:${c.output.at.line}: Output ${c.output.path}: ${c.skipped}`);
      else if (c.golden) out.push(`${c.golden.pass ? 'ok  ' : 'FAIL'} ${t.tape}:${c.output.at.line}: ${c.golden.message.split('\n').join('\n     ')}`);
      if (c.note) out.push(`note ${t.tape}:${c.output.at.line}: ${c.note}`);
    }
  }
  const ran = result.tapes.filter((t) => t.run).length;
  const drifted = result.tapes.filter((t) => t.drifts.length).length;
  const failed = result.tapes.filter((t) => t.errors || t.error).length;
  out.push(`tapedeck vhs: ${result.tapes.length} tape${result.tapes.length === 1 ? '' : 's'}, ${ran} ran, ${drifted} drifted, ${failed} failed (${Math.round(result.durationMs)} ms)`);
  return `${out.join('\n')}\n`;
}

