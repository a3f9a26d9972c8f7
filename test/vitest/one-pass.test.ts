/**
 * A protocol replay and a toMatchScreen call each pass through their steps
 * once: the tape is found, read, prepared, compared and settled once per tape,
 * the golden is located, read and settled once per call. Counted with V8's
 * precise coverage (call counts per function), in this process.
 */
import { Session } from 'node:inspector/promises';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { replayTapes, spawnTerminal } from '../../src/index.js';
import '../../src/matchers/index.js';
import { AGENT_SERVER, ROOT, useTempDirs } from '../helpers/cli.js';

const session = new Session();
beforeAll(async () => {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
});
afterAll(async () => {
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
});

/** How often each function of src/ ran while `work` ran, keyed "folder/file.ts:name". */
async function callsDuring(work: () => Promise<unknown>): Promise<Map<string, number>> {
  await session.post('Profiler.takePreciseCoverage'); // resets the counters
  await work();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const calls = new Map<string, number>();
  for (const script of result) {
    const file = /\/src\/(.+\.ts)/.exec(script.url)?.[1];
    if (!file) continue;
    for (const fn of script.functions) {
      const count = fn.ranges[0]?.count ?? 0;
      if (fn.functionName && count > 0) calls.set(`${file}:${fn.functionName}`, (calls.get(`${file}:${fn.functionName}`) ?? 0) + count);
    }
  }
  return calls;
}

const temp = useTempDirs();

describe('one pass', () => {
  test('a protocol replay of two tapes finds them once and reads, prepares, compares and accepts each once', async () => {
    const dir = temp();
    for (const name of ['a.ndjson', 'b.ndjson']) copyFileSync(join(ROOT, 'goldens/agent-server.ndjson'), join(dir, name));
    let clean = false;
    const calls = await callsDuring(async () => {
      const run = await replayTapes([join(dir, '*.ndjson')], { command: AGENT_SERVER, jobs: 1 });
      clean = run.tapes.length === 2 && run.exitCode === 0;
    });
    expect(clean).toBe(true);
    const n = (fn: string) => calls.get(fn) ?? 0;
    expect(n('replayer/run.ts:selectShard'), 'tapes listed and sharded once').toBe(1);
    expect(n('tape/protocol/tape.ts:TapeLines'), 'each tape read once').toBe(2);
    expect(n('replayer/protocol/prepare.ts:splitSessions'), 'each tape prepared once').toBe(2);
    const pairs = n('core/text/normalise.ts:forRequest');
    expect(pairs, 'one normaliser per pair').toBe(14); // 7 pairs in each of the two tapes
    expect(n('core/text/redact.ts:restore'), 'secrets restored once per request and once per response').toBe(2 * pairs);
    expect(n('replayer/scratch.ts:openScratch'), 'one scratch decision per tape').toBe(2);
    expect(n('replayer/protocol/compare.ts:comparePairs'), 'each tape compared once').toBe(2);
    expect(n('replayer/protocol/accept.ts:acceptLive'), 'each tape accepted once').toBe(2);
  });

  test('toReplayCleanly on a protocol tape reads and prepares it once (the transport it names included)', async () => {
    const tape = join(temp(), 'agent.ndjson');
    copyFileSync(join(ROOT, 'goldens/agent-server.ndjson'), tape);
    const calls = await callsDuring(() => expect(tape).toReplayCleanly(AGENT_SERVER));
    const n = (fn: string) => calls.get(fn) ?? 0;
    expect(n('tape/protocol/tape.ts:TapeLines'), 'the tape read once').toBe(1);
    expect(n('replayer/protocol/prepare.ts:splitSessions'), 'prepared once').toBe(1);
    expect(n('replayer/protocol/compare.ts:comparePairs'), 'compared once').toBe(1);
  });

  test('toMatchScreen locates, reads and settles its golden once per call', async () => {
    const term = spawnTerminal('sh', ['-c', 'printf "one pass\\n"; exec cat'], { rows: 4, cols: 20 });
    await expect(term).toContainText('one pass');
    const calls = await callsDuring(() => expect(term).toMatchScreen());
    const n = (fn: string) => calls.get(fn) ?? 0;
    expect(n('matchers/context.ts:updatePolicyFor'), 'update mode resolved once').toBe(1);
    expect(n('matchers/context.ts:nextGoldenPath'), 'golden path derived once').toBe(1);
    // Two functions are named read: GoldenStore.read and the file IO beneath it, once each.
    expect(n('core/golden/store.ts:read'), 'golden read once').toBe(2);
    expect(n('core/golden/store.ts:settle'), 'one settle decision').toBe(1);
    expect(n('render/golden-text.ts:formatScreenGolden'), 'captures until it matches: at least one').toBeGreaterThanOrEqual(1);
  });
});
