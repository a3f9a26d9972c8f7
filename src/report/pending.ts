import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Drift } from '../core/diagnostics/drift.js';
import { findPending } from '../core/golden/pending.js';
import type { ReportRun, ReportTape } from './html.js';

/**
 * `tapedeck report --out r.html PATH...` over a vitest run's leftovers: every
 * golden under PATH with a pending candidate (`<golden>.new`) or a failed
 * screenshot (`<name>.actual.png`) becomes a section of the same HTML report
 * as tape drift: screens and protocol exchanges golden against candidate,
 * screenshots expected, actual and diff with the slider and the blend.
 */
const SKIP = new Set(['node_modules', '.git', 'dist']);

/** Goldens with a failed screenshot and no `.new` (on CI nothing is written but the images). */
function actualImages(root: string, into: Set<string>): void {
  let st;
  try {
    st = statSync(root);
  } catch {
    return;
  }
  if (!st.isDirectory()) {
    if (root.endsWith('.actual.png')) into.add(`${root.slice(0, -'.actual.png'.length)}.png`);
    return;
  }
  for (const name of readdirSync(root)) if (!SKIP.has(name)) actualImages(join(root, name), into);
}

const read = (p: string) => (existsSync(p) ? readFileSync(p) : undefined);

/** The report of the pending goldens under `paths`, or undefined when there are none. */
export function pendingReport(paths: readonly string[], cwd: string): ReportRun | undefined {
  const roots = paths.map((p) => resolve(cwd, p));
  const goldens = new Map<string, string | undefined>(); // golden -> candidate
  for (const p of findPending(roots)) goldens.set(p.golden, p.candidate);
  const images = new Set<string>();
  for (const r of roots) actualImages(r, images);
  for (const g of images) if (!goldens.has(g)) goldens.set(g, undefined);
  if (goldens.size === 0) return undefined;
  const tapes: ReportTape[] = [...goldens.keys()].sort().map((golden) => {
    const candidate = goldens.get(golden);
    const shown = relative(cwd, golden) || golden;
    if (golden.endsWith('.png')) {
      const stem = golden.slice(0, -'.png'.length);
      const actual = (candidate && read(candidate)) || read(`${stem}.actual.png`);
      const drift = pendingDrift(golden, shown, 'TD1106', existsSync(golden) ? 'screenshot differs from its golden' : 'new screenshot golden', '', undefined);
      return { tape: shown, kind: 'terminal', durationMs: 0, units: 1, drifts: [drift], screenshots: [{ label: shown, expected: read(golden), actual, diff: read(`${stem}.diff.png`) }] };
    }
    const before = existsSync(golden) ? readFileSync(golden, 'utf8') : '';
    const after = candidate ? readFileSync(candidate, 'utf8') : '';
    const protocol = golden.endsWith('.ndjson');
    const title = existsSync(golden) ? `${protocol ? 'exchange' : 'screen'} differs from its golden` : `new golden`;
    const drift = pendingDrift(golden, shown, protocol ? 'TD1001' : 'TD1102', title, before, after, candidate ? relative(cwd, candidate) : undefined);
    return { tape: shown, kind: protocol ? 'protocol' : 'terminal', durationMs: 0, units: 1, drifts: [drift] };
  });
  return { title: 'tapedeck pending goldens', startedAt: new Date(), durationMs: 0, tapes };
}

function pendingDrift(golden: string, shown: string, code: Drift['code'], title: string, expected: string, actual: string | undefined, candidate?: string): Drift {
  return {
    code,
    tape: shown,
    line: 1,
    byteStart: 0,
    byteEnd: 0,
    pair: 1,
    request: candidate ? `candidate ${candidate}` : shown,
    recordedLine: '',
    title,
    details: [`golden ${golden}`],
    expected,
    actual,
  };
}
