import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ARTIFACT_SUFFIX } from '../core/golden/paths.js';
import { displayPath, goldenFolderOf, goldenRoot, ownerlessFiles, updatePolicyFor, usedGoldens, type MatcherStateLike } from './context.js';
import { recordObsolete } from './summary.js';

interface TaskLike {
  type?: string;
  mode?: string;
  result?: { state?: string };
  tasks?: TaskLike[];
  file?: { filepath?: string };
  filepath?: string;
}

/** A partial run (-t, .only, skips) or a failure proves nothing about which goldens are used. */
export function allTestsRanAndPassed(task: TaskLike): boolean {
  if (task.mode && task.mode !== 'run') return false;
  if (task.type === 'test' && task.result?.state !== 'pass') return false;
  return (task.tasks ?? []).every(allTestsRanAndPassed);
}

/** Only the kinds of file the matchers write can be obsolete; a user's own files (tapes, fixtures) never are. */
const GOLDEN_KINDS = /\.(txt|png|ndjson)$/;

/**
 * After a test file ran in full and passed, goldens in its folder that no
 * assertion used are obsolete: reported, and removed under -u. A partial run
 * (-t, .only, skips) or a failure proves nothing, so it reports nothing.
 */
export function reportObsoleteGoldens(suite: TaskLike): string[] {
  const state = expect.getState() as MatcherStateLike;
  if (!allTestsRanAndPassed(suite) || !state.testPath) return [];
  // An assertion whose test could not be told: what it would have used is unknown, so nothing is obsolete.
  if (ownerlessFiles.has(state.testPath)) return [];
  const folder = goldenFolderOf(state.testPath);
  if (!existsSync(folder) || !folder.startsWith(goldenRoot(state.testPath))) return [];
  const obsolete = readdirSync(folder)
    .map((name) => join(folder, name))
    .filter((p) => statSync(p).isFile() && GOLDEN_KINDS.test(p) && !ARTIFACT_SUFFIX.test(p) && !usedGoldens.has(p));
  if (obsolete.length === 0) return [];
  const remove = updatePolicyFor(state).mode === 'all';
  for (const p of obsolete) if (remove) rmSync(p, { force: true });
  recordObsolete(obsolete.length, remove);
  const list = obsolete.map((p) => `  ${displayPath(p)}`).join('\n');
  process.stderr.write(
    remove
      ? `tapedeck: removed ${obsolete.length} obsolete golden(s) no test uses:\n${list}\n`
      : `tapedeck: ${obsolete.length} obsolete golden(s) no test in this file uses (remove them with vitest -u):\n${list}\n`,
  );
  return obsolete;
}
