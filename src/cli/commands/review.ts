import { terminalSafe, oneLine, jsonForTerminal } from '../../core/text/terminal-safe.js';
import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { loadConfig } from '../../core/config/config.js';
import { usageError, TapedeckError } from '../../core/diagnostics/errors.js';
import { acceptPending, findPending, rejectPending, type PendingGolden } from '../../core/golden/pending.js';
import { unifiedDiff } from '../../replayer/protocol/compare.js';
import { parseArgs } from 'node:util';
import { within } from '../../core/files/project-bounds.js';
import { defineCommand, type CommandContext, type OptionSpecs } from '../command.js';
import type { CliIO } from '../io.js';
import { goldenPaths } from '../../core/golden/paths.js';
import { reviewRoots } from '../../core/golden/roots.js';

const options = {
  accept: { type: 'boolean', default: false, help: 'accept the pending goldens named (golden paths or folders), or "all"' },
  reject: { type: 'boolean', default: false, help: 'reject (remove) the pending candidates named, or "all"' },
  json: { type: 'boolean', default: false, help: 'the pending goldens as one JSON result envelope on stdout' },
} satisfies OptionSpecs;

export const command = defineCommand({
  name: 'review',
  summary: 'list pending goldens (.new) with their diffs; accept or reject them',
  usage: ['[PATH...] [--accept all|GOLDEN...] [--reject all|GOLDEN...] [--json]'],
  description: `Lists the pending goldens (<golden>.new left by a failed test or replay) under PATH (default: the
goldens folder) with their diffs, and accepts or rejects them: interactively when stdin is a terminal,
or with --accept / --reject for CI bots and agents: the goldens (or folders) named after the flag, and
only those, or "all" for everything under PATH.`,
  options,
  run: review,
});

async function review({ values, positionals, argv, io }: CommandContext<typeof options>): Promise<number> {
  if (values.accept && values.reject) throw usageError('review: --accept and --reject go in separate runs');
  // PATHs before --accept/--reject say where to look (default: the goldens folder); those after it name
  // what to act on (goldens or folders, or "all" for everything where it looks), and only those.
  const acting = values.accept || values.reject;
  const root = loadConfig(undefined, io.cwd).goldens ?? 'goldens';
  const { scope, targets } = acting ? splitAtFlag(argv, positionals) : { scope: positionals, targets: [] };
  if (acting && targets.length === 0) throw usageError(`review: say what to ${values.accept ? 'accept' : 'reject'}: golden paths, or "all"`);
  const named = targets.filter((p) => p !== 'all');
  for (const target of named) {
    if (!existsSync(resolve(io.cwd, target)) && !existsSync(goldenPaths(resolve(io.cwd, target)).candidate)) throw usageError(`review: ${target}: no such golden or pending candidate`);
    if (scope.length && !scope.some((s) => within(resolve(io.cwd, s), resolve(io.cwd, target)))) throw usageError(`review: ${target} is not under ${scope.join(', ')}`);
  }
  const paths = named.length ? named : scope;
  // No folder given: the goldens of every vitest project root a run left candidates in, from any folder.
  const found = paths.length ? undefined : reviewRoots(io.cwd, root, { withinPackage: Boolean(acting) });
  const pending = findPending((found ? found.roots : paths).map((r) => resolve(io.cwd, r)));

  if (values.json) {
    io.stdout.write(`${jsonForTerminal({ ok: true, command: 'review', timestamp: new Date().toISOString(), result: { pending: pending.map((p) => describe(p, io.cwd)) } })}\n`);
    if (!acting) return 0;
  }
  if (acting) {
    if (pending.length === 0) {
      // Named paths with nothing to act on are a mistake a bot must see; "all" over the goldens folder is not.
      io.stderr.write(`tapedeck review: nothing pending${paths.length ? ` under ${paths.join(', ')}` : ''}\n`);
      return paths.length === 0 ? 0 : 1;
    }
    let refused = 0;
    for (const p of pending) {
      const name = relative(io.cwd, p.golden);
      try {
        const done = values.accept ? acceptPending(p) : rejectPending(p);
        io.stderr.write(done ? `${values.accept ? 'accepted' : 'rejected'} ${name}\n` : `${name}: already accepted or rejected by another review\n`);
      } catch (err) {
        if (!(err instanceof TapedeckError)) throw err;
        refused++; // e.g. a golden that links out of the project: the others still go
        io.stderr.write(`tapedeck review: ${oneLine(err.location?.file === p.golden ? `${name}: ${err.message}` : err.describe())}\n`);
      }
    }
    return refused ? 2 : 0;
  }
  if (pending.length === 0) {
    const looked = found ? `; looked in ${found.lookedIn.map((d) => relative(io.cwd, d) || '.').join(', ')}` : '';
    io.stderr.write(`tapedeck review: nothing pending${looked}\n`);
    return 0;
  }
  if (!io.stdin?.isTTY) {
    for (const p of pending) io.stdout.write(`${terminalSafe(showDiff(p, io.cwd))}\n`); // diffs quote tapes and live output
    io.stderr.write(`tapedeck review: ${pending.length} pending golden(s); accept with --accept PATH|all, reject with --reject PATH|all\n`);
    return 0;
  }
  return interactive(pending, io);
}

