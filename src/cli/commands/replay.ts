import { availableParallelism } from 'node:os';
import { parseBoundary } from '../../core/boundary.js';
import { usageError } from '../../core/errors.js';
import { driftToEnvelope } from '../../replayer/envelopes.js';
import { parseShard, replayProtocolTapes } from '../../replayer/run.js';
import { parseIntOption, parseOptions, splitCommand } from '../args.js';
import { buildNormaliser, normaliserOptionSpec } from '../normaliser-options.js';
import { formatReplayText } from '../report-text.js';

const HELP = `usage: tapedeck replay TAPE... [options] -- CMD ARGS...

Replays each tape against a fresh CMD and compares every response with the recorded one.
Exit 0: no drift; 1: drift; 2: bad input, unreadable tape, or CMD cannot start.

options:
  --boundary RULE      auto (default), done, jsonrpc, idle:MS
  --timeout-ms N       a response not complete after N ms is drift (default 10000)
  --ignore JSONPATH    ignore a volatile JSON value on both sides (repeatable)
  --filter RE=REPL     rewrite volatile bytes on both sides before comparing (repeatable)
  --config FILE        normalisers and defaults (default ./tapedeck.config.json if present)
  --update             rewrite drifted pairs with the live responses (atomically)
  --redact-env NAME    redact NAME's value in rewritten responses (repeatable)
  --jobs N             tapes replayed at once (default: number of cores)
  --shard i/n          replay only shard i of n of the sorted tapes
  --json               one seed-001 drift envelope per drift on stdout, then a summary line
`;

export async function run(argv: string[]): Promise<number> {
  const { own, command } = splitCommand(argv);
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { values, positionals } = parseOptions('replay', own, {
    ...normaliserOptionSpec,
    boundary: { type: 'string' },
    'timeout-ms': { type: 'string' },
    update: { type: 'boolean', default: false },
    'redact-env': { type: 'string', multiple: true, default: [] },
    jobs: { type: 'string' },
    shard: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  if (positionals.length === 0) throw usageError('replay: give at least one tape (paths or globs)');
  const cast = positionals.find((p) => /\.cast$/i.test(p));
  if (cast) throw usageError(`replay: ${cast} is a terminal tape; terminal replay is not available in this version (protocol tapes: .ndjson, .jsonl)`);
  if (command.length === 0) throw usageError('replay: give the server command after --, e.g. tapedeck replay tape.ndjson -- node server.js');
  const { normaliser, config } = buildNormaliser(values);
  const result = await replayProtocolTapes(positionals, {
    command,
    boundary: values.boundary ? parseBoundary(values.boundary) : config.boundary,
    timeoutMs: parseIntOption('timeout-ms', values['timeout-ms'], config.timeoutMs ?? 10_000, 1),
    normaliser,
    update: values.update,
    redactEnv: values['redact-env'],
    jobs: parseIntOption('jobs', values.jobs, availableParallelism(), 1),
    shard: values.shard ? parseShard(values.shard) : undefined,
  });
  if (values.json) {
    for (const tape of result.tapes) for (const d of tape.drifts) process.stdout.write(`${JSON.stringify(driftToEnvelope(d))}\n`);
    const pairs = result.tapes.reduce((n, t) => n + t.pairs.length, 0);
    process.stdout.write(
      `${JSON.stringify({ kind: 'summary', tapes: result.tapes.length, pairs, drifts: result.driftCount, updated_pairs: result.tapes.reduce((n, t) => n + t.updatedPairs, 0), exit_code: result.exitCode, duration_ms: Math.round(result.durationMs) })}\n`,
    );
  }
  process.stderr.write(formatReplayText(result, { color: process.stderr.isTTY === true && !process.env.NO_COLOR }));
  return result.exitCode;
}
