import { oneLine } from '../../core/text/terminal-safe.js';
import { resolve } from 'node:path';
import { usageError } from '../../core/diagnostics/errors.js';
import type { DiagnosticEnvelope } from '../../core/diagnostics/envelope.js';
import { defineCommand } from '../command.js';
import type { CliIO } from '../io.js';

/** The accept-the-drift fixes tapedeck's replay emits: protocol drift codes. */
const isTapedeckDrift = (code: string) => /^TD10\d\d$/.test(code);

export const command = defineCommand({
  name: 'fix',
  summary: 'apply the fixes of drift envelopes read from stdin (fix --apply --from-stdin)',
  usage: [
    '--apply --from-stdin [options]     (envelopes on stdin, any file; not re-checked)',
    '--apply TAPE [options] -- CMD      (re-checks TAPE: replays it against CMD and applies its envelopes)',
    '--apply PATH [options]             (envelopes on stdin, those for PATH; the others counted as skipped)',
  ],
  description: `Applies the fix alternatives of diagnostic envelopes (seed 001, any tool's: a missing schema_version
is read as "1.0"). Per envelope the most confident alternative is taken when its confidence is at
least the threshold; each hunk's old lines must match the file; hunks go in highest line first;
envelopes that could not be applied are tallied, and the exit code is 1 when any was not.

tapedeck's own drift fixes (accept the live response, confidence 0.6, seed 001's "low: might
apply; weigh see_also and re-prompt") are below the default threshold on purpose: accepting drift
is a decision (docs/formats.md says why). A run that leaves them names the flag that takes them:
  tapedeck replay TAPES --json -- CMD | tapedeck fix --apply --from-stdin --accept-drift`,
  options: {
    apply: { type: 'boolean', default: false, help: 'apply the fixes (required)' },
    'from-stdin': { type: 'boolean', default: false, help: 'the envelopes for any file, on stdin' },
    code: { type: 'string', arg: 'CODE', help: 'only envelopes with this code' },
    alternative: { type: 'string', arg: 'N', help: 'use alternative N instead of the most confident one' },
    threshold: { type: 'string', arg: 'X', default: '0.85', help: 'minimum confidence of the chosen alternative (default 0.85)' },
    'accept-drift': { type: 'boolean', default: false, help: "also apply tapedeck's accept-the-live-response fixes (TD10xx) whatever the threshold" },
  },
  passthrough: true,
  async run({ values, positionals, command, io }) {
    if (!values.apply || positionals.length > 1 || (!values['from-stdin'] && positionals.length === 0)) {
      throw usageError('fix: use tapedeck fix --apply --from-stdin or tapedeck fix --apply PATH, with envelopes on stdin');
    }
    if (command.length > 0 && (values['from-stdin'] || positionals.length !== 1)) throw usageError('fix: -- CMD goes with --apply TAPE (the tape is replayed against CMD to re-check it)');
    if (command.length === 0 && io.stdin?.isTTY) throw usageError('fix: pipe the envelopes in, e.g. tapedeck replay ... --json | tapedeck fix --apply --from-stdin, or re-check a tape with tapedeck fix --apply TAPE -- CMD');
    const only = positionals.length === 1 ? resolve(io.cwd, positionals[0]) : undefined;
    const threshold = Number(values.threshold);
    if (!(threshold >= 0 && threshold <= 1)) throw usageError(`--threshold expects a number from 0 to 1, got ${JSON.stringify(values.threshold)}`);
    const alternative = values.alternative === undefined ? undefined : Number(values.alternative);
    if (alternative !== undefined && !(Number.isInteger(alternative) && alternative >= 0)) throw usageError('--alternative expects a whole number >= 0');

    // --apply TAPE -- CMD re-checks the file (seed 001's `fix --apply <path>`): its envelopes come from a replay now.
    const input = command.length > 0 ? await (await import('./fix-recheck.js')).recheck(positionals[0], command, io) : await readStdin(io.stdin);
    const envelopes: DiagnosticEnvelope[] = [];
    let otherFiles = 0;
    input.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        throw usageError(`<stdin>:${i + 1}: not JSON: ${(err as Error).message}`);
      }
      const v = value as Partial<DiagnosticEnvelope> & { kind?: string };
      if (v && typeof v === 'object' && typeof v.code === 'string' && v.span) {
        // Seed 001: legacy envelopes without the field are "1.0".
        const version: unknown = v.schema_version ?? '1.0';
        if (typeof version !== 'string' || !version.startsWith('1.')) throw usageError(`<stdin>:${i + 1}: unsupported envelope schema_version ${JSON.stringify(version)} (this tapedeck reads 1.x)`);
        const problem = envelopeProblem(v as DiagnosticEnvelope);
        if (problem) throw usageError(`<stdin>:${i + 1}: not a valid envelope: ${problem}`);
        if (only && resolve(io.cwd, (v as DiagnosticEnvelope).span.file) !== only) {
          otherFiles++;
          return;
        }
        envelopes.push(v as DiagnosticEnvelope);
      }
      // Other lines (the replay summary, other kinds) are not envelopes: skipped, as seed 000 says unknown kinds are.
    });

    const { applyEnvelopes } = await import('../../core/diagnostics/apply-fixes.js');
    const outcomes = applyEnvelopes(envelopes, {
      code: values.code,
      alternative,
      threshold: (env) => (values['accept-drift'] && isTapedeckDrift(env.code) ? 0 : threshold),
    });
    const applied = outcomes.filter((o) => o.applied);
    const skipped = outcomes.filter((o) => !o.applied);
    // Seed 001's wording, line for line: "applied MT4099 — <label>", then "Applied 1 fix (MT4099 ×1)".
    for (const o of applied) io.stderr.write(`applied ${o.envelope.code} — ${oneLine(o.label ?? '')}\n`);
    io.stderr.write(`Applied ${applied.length} ${applied.length === 1 ? 'fix' : 'fixes'}${applied.length > 0 ? ` (${tally(applied)})` : ''}\n`);
    // What seed 001 tallies as unapplied, each with its reason, after its own lines.
    for (const o of skipped) io.stderr.write(`not applied ${o.envelope.code} (${oneLine(`${o.envelope.span.file}:${o.envelope.span.line}`)}): ${oneLine(o.reason ?? '')}\n`);
    if (skipped.length > 0) io.stderr.write(`Not applied: ${skipped.length} (${tally(skipped)})\n`);
    if (otherFiles > 0) io.stderr.write(`Skipped ${otherFiles} envelope(s) for other files than ${positionals[0]}\n`);
    const drift = skipped.filter((o) => isTapedeckDrift(o.envelope.code) && /below the threshold/.test(o.reason ?? ''));
    if (drift.length > 0 && !values['accept-drift']) {
      io.stderr.write(`${drift.length} of them accept drift (tapedeck's own fixes, confidence 0.6): add --accept-drift to apply them\n`);
    }
    return skipped.length === 0 ? 0 : 1;
  },
});

