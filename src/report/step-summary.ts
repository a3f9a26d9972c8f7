import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { TapeSummary } from './summary.js';

/**
 * The GitHub Actions job summary: under Actions (GITHUB_STEP_SUMMARY names a
 * file), `tapedeck replay` and the vitest reporter append a markdown table of
 * what drifted (tape or golden, what changed, the report to open), beside the
 * annotations they write.
 */
export interface SummaryRow {
  /** Tape or golden, relative to the working directory. */
  subject: string;
  change: string;
}

function cell(text: string): string {
  // One table cell: no pipes or newlines, no markup from the tape, bounded.
  const flat = text.replace(/[\r\n]+/g, ' ').replace(/[|`<>]/g, (c) => `\\${c}`);
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

export function summaryMarkdown(title: string, rows: readonly SummaryRow[], clean: string, report?: string): string {
  if (rows.length === 0) return `### ${title}\n\n${clean}\n\n`;
  const head = ['| | What changed | Report |', '| --- | --- | --- |'];
  const body = rows.map((r) => `| \`${cell(r.subject).replace(/`/g, '')}\` | ${cell(r.change)} | ${report ? `\`${cell(report)}\`` : '—'} |`);
  return `### ${title}\n\n${[...head, ...body].join('\n')}\n\n`;
}

/** Rows for a replay: one per drift (its code and title, at the tape line). */
export function tapeRows(tapes: readonly TapeSummary[], cwd = process.cwd()): SummaryRow[] {
  return tapes.flatMap((t) => t.drifts.map((d) => ({ subject: `${relative(cwd, d.tape) || d.tape}:${d.line}`, change: `${d.code} ${d.title}` })));
}

/** Appends to the job summary when GITHUB_STEP_SUMMARY is set; never fails the run over it. */
export function appendStepSummary(markdown: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  try {
    appendFileSync(file, markdown);
    return true;
  } catch (err) {
    process.stderr.write(`tapedeck: could not append to the job summary ${file}: ${(err as Error).message}\n`);
    return false;
  }
}
