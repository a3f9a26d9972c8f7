import { terminalSafe } from '../../core/text/terminal-safe.js';
import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { loadConfig } from '../../core/config/config.js';
import { usageError } from '../../core/diagnostics/errors.js';
import { acceptPending, findPending, rejectPending, type PendingGolden } from '../../core/golden/pending.js';
import { unifiedDiff } from '../../replayer/protocol/compare.js';
import { defineCommand, type CommandContext, type OptionSpecs } from '../command.js';
import type { CliIO } from '../io.js';
import { goldenPaths } from '../../core/golden/paths.js';

const options = {
  accept: { type: 'boolean', default: false, help: 'accept the pending goldens named (golden paths or folders), or "all"' },
  reject: { type: 'boolean', default: false, help: 'reject (remove) the pending candidates named, or "all"' },
  json: { type: 'boolean', default: false, help: 'the pending goldens as one JSON result envelope on stdout' },
} satisfies OptionSpecs;

export const command = defineCommand({
  name: 'review',
  summary: 'list pending goldens (.new) with their diffs; accept or reject them',
  usage: ['[PATH...] [--accept all|PATH...] [--reject all|PATH...] [--json]'],
  description: `Lists the pending goldens (<golden>.new left by a failed test or replay) under PATH (default: the
goldens folder) with their diffs, and accepts or rejects them: interactively when stdin is a terminal,
or with --accept / --reject for CI bots and agents (give golden paths, or "all").`,
  options,
  run: review,
});

async function review({ values, positionals, io }: CommandContext<typeof options>): Promise<number> {
  if (values.accept && values.reject) throw usageError('review: --accept and --reject go in separate runs');
  // With --accept/--reject the positionals name what to act on: goldens or folders, and "all" for
  // everything under them (under the goldens folder when "all" is alone).
  const acting = values.accept || values.reject;
  const root = loadConfig(undefined, io.cwd).goldens ?? 'goldens';
  const targets = acting ? positionals : [];
  const paths = positionals.filter((p) => p !== 'all');
  const roots = paths.length ? paths : [root];
  for (const target of targets) {
    if (target !== 'all' && !existsSync(resolve(io.cwd, target)) && !existsSync(goldenPaths(resolve(io.cwd, target)).candidate)) throw usageError(`review: ${target}: no such golden or pending candidate`);
  }
  const pending = findPending(roots.map((r) => resolve(io.cwd, r)));
  if (acting && targets.length === 0) throw usageError(`review: say what to ${values.accept ? 'accept' : 'reject'}: golden paths, or "all"`);

  if (values.json) {
    io.stdout.write(`${JSON.stringify({ ok: true, command: 'review', timestamp: new Date().toISOString(), result: { pending: pending.map((p) => describe(p, io.cwd)) } })}\n`);
    if (!acting) return 0;
  }
  if (acting) {
    if (pending.length === 0) {
      // Named paths with nothing to act on are a mistake a bot must see; "all" over the goldens folder is not.
      io.stderr.write(`tapedeck review: nothing pending${paths.length ? ` under ${paths.join(', ')}` : ''}\n`);
      return paths.length === 0 ? 0 : 1;
    }
    for (const p of pending) {
      if (values.accept) acceptPending(p);
      else rejectPending(p);
      io.stderr.write(`${values.accept ? 'accepted' : 'rejected'} ${relative(io.cwd, p.golden)}\n`);
    }
    return 0;
  }
  if (pending.length === 0) {
    io.stderr.write('tapedeck review: nothing pending\n');
    return 0;
  }
  if (!io.stdin?.isTTY) {
    for (const p of pending) io.stdout.write(`${terminalSafe(showDiff(p, io.cwd))}\n`); // diffs quote tapes and live output
    io.stderr.write(`tapedeck review: ${pending.length} pending golden(s); accept with --accept PATH|all, reject with --reject PATH|all\n`);
    return 0;
  }
  return interactive(pending, io);
}

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
