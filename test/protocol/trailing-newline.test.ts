import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

/**
 * Reported on issue 30: a JSON-RPC tape whose last message lost its newline (an
 * edited tape) drifted as "same JSON value, different bytes" once an ignore or
 * filter rule applied. A message ends at its newline; the comparison says so.
 */
const temp = useTempDirs();
const ECHO = ['node', join(ROOT, 'examples/echo-server.mjs')];
const line = (id: number, params: object, response: string) => JSON.stringify({ request: JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params }), response });

describe('a JSON-RPC response without its last newline', () => {
  test('is no drift, with or without --ignore/--filter; a changed value still is', async () => {
    const tape = join(temp(), 'echo.ndjson');
    // Pair 1 lost its "\n"; its t differs from what the server echoes (ignored below).
    writeFileSync(tape, `${line(1, { a: 1, t: 5 }, '{"jsonrpc":"2.0","id":1,"result":{"a":1,"t":6}}')}\n${line(2, { b: 2 }, '{"jsonrpc":"2.0","id":2,"result":{"b":2}}')}\n`);
    const [ignored, filtered, plain] = await Promise.all([
      tapedeckInProcess(['replay', tape, '--ignore', '$.result.t', '--', ...ECHO]),
      tapedeckInProcess(['replay', tape, '--filter', '"t":[0-9]+="t":0', '--', ...ECHO]),
      tapedeckInProcess(['replay', tape, '--', ...ECHO]),
    ]);
    for (const res of [ignored, filtered]) {
      expect(res.stderr).not.toContain('same JSON value, different bytes');
      expect(res.stderr).toContain('0 drift(s)');
      expect(res.code).toBe(0);
    }
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('$.result.t: expected 6, got 5');
    expect(plain.stderr).not.toContain('different bytes');
  });
});
