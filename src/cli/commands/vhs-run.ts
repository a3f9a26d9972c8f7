/** What `tapedeck vhs` runs once its options are parsed (vhs.ts holds the definition and help). */
import { realpathSync } from 'node:fs';
import { resolveUpdatePolicy } from '../../core/config/ci.js';
import { usageError } from '../../core/diagnostics/errors.js';
import { writeFileAtomic } from '../../core/files/atomic-write.js';
import { defaultGoldenRoot } from '../../core/golden/paths.js';
import { formatVhsReport, runVhsFiles, type VhsFilesResult } from '../../replayer/vhs/index.js';
import { formatDiagnostics } from '../../tape/vhs/index.js';
import type { TapeSummary } from '../../report/summary.js';
import type { CliIO } from '../io.js';

/** vhs.ts's options as parsed (declared there; named here so the two files do not import each other). */
interface Ctx {
  values: { update: boolean; json: boolean; realtime: boolean; reporter?: string; out?: string; report?: string; 'trust-tape': boolean };
  positionals: string[];
  io: CliIO;
}

export async function vhs({ values, positionals, io }: Ctx): Promise<number> {
  if ((values.reporter === undefined) !== (values.out === undefined)) throw usageError('vhs: --reporter junit and --out FILE go together');
  if (values.reporter !== undefined && values.reporter !== 'junit') throw usageError(`vhs: --reporter supports junit, got ${JSON.stringify(values.reporter)}`);
  const policy = resolveUpdatePolicy(values.update ? 'all' : undefined, io.env);
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const trust = values['trust-tape'] ? undefined : { roots: [real(io.cwd), real(defaultGoldenRoot(io.cwd, undefined, io.env))] };
  const startedAt = new Date();
  const result = await runVhsFiles(positionals, { cwd: io.cwd, env: io.env, policy, realtime: values.realtime, trust });
  if (values.json) {
    const { driftToEnvelope } = await import('../../replayer/protocol/envelopes.js');
    const lines = result.tapes.flatMap((t) => t.drifts.map((d) => JSON.stringify(driftToEnvelope(d))));
    if (lines.length) io.stdout.write(`${lines.join('\n')}\n`);
    const drifts = result.tapes.reduce((n, t) => n + t.drifts.length, 0);
    const frames = result.tapes.reduce((n, t) => n + t.units, 0);
    io.stderr.write(`${JSON.stringify({ kind: 'summary', tapes: result.tapes.length, frames, drifts, exit_code: result.exitCode, duration_ms: Math.round(result.durationMs) })}\n`);
  }
  io.stderr.write(formatVhsReport(result));
  if (values.out) {
    const { junitXml } = await import('../../report/ci-reports.js');
    writeFileAtomic(values.out, junitXml(vhsSummaries(result), result.durationMs, 'tapedeck vhs'));
    io.stderr.write(`tapedeck: wrote JUnit XML to ${values.out}\n`);
  }
  if (values.report) {
    writeFileAtomic(values.report, await htmlReport(result, startedAt));
    io.stderr.write(`tapedeck: wrote the report to ${values.report}\n`);
  }
  return result.exitCode;
}

/** The HTML report: text drift as the two frames side by side, the pictures where a GIF/video/Screenshot differs, a player of each drifted run. */
async function htmlReport(result: VhsFilesResult, startedAt: Date): Promise<string> {
  const { renderHtmlReport } = await import('../../report/html.js');
  const { castOutput } = await import('../../replayer/vhs/index.js');
  const { diffImage } = await import('../../render/pixel/diff.js');
  const tapes = vhsSummaries(result).map((s, i) => {
    const t = result.tapes[i];
    if (!t.run || t.drifts.length === 0) return s;
    const screenshots = t.checks.flatMap((c) => {
      const p = c.pictures;
      if (!p) return [];
      let diff: Buffer | undefined;
      try {
        diff = p.expected && p.actual ? diffImage(p.expected, p.actual) : undefined;
      } catch {
        diff = undefined; // pictures of different sizes: both shown, no diff
      }
      return [{ label: p.label, expected: p.expected, actual: p.actual, diff }];
    });
    const markers = t.run.cast.filter((e) => e.code === 'm').map((e): [number, string] => [e.time / 1000, e.data]);
    return { ...s, replayedCast: castOutput(t.run), replayedMarkers: markers, screenshots };
  });
  return renderHtmlReport({ title: 'tapedeck vhs report', startedAt, durationMs: result.durationMs, tapes });
}

/** Each tape as the reports see it: a tape that could not be read or run is a failure with its errors. */
function vhsSummaries(result: VhsFilesResult): TapeSummary[] {
  return result.tapes.map((t) => {
    const base: TapeSummary = { tape: t.tape, kind: t.kind, durationMs: t.durationMs, units: t.units, drifts: t.drifts };
    if (t.errors) return { ...base, failure: { type: 'INVALID_INPUT', message: `${t.errors.length} error${t.errors.length === 1 ? '' : 's'} in the tape; nothing was run`, text: formatDiagnostics(t.errors) } };
    if (t.error) return { ...base, failure: { type: t.error.code, message: t.error.describe().split('\n')[0], text: t.error.describe() } };
    return base;
  });
}
