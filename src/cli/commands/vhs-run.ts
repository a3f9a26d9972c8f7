/** What `tapedeck vhs` runs once its options are parsed (vhs.ts holds the definition and help). */
import { realpathSync } from 'node:fs';
import { resolveUpdatePolicy } from '../../core/config/ci.js';
import { usageError } from '../../core/diagnostics/errors.js';
import { writeFileAtomic } from '../../core/files/atomic-write.js';
import { defaultGoldenRoot } from '../../core/golden/store.js';
import { formatVhsReport, runVhsFiles } from '../../replayer/vhs/index.js';
import type { CliIO } from '../io.js';

/** vhs.ts's options as parsed (declared there; named here so the two files do not import each other). */
interface Ctx {
  values: { update: boolean; json: boolean; realtime: boolean; reporter?: string; out?: string; 'trust-tape': boolean };
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
    writeFileAtomic(values.out, junitXml(result.tapes, result.durationMs, 'tapedeck vhs'));
    io.stderr.write(`tapedeck: wrote JUnit XML to ${values.out}\n`);
  }
  return result.exitCode;
}
