import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Normaliser } from '../../src/index.js';
import { AGENT_SERVER, ROOT, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

/** Issue 13: scoped normalisers, key-order-insensitive comparison, serve's closest match and passthrough. */
const temp = useTempDirs();
const ECHO = ['node', join(ROOT, 'examples/echo-server.mjs')];

/** A pair for the echo server whose recorded result is `recorded` (the live one is the params). */
function echoPair(id: number, method: string, params: unknown, recorded: string): string {
  return JSON.stringify({ request: JSON.stringify({ jsonrpc: '2.0', id, method, params }), response: `{"jsonrpc":"2.0","id":${id},"result":${recorded}}\n` });
}

describe('scoped normalisers and key order', () => {
  test('a scoped ignore applies to its method or tool only; other pairs with the same change still drift', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    writeFileSync(
      tape,
      [
        echoPair(1, 'clock', { t: 2 }, '{"t":1}'),
        echoPair(2, 'other', { t: 2 }, '{"t":1}'),
        echoPair(3, 'tools/call', { name: 'now', arguments: { t: 2 } }, '{"name":"now","arguments":{"t":1}}'),
        echoPair(4, 'tools/call', { name: 'add', arguments: { t: 2 } }, '{"name":"add","arguments":{"t":1}}'),
      ].join('\n') + '\n',
    );
    writeFileSync(
      join(dir, 'tapedeck.config.json'),
      JSON.stringify({ scoped: [{ method: 'clock', ignore: ['$.result.t'] }, { tool: 'now', ignore: ['$.result.arguments.t'] }] }),
    );
    const res = await tapedeckInProcess(['replay', tape, '--', ...ECHO], { cwd: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('(2 of 4 pairs drifted)');
    expect(res.stderr).toContain(`${tape}:2: pair 2: response drifted`);
    expect(res.stderr).toContain(`${tape}:4: pair 4: response drifted`);

    writeFileSync(join(dir, 'tapedeck.config.json'), JSON.stringify({ scoped: [{ ignore: ['$.x'] }] }));
    const bad = await tapedeckInProcess(['replay', tape, '--', ...ECHO], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('tapedeck.config.json:1');
    expect(bad.stderr).toContain('"scoped" entries need "method", "tool" or "op"');
  });

  test('scopes by seed-000 op too (library)', () => {
    const n = new Normaliser({ scoped: [{ scope: { op: 'version' }, ignore: ['$.mty_version'] }] });
    const line = '{"kind":"result","mty_version":"0.36.0"}';
    expect(n.forRequest('{"op":"version"}').apply(line)).toBe('{"kind":"result","mty_version":"<ignored>"}');
    expect(n.forRequest('{"op":"check"}').apply(line)).toBe(line);
  });

  test('--ignore-key-order (or "ignoreKeyOrder") compares objects whatever their key order', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    writeFileSync(tape, `${echoPair(1, 'm', { a: 1, b: { c: 2, d: 3 } }, '{"b":{"d":3,"c":2},"a":1}')}\n`);
    const strict = await tapedeckInProcess(['replay', tape, '--', ...ECHO]);
    expect(strict.code).toBe(1);
    const relaxed = await tapedeckInProcess(['replay', tape, '--ignore-key-order', '--', ...ECHO]);
    expect(relaxed.code).toBe(0);
    writeFileSync(join(dir, 'tapedeck.config.json'), '{"ignoreKeyOrder": true}');
    expect((await tapedeckInProcess(['replay', tape, '--', ...ECHO], { cwd: dir })).code).toBe(0);
  });
});

describe('serve: closest match and passthrough', () => {
  test('an unmatched request shows the closest recorded request and how it differs', async () => {
    const res = await tapedeckInProcess(['serve', join(ROOT, 'goldens/agent-server.ndjson'), '--allow-unused'], { input: '{"op":"explain","code":"MT1001"}\n' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/closest recorded request \(.*agent-server\.ndjson:\d+\): \{"op":"explain","code":"MT4099"\}/);
    expect(res.stderr).toContain('$.code: expected "MT4099", got "MT1001"');
  });

  test('--passthrough -- CMD answers unmatched requests from the real server and appends them to the tape', async () => {
    const dir = temp();
    const tape = join(dir, 'agent.ndjson');
    copyFileSync(join(ROOT, 'goldens/agent-server.ndjson'), tape);
    const before = readFileSync(tape, 'utf8');
    const input = '{"op":"explain","code":"MT4099"}\n{"op":"explain","code":"MT1001"}\n';
    const res = await tapedeckInProcess(['serve', tape, '--allow-unused', '--passthrough', '--', ...AGENT_SERVER], { input });
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('"code":"MT1001","text":"A name was used');
    expect(res.stderr).toContain(`appended 1 pair(s) from the passthrough server to ${tape}`);
    const after = readFileSync(tape, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(JSON.parse(after.trim().split('\n').at(-1)!).request).toBe('{"op":"explain","code":"MT1001"}');
    // Now on tape: served without the real server.
    const again = await tapedeckInProcess(['serve', tape, '--allow-unused'], { input: '{"op":"explain","code":"MT1001"}\n' });
    expect(again.code).toBe(0);
  });
});
