import { readFileSync } from 'node:fs';
import { writeFileAtomic } from './atomic-write.js';
import type { DiagnosticEnvelope } from './envelope.js';

/**
 * Seed 001's bulk apply: take envelopes, pick one fix alternative each, and
 * splice the unified diffs into their files. Each hunk's old lines are checked
 * verbatim against the file first (a stale diff is refused, never forced),
 * hunks are applied highest line first so earlier anchors stay put, and what
 * was not applied is tallied for the caller.
 */
export interface Hunk {
  file: string;
  /** 1-based first line of the old side. */
  oldStart: number;
  oldLines: string[];
  newLines: string[];
}

export interface ApplyChoice {
  /** Only envelopes with this code. */
  code?: string;
  /** Use this alternative index instead of the most confident one. */
  alternative?: number;
  /** Minimum confidence of the chosen alternative. */
  threshold: number;
}

export interface FixOutcome {
  envelope: DiagnosticEnvelope;
  label?: string;
  applied: boolean;
  reason?: string;
}

export function parseUnifiedDiff(diff: string): Hunk[] {
  const hunks: Hunk[] = [];
  let file = '';
  let current: Hunk | undefined;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) {
      file = line.slice(4).replace(/^b\//, '').replace(/\t.*$/, '');
      continue;
    }
    if (line.startsWith('--- ')) continue;
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (m) {
      current = { file, oldStart: Number(m[1]), oldLines: [], newLines: [] };
      hunks.push(current);
      continue;
    }
    if (!current) continue;
    if (line.startsWith('-')) current.oldLines.push(line.slice(1));
    else if (line.startsWith('+')) current.newLines.push(line.slice(1));
    else if (line.startsWith(' ')) {
      current.oldLines.push(line.slice(1));
      current.newLines.push(line.slice(1));
    }
  }
  return hunks;
}

function chooseAlternative(env: DiagnosticEnvelope, choice: ApplyChoice) {
  const alts = env.fix?.alternatives ?? [];
  if (alts.length === 0) return { reason: 'no fix' };
  const alt = choice.alternative !== undefined ? alts[choice.alternative] : [...alts].sort((a, b) => b.confidence - a.confidence)[0];
  if (!alt) return { reason: `no alternative ${choice.alternative}` };
  if (alt.confidence < choice.threshold) return { reason: `confidence ${alt.confidence} is below the threshold ${choice.threshold}` };
  return { alt };
}

export function applyEnvelopes(envelopes: readonly DiagnosticEnvelope[], choice: ApplyChoice): FixOutcome[] {
  const outcomes: FixOutcome[] = [];
  const byFile = new Map<string, Array<{ hunk: Hunk; outcome: FixOutcome }>>();
  for (const envelope of envelopes) {
    if (choice.code && envelope.code !== choice.code) continue;
    const picked = chooseAlternative(envelope, choice);
    const outcome: FixOutcome = { envelope, label: picked.alt?.label, applied: false, reason: picked.reason };
    outcomes.push(outcome);
    if (!picked.alt) continue;
    const hunks = parseUnifiedDiff(picked.alt.diff);
    if (hunks.length === 0) {
      outcome.reason = 'the diff has no hunks';
      continue;
    }
    for (const hunk of hunks) {
      const file = hunk.file || envelope.span.file;
      const list = byFile.get(file) ?? [];
      list.push({ hunk: { ...hunk, file }, outcome });
      byFile.set(file, list);
    }
  }
  for (const [file, entries] of byFile) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      for (const e of entries) e.outcome.reason = `cannot read ${file}: ${(err as Error).message}`;
      continue;
    }
    const endsWithNewline = text.endsWith('\n');
    const lines = (endsWithNewline ? text.slice(0, -1) : text).split('\n');
    entries.sort((a, b) => b.hunk.oldStart - a.hunk.oldStart);
    let lowestTouched = Infinity;
    for (const { hunk, outcome } of entries) {
      if (outcome.reason) continue; // another hunk of this envelope already failed
      const start = hunk.oldStart - 1;
      const end = start + hunk.oldLines.length;
      if (end > lowestTouched) {
        outcome.reason = 'overlaps another fix applied to the same lines';
        continue;
      }
      const found = lines.slice(start, end);
      if (found.length !== hunk.oldLines.length || found.some((l, i) => l !== hunk.oldLines[i])) {
        outcome.reason = `the old lines at ${file}:${hunk.oldStart} do not match (stale diff)`;
        continue;
      }
      lines.splice(start, hunk.oldLines.length, ...hunk.newLines);
      lowestTouched = start;
      outcome.applied = true;
    }
    if (entries.some((e) => e.outcome.applied)) writeFileAtomic(file, `${lines.join('\n')}${endsWithNewline ? '\n' : ''}`);
  }
  // An envelope is applied only if every hunk of it went in.
  for (const o of outcomes) if (o.reason) o.applied = false;
  return outcomes;
}
