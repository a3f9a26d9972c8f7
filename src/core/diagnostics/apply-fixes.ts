import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../files/atomic-write.js';
import { withFileLock } from '../files/file-lock.js';
import { TapedeckError } from './errors.js';
import { refuseSpecialFile } from '../files/special-file.js';
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
  /** Minimum confidence of the chosen alternative (per envelope when a function). */
  threshold: number | ((envelope: DiagnosticEnvelope) => number);
}

export interface FixOutcome {
  envelope: DiagnosticEnvelope;
  label?: string;
  applied: boolean;
  reason?: string;
}

function sameHunk(a: Hunk, b: Hunk): boolean {
  return a.oldStart === b.oldStart && a.oldLines.join('\n') === b.oldLines.join('\n') && a.newLines.join('\n') === b.newLines.join('\n');
}

function overlaps(a: Hunk, b: Hunk): boolean {
  const aEnd = a.oldStart + Math.max(a.oldLines.length, 1);
  const bEnd = b.oldStart + Math.max(b.oldLines.length, 1);
  return a.oldStart < bEnd && b.oldStart < aEnd;
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
  const threshold = typeof choice.threshold === 'function' ? choice.threshold(env) : choice.threshold;
  if (alt.confidence < threshold) return { reason: `confidence ${alt.confidence} is below the threshold ${threshold}` };
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
    // Read, decide and write under the file's lock: a parallel writer's lines are matched, not overwritten.
    withFileLock(file, () => {
      let text: string;
      try {
        refuseSpecialFile(file);
        text = readFileSync(file, 'utf8');
      } catch (err) {
        for (const e of entries) e.outcome.reason ??= `cannot read ${file}: ${(err as Error).message}`;
        return;
      }
      const endsWithNewline = text.endsWith('\n');
      const original = (endsWithNewline ? text.slice(0, -1) : text).split('\n');
      // First decide, against the file as it is, which envelopes go in whole:
      // every hunk's old lines must match, and none may overlap a hunk already taken
      // (an identical hunk, as two drifts of one pair carry, counts as taken).
      const taken: Hunk[] = [];
      const byEnvelope = new Map<FixOutcome, Hunk[]>();
      for (const e of entries) byEnvelope.set(e.outcome, [...(byEnvelope.get(e.outcome) ?? []), e.hunk]);
      for (const [outcome, hunks] of byEnvelope) {
        if (outcome.reason) continue;
        const fresh: Hunk[] = [];
        for (const hunk of hunks) {
          const found = original.slice(hunk.oldStart - 1, hunk.oldStart - 1 + hunk.oldLines.length);
          if (found.length !== hunk.oldLines.length || found.some((l, i) => l !== hunk.oldLines[i])) {
            outcome.reason = `the old lines at ${file}:${hunk.oldStart} do not match (stale diff)`;
            break;
          }
          if (taken.some((t) => sameHunk(t, hunk))) continue;
          if (taken.some((t) => overlaps(t, hunk)) || fresh.some((t) => overlaps(t, hunk))) {
            outcome.reason = 'overlaps another fix applied to the same lines';
            break;
          }
          fresh.push(hunk);
        }
        if (outcome.reason) continue;
        taken.push(...fresh);
        outcome.applied = true;
      }
      if (taken.length === 0) return;
      // Then splice, highest line first, so earlier anchors stay where they were.
      const lines = [...original];
      for (const hunk of [...taken].sort((a, b) => b.oldStart - a.oldStart)) lines.splice(hunk.oldStart - 1, hunk.oldLines.length, ...hunk.newLines);
      try {
        writeFileAtomic(file, `${lines.join('\n')}${endsWithNewline ? '\n' : ''}`);
      } catch (err) {
        // Refused (a link out of the project) or failed: this file's envelopes are not applied; the others go on.
        if (!(err instanceof TapedeckError)) throw err;
        for (const e of entries) e.outcome.reason ??= err.message;
      }
    });
  }
  // An envelope is applied only if every hunk of it went in.
  for (const o of outcomes) if (o.reason) o.applied = false;
  return outcomes;
}
