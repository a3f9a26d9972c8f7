import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, EVERYTHING_SERVER, ROOT, run, tapedeck, useTempDirs } from '../helpers/cli.js';
import { redact, restore, storedForms } from '../../src/core/text/redact.js';

/**
 * Issue 30, item 5: a secret with `"`, `\` and non-ASCII, returned through
 * server-everything's get-env (JSON.stringify(process.env) inside a JSON-RPC
 * string: escaped twice in the JSON-RPC line the tape stores), is stored in no
 * artifact in any spelling: the tape, the .new file, an updated tape, --json
 * envelopes and the HTML report.
 */
const temp = useTempDirs();
// get-env prints the server's whole environment: only these two, in this order, whoever starts it.
const SERVER = ['sh', '-c', `exec env -i MY_SECRET="$MY_SECRET" TAPEDECK_TEST_OTHER="$TAPEDECK_TEST_OTHER" ${process.execPath} ${EVERYTHING_SERVER[1]} stdio`];
const SECRET = 'pa"ss\\wörd/<tok>';
const spellings = storedForms(SECRET);
const leaks = (text: string) => spellings.filter((f) => text.includes(f)).concat(['pa\\"ss', 'pa\\\\\\"ss', 'w\\u00f6rd', 'wörd'].filter((f) => text.includes(f)));

describe('escaped secrets', () => {
  test('every spelling (as is, escaped one to four times, \\uXXXX, \\/) is redacted and restored byte for byte', () => {
    const env = { S: SECRET };
    let text = SECRET;
    for (let depth = 0; depth < 4; depth++) {
      const r = redact(text, ['S'], env);
      expect(leaks(r)).toEqual([]);
      expect(restore(r, env)).toBe(text);
      text = JSON.stringify({ text });
    }
    const go = JSON.stringify(SECRET).replace(/[<>&]|[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(redact(go, ['S'], env)).toBe('"{{tapedeck.env.S|json1u}}"');
    expect(restore(redact(go, ['S'], env), env)).toBe(go);
  });

  test('record, replay, .new, --update, --json and --report keep no spelling of it', async () => {
    const dir = temp();
    const tape = join(dir, 'env.ndjson');
    const env = { MY_SECRET: SECRET, TAPEDECK_TEST_OTHER: 'one' };
    const rec = await run(['node', join(ROOT, 'test/fixtures/protocol/tool-client.mjs'), 'get-env', '--', 'node', CLI, 'record', '--redact-env', 'MY_SECRET', '--out', tape, '--', ...SERVER], { env });
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stdout).toContain('w\\u00f6rd'.replace('\\u00f6', 'ö')); // the client got the real value
    const recorded = readFileSync(tape, 'utf8');
    expect(leaks(recorded)).toEqual([]);
    expect(recorded).toContain('{{tapedeck.env.MY_SECRET|json2}}');

    // The same environment: the secret is restored as it was spelled, and the replay is clean.
    const clean = await tapedeck(['replay', tape, '--', ...SERVER], { env });
    expect(clean.stderr).toContain('0 drift(s)');
    expect(clean.code).toBe(0);

    // Another variable changed: a drift whose details, envelopes, candidate and report all carry the text around the secret.
    const changed = { ...env, TAPEDECK_TEST_OTHER: 'two' };
    const report = join(dir, 'report.html');
    const drift = await tapedeck(['replay', tape, '--json', '--report', report, '--', ...SERVER], { env: changed });
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('TAPEDECK_TEST_OTHER');
    expect(leaks(drift.stdout)).toEqual([]);
    expect(leaks(drift.stderr)).toEqual([]);
    expect(leaks(readFileSync(report, 'utf8'))).toEqual([]);
    expect(existsSync(`${tape}.new`)).toBe(true);
    expect(leaks(readFileSync(`${tape}.new`, 'utf8'))).toEqual([]);
    expect(readFileSync(`${tape}.new`, 'utf8')).toContain('{{tapedeck.env.MY_SECRET|json2}}');

    const updated = await tapedeck(['replay', tape, '--update', '--', ...SERVER], { env: changed });
    expect(updated.code).toBe(0);
    const rewritten = readFileSync(tape, 'utf8');
    expect(rewritten).toContain('\\\\\\"two\\\\\\"');
    expect(leaks(rewritten)).toEqual([]);
    // And the updated tape replays clean with the secret restored.
    const again = await tapedeck(['replay', tape, '--', ...SERVER], { env: changed });
    expect(again.code, again.stderr).toBe(0);
  });
});
