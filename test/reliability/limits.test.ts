import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, tapedeck, useTempDirs } from '../helpers/cli.js';
import { explainDifference } from '../../src/replayer/protocol/compare.js';
import { jsonDepth } from '../../src/core/config/limits.js';
import { lookaheadScreens, planTerminalReplay } from '../../src/replayer/terminal/plan.js';
import { playCast } from '../../src/session/cast/play.js';

const temp = useTempDirs();

// Loaded into the tapedeck process only: writes its peak resident memory (kB) at exit.
const RSS_PRELOAD = `
if (process.argv[1] === process.env.TAPEDECK_BIN) {
  process.on('exit', () => require('fs').writeFileSync(process.env.RSS_OUT, String(process.resourceUsage().maxRSS)));
}
`;

const NOISY_SERVER = `
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  for (let i; (i = buf.indexOf('\\n')) >= 0; ) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    let out = '';
    if (m.id === 1) for (let k = 0; k < 10000; k++) out += 'debug: step ' + k + ' of the request, with some padding text\\n';
    if (m.id === 2) out += '{"deep":' + '['.repeat(5000) + ']'.repeat(5000) + '}\\n';
    process.stdout.write(out + JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { ok: true } }) + '\\n');
  }
});
`;

function rpcTape(pairs: number, response = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, result: { ok: true } })}\n`): string {
  return Array.from({ length: pairs }, (_, i) => JSON.stringify({ request: JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'ping' }), response: response(i + 1) })).join('\n') + '\n';
}

describe('bounded memory and time', () => {
  it('10,000 unexpected debug lines are one drift with a count and a sample, under 200 MB', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'noisy.cjs'), NOISY_SERVER);
    writeFileSync(join(dir, 'rss.cjs'), RSS_PRELOAD);
    writeFileSync(join(dir, 'noisy.ndjson'), rpcTape(3));
    const rssOut = join(dir, 'rss.txt');
    const r = await tapedeck(['replay', 'noisy.ndjson', '--json', '--', 'node', 'noisy.cjs'], { cwd: dir, env: { NODE_OPTIONS: `--require ${join(dir, 'rss.cjs')}`, RSS_OUT: rssOut, TAPEDECK_BIN: CLI } });
    expect(r.code).toBe(1);
    const envelopes = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind?: string; code?: string; message?: string });
    const drifts = envelopes.filter((e) => e.kind !== 'summary');
    // The 10,000 debug lines of pair 1 and the deep message of pair 2: one drift.
    expect(drifts).toHaveLength(1);
    expect(r.stderr).toContain('10001 unexpected server messages');
    expect(r.stderr).toContain('non-JSON-RPC line ×10001');
    expect(r.stderr).toContain('debug: step 0 of the request');
    expect(r.stderr).not.toContain('debug: step 9999');
    const peakMb = Number(readFileSync(rssOut, 'utf8')) / 1024;
    expect(peakMb).toBeGreaterThan(10);
    expect(peakMb).toBeLessThan(200);
  });

  it('JSON nested past the limit in a tape is exit 2 naming file:line, never a stack trace', async () => {
    const dir = temp();
    const deep = `${'['.repeat(3000)}1${']'.repeat(3000)}`;
    writeFileSync(join(dir, 'deep.ndjson'), rpcTape(1) + JSON.stringify({ request: '{"jsonrpc":"2.0","id":2,"method":"x"}', response: `{"jsonrpc":"2.0","id":2,"result":${deep}}\n` }) + '\n');
    const r = await tapedeck(['replay', 'deep.ndjson', '--', 'node', '-e', ''], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('tapedeck: deep.ndjson:2: the response has a JSON message nested more than 512 levels deep (limit 512; raise it with TAPEDECK_MAX_JSON_DEPTH)\n');
    expect(jsonDepth(deep)).toBe(3000);
    expect(jsonDepth('{"a":"[[[["}')).toBe(1);
  });

  it('a line past the line limit, and /dev/zero as a tape, are exit 2 naming the line', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'long.ndjson'), rpcTape(2) + 'x'.repeat(5000) + '\n');
    const env = { TAPEDECK_MAX_LINE_BYTES: '4096' };
    const long = await tapedeck(['replay', 'long.ndjson', '--', 'node', '-e', ''], { cwd: dir, env });
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/^tapedeck: long\.ndjson:3: line 3 is .* bytes long \(limit 4096; raise it with TAPEDECK_MAX_LINE_BYTES\)\n$/);
    const zero = await tapedeck(['replay', '/dev/zero', '--', 'node', '-e', ''], { cwd: dir, env });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/^tapedeck: \/dev\/zero:1: line 1 is longer than 4096 bytes/);
    const cast = await tapedeck(['snapshot', '/dev/zero'], { cwd: dir, env });
    expect(cast.code).toBe(2);
    expect(cast.stderr).toMatch(/\/dev\/zero:1: line 1 is longer than 4096 bytes/);
  });

  it('responses too large to diff are described by size and first difference, at once', () => {
    const a = `${'a'.repeat(3_000_000)}X${'b'.repeat(2_000_000)}`;
    const b = `${'a'.repeat(3_000_000)}Y${'c'.repeat(2_000_000)}`;
    // How fast is a benchmark's business; here, a line-by-line diff of 5 MB would not come back at all.
    const lines = explainDifference(a, b, a, b);
    expect(lines[0]).toContain('too large to diff line by line (5000001 and 5000001 characters');
    expect(lines[1]).toBe('first difference at character 3000000:');
  });

  it('casts: screen cells, resizes and repeat counts are bounded; each limit names the file and line', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'huge.cast'), '{"version":2,"width":10000,"height":10000}\n[0.1,"o","hi"]\n');
    const huge = await tapedeck(['snapshot', 'huge.cast'], { cwd: dir });
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/^tapedeck: huge\.cast:1: asciicast v2 header: a 10000x10000 screen has 100000000 cells.*TAPEDECK_MAX_SCREEN_CELLS/);

    const resizes = ['{"version":2,"width":80,"height":24}', ...Array.from({ length: 400 }, (_, i) => JSON.stringify([i / 100, 'r', i % 2 ? '1000x1000' : '80x24']))];
    writeFileSync(join(dir, 'resize.cast'), `${resizes.join('\n')}\n`);
    const resize = await tapedeck(['snapshot', 'resize.cast'], { cwd: dir });
    expect(resize.code).toBe(2);
    expect(resize.stderr).toMatch(/^tapedeck: resize\.cast:101: the resizes up to this one allocate 50096000 screen cells/);

    writeFileSync(join(dir, 'rep.cast'), '{"version":2,"width":20,"height":3}\n[0.1,"o","A\\u001b[999999999b"]\n[0.2,"o","\\u001b[HB\\u001b[9999"]\n[0.3,"o","99999b"]\n');
    const started = performance.now();
    const rep = await tapedeck(['snapshot', 'rep.cast'], { cwd: dir });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(rep.code).toBe(0);
    // The screen a full count would leave: every cell filled.
    expect(rep.stdout.split('\n').slice(0, 3)).toEqual(['B'.repeat(20), 'B'.repeat(20), 'B'.repeat(20)]);
  });

  it('a tiny cast that resizes to 1000x1000 and repeats a character millions of times costs a few screen reads, each bounded', async () => {
    // The fuzz run's slowest casts (12-16 s): each read of a million-cell screen made a string per cell,
    // and the plan read it after every output that followed an input. Now a read is one string per line,
    // a REP stays cut to a screenful plus a line, and a huge screen keeps fewer later screens per input.
    expect(lookaheadScreens(24, 80)).toBe(32);
    expect(lookaheadScreens(1000, 1000)).toBe(8);
    const dir = temp();
    const later = Array.from({ length: 12 }, (_, k) => JSON.stringify([0.4 + k / 100, 'o', `\u001b[H${k}`]));
    const lines = ['{"version":2,"width":80,"height":24}', '[0.1,"r","1000x1000"]', '[0.2,"o","A\\u001b[999999999b"]', '[0.3,"i","x"]', ...later];
    writeFileSync(join(dir, 'big.cast'), `${lines.join('\n')}\n`);
    const plan = await planTerminalReplay(join(dir, 'big.cast'), { command: ['true'] });
    const input = plan.steps.find((s) => s.kind === 'input')!;
    expect(input.accepted).toHaveLength(8); // the screen before it, then 7 of the 12 that followed
    const end = plan.steps.at(-1)!.expected.split('\n');
    expect(end[0]).toMatch(/cols=1000 rows=1000 cursor=0,2 /);
    expect(end[1]).toBe(`11${'A'.repeat(998)}│`);
    expect(end[1000]).toBe(`${'A'.repeat(1000)}│`);
    const played = await playCast(join(dir, 'big.cast'), undefined, { scrollback: 0 });
    expect(played.screen.visibleLines()[999]).toBe('A'.repeat(1000));
    played.screen.dispose();
  });

  it('a screenshot too large to render is refused before anything is drawn', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'tall.cast'), '{"version":2,"width":1,"height":10000}\n[0.1,"o","x"]\n');
    const r = await tapedeck(['screenshot', 'tall.cast', '--out', 'x.png'], { cwd: dir, env: { TAPEDECK_CHROMIUM: '/nonexistent' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tapedeck: tall\.cast: a \dx10000 screen is \d+x\d+ pixels, too large to render \(at most 16384 a side and 40000000 pixels\)/);
  });
});