/** The positionals before the first --accept/--reject (where to look) and after it (what to act on). */
function splitAtFlag(argv: string[], positionals: string[]): { scope: string[]; targets: string[] } {
  const { tokens } = parseArgs({ args: argv, options: parseConfig, strict: false, allowPositionals: true, tokens: true });
  const flag = tokens.findIndex((t) => t.kind === 'option' && (t.name === 'accept' || t.name === 'reject'));
  const before = tokens.slice(0, flag).filter((t) => t.kind === 'positional').length;
  return { scope: positionals.slice(0, before), targets: positionals.slice(before) };
}

const parseConfig = Object.fromEntries(Object.entries({ ...options, help: { type: 'boolean' } }).map(([k, v]) => [k, { type: v.type }])) as Record<string, { type: 'boolean' | 'string' }>;

function describe(p: PendingGolden, cwd: string) {
  return { golden: relative(cwd, p.golden), candidate: relative(cwd, p.candidate), artifacts: p.artifacts.map((a) => relative(cwd, a)), new: p.isNew };
}

function showDiff(p: PendingGolden, cwd: string): string {
  const name = relative(cwd, p.golden);
  if (p.golden.endsWith('.png')) {
    const extra = p.artifacts.length ? `\n  see ${p.artifacts.map((a) => relative(cwd, a)).join(', ')}` : '';
    return `== ${name} (image${p.isNew ? ', new' : ''}): candidate ${relative(cwd, p.candidate)}${extra}`;
  }
  const before = p.isNew ? '' : readFileSync(p.golden, 'utf8');
  const after = readFileSync(p.candidate, 'utf8');
  return `== ${name}${p.isNew ? ' (new)' : ''}\n${unifiedDiff(before, after, `a/${name}`, `b/${name}`).join('\n')}`;
}

async function interactive(pending: PendingGolden[], io: CliIO): Promise<number> {
  const rl = createInterface({ input: io.stdin!, output: io.stderr as NodeJS.WritableStream });
  try {
    for (const [i, p] of pending.entries()) {
      io.stderr.write(`\n[${i + 1}/${pending.length}] ${terminalSafe(showDiff(p, io.cwd))}\n`);
      for (;;) {
        const answer = (await rl.question('accept this change? [y]es, [n]o (reject), [s]kip, [q]uit: ')).trim().toLowerCase();
        if (answer === 'y' || answer === 'yes') acceptPending(p);
        else if (answer === 'n' || answer === 'no') rejectPending(p);
        else if (answer === 'q' || answer === 'quit') return 0;
        else if (answer !== 's' && answer !== 'skip') continue;
        break;
      }
    }
  } finally {
    rl.close();
  }
  return 0;
}
