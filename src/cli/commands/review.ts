import { terminalSafe } from '../../core/terminal-safe.js';
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { loadConfig } from '../../core/config.js';
import { usageError } from '../../core/errors.js';
import { acceptPending, findPending, rejectPending, type PendingGolden } from '../../core/pending.js';
import { unifiedDiff } from '../../replayer/compare.js';
import { parseOptions } from '../args.js';
import { goldenPaths } from '../../core/golden-paths.js';

const HELP = `usage: tapedeck review [PATH...] [--accept all|PATH...] [--reject all|PATH...] [--json]

Lists the pending goldens (<golden>.new left by a failed test or replay) under PATH (default: the
goldens folder) with their diffs, and accepts or rejects them: interactively when stdin is a terminal,
or with --accept / --reject for CI bots and agents (give golden paths, or "all").
`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { values, positionals } = parseOptions('review', argv, {
    accept: { type: 'boolean', default: false },
    reject: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  });
  if (values.accept && values.reject) throw usageError('review: --accept and --reject go in separate runs');
  // With --accept/--reject the positionals name what to act on: goldens or folders, and "all" for
  // everything under them (under the goldens folder when "all" is alone).
  const acting = values.accept || values.reject;
  const root = loadConfig().goldens ?? 'goldens';
  const targets = acting ? positionals : [];
  const paths = positionals.filter((p) => p !== 'all');
  const roots = paths.length ? paths : [root];
  for (const target of targets) {
    if (target !== 'all' && !existsSync(target) && !existsSync(goldenPaths(target).candidate)) throw usageError(`review: ${target}: no such golden or pending candidate`);
  }
  const pending = findPending(roots);
  if (acting && targets.length === 0) throw usageError(`review: say what to ${values.accept ? 'accept' : 'reject'}: golden paths, or "all"`);

  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ok: true, command: 'review', timestamp: new Date().toISOString(), result: { pending: pending.map(describe) } })}\n`);
    if (!acting) return 0;
  }
  if (acting) {
    if (pending.length === 0) {
      // Named paths with nothing to act on are a mistake a bot must see; "all" over the goldens folder is not.
      process.stderr.write(`tapedeck review: nothing pending${paths.length ? ` under ${paths.join(', ')}` : ''}\n`);
      return paths.length === 0 ? 0 : 1;
    }
    for (const p of pending) {
      if (values.accept) acceptPending(p);
      else rejectPending(p);
      process.stderr.write(`${values.accept ? 'accepted' : 'rejected'} ${relative(process.cwd(), p.golden)}\n`);
    }
    return 0;
  }
  if (pending.length === 0) {
    process.stderr.write('tapedeck review: nothing pending\n');
    return 0;
  }
  if (!process.stdin.isTTY) {
    for (const p of pending) process.stdout.write(`${terminalSafe(showDiff(p))}\n`); // diffs quote tapes and live output
    process.stderr.write(`tapedeck review: ${pending.length} pending golden(s); accept with --accept PATH|all, reject with --reject PATH|all\n`);
    return 0;
  }
  return interactive(pending);
}

function describe(p: PendingGolden) {
  return { golden: relative(process.cwd(), p.golden), candidate: relative(process.cwd(), p.candidate), artifacts: p.artifacts.map((a) => relative(process.cwd(), a)), new: p.isNew };
}

function showDiff(p: PendingGolden): string {
  const name = relative(process.cwd(), p.golden);
  if (p.golden.endsWith('.png')) {
    const extra = p.artifacts.length ? `\n  see ${p.artifacts.map((a) => relative(process.cwd(), a)).join(', ')}` : '';
    return `== ${name} (image${p.isNew ? ', new' : ''}): candidate ${relative(process.cwd(), p.candidate)}${extra}`;
  }
  const before = p.isNew ? '' : readFileSync(p.golden, 'utf8');
  const after = readFileSync(p.candidate, 'utf8');
  return `== ${name}${p.isNew ? ' (new)' : ''}\n${unifiedDiff(before, after, `a/${name}`, `b/${name}`).join('\n')}`;
}

async function interactive(pending: PendingGolden[]): Promise<number> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    for (const [i, p] of pending.entries()) {
      process.stderr.write(`\n[${i + 1}/${pending.length}] ${terminalSafe(showDiff(p))}\n`);
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