function tally(outcomes: readonly { envelope: DiagnosticEnvelope }[]): string {
  const byCode = new Map<string, number>();
  for (const o of outcomes) byCode.set(o.envelope.code, (byCode.get(o.envelope.code) ?? 0) + 1);
  return [...byCode].map(([c, n]) => `${c} ×${n}`).join(', ');
}

/** What makes an envelope's fix unusable, if anything (an envelope without a fix is fine: nothing to apply). */
function envelopeProblem(env: DiagnosticEnvelope): string | undefined {
  const span = env.span as Partial<DiagnosticEnvelope['span']>;
  if (typeof span !== 'object' || typeof span.file !== 'string' || typeof span.line !== 'number') return '"span" needs "file" and "line"';
  if (env.fix === undefined) return undefined;
  if (env.fix === null || typeof env.fix !== 'object') return '"fix" must be an object with "alternatives" (or left out)';
  if (!Array.isArray(env.fix.alternatives)) return '"fix.alternatives" must be an array';
  for (const [i, alt] of env.fix.alternatives.entries()) {
    if (!alt || typeof alt !== 'object') return `fix.alternatives[${i}] must be an object`;
    if (typeof alt.diff !== 'string') return `fix.alternatives[${i}].diff must be a string`;
    if (typeof alt.confidence !== 'number' || !(alt.confidence >= 0 && alt.confidence <= 1)) return `fix.alternatives[${i}].confidence must be a number from 0 to 1`;
    if (typeof alt.label !== 'string') return `fix.alternatives[${i}].label must be a string`;
  }
  return undefined;
}

async function readStdin(stdin: CliIO['stdin']): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin ?? []) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
