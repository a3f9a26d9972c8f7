import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';
import { startTapedeck } from '../helpers/net.js';
import { CURRENT_PACKAGE, everything, OLDER_DRIFT, OLDER_PACKAGE, SERVED_KINDS, WORKLOAD, workloadOutcomes } from '../helpers/workload.js';
import { runs, soakLoop } from '../helpers/soak.js';
import { requestSha } from '../../src/tape/protocol/notes.js';

/**
 * Issue 30, item 4, with the official SDK client over Streamable HTTP: the
 * server's own requests (sampling, elicitation on a pending call's SSE stream;
 * roots/list on the GET stream) are answered when the live server asks, with
 * the live id, by a POST of the recorded answer; the tape keeps the pairs in
 * the order the exchange happened (the client's 202 answer after the call
 * that asked for it); a cancelled call replays as recorded.
 */
const temp = useTempDirs();
const CURRENT = everything(CURRENT_PACKAGE, 'streamableHttp');
const OLDER = everything(OLDER_PACKAGE, 'streamableHttp');

interface Line {
  request: string;
  response: string;
}

describe('server-to-client requests over Streamable HTTP', () => {
  test(`server-everything: sampling, elicitation, roots, progress and a cancel record in exchange order and replay 0 (${runs(2, 20)} runs); an older server is 1 with its JSON path; serve answers the SDK client`, { timeout: 240_000 }, async () => {
    const dir = temp();
    const tape = join(dir, 'workload.ndjson');
    const rec = await startTapedeck(['record', '--out', tape, '--transport', 'http', '--', ...CURRENT]);
    const client = await run([...WORKLOAD, '--url', `${rec.address}/mcp`]);
    expect(client.code, client.stderr).toBe(0);
    expect(client.stdout).toContain('"kind":"roots-asked","value":1');
    expect(client.stdout).toContain('a fixed sampled answer');
    await rec.stop();

    const lines = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
    // Each answer right after the call whose SSE stream carried the request (it used to come first: it ended first).
    for (const [tool, asked, answer] of [
      ['trigger-sampling-request', 'sampling/createMessage', 'fixed-model'],
      ['trigger-elicitation-request', 'elicitation/create', 'Ada Lovelace'],
    ]) {
      const call = lines.findIndex((l) => l.request.includes(tool));
      expect(lines[call].response).toContain(asked);
      expect(lines[call + 1].request).toContain(answer);
      expect(JSON.parse(lines[call + 1].request).id).toBe(JSON.parse(lines[call].response.split('\n')[0]).id);
      expect(lines[call + 1].response).toBe('');
    }
    // The cancelled call sits before its cancel, with what it had (nothing).
    const cancelled = lines.findIndex((l) => l.request.includes('"duration":0.5'));
    expect(lines[cancelled + 1].request).toContain('notifications/cancelled');
    expect(lines[cancelled].response).toBe('');

    await soakLoop(runs(2, 20), async () => {
      const res = await tapedeckInProcess(['replay', tape, '--transport', 'http', '--', ...CURRENT]);
      expect(res.stderr).toContain('0 drift(s)');
      expect(res.code).toBe(0);
    });

    // The recorded answer is what the server got: a changed one is drift in the tool result that echoes it.
    const changed = join(dir, 'changed.ndjson');
    const at = lines.findIndex((l) => l.request.includes('fixed-model'));
    const edited = lines.map((l, i) => (i === at ? { ...l, request: l.request.replace('a fixed sampled answer', 'another answer') } : l));
    writeFileSync(changed, `${edited.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const notes = readFileSync(`${tape}.notes`, 'utf8').replace(requestSha(lines[at].request), requestSha(edited[at].request));
    writeFileSync(`${changed}.notes`, notes);
    const older = join(dir, 'older.ndjson');
    writeFileSync(older, readFileSync(tape));
    writeFileSync(`${older}.notes`, readFileSync(`${tape}.notes`));
    const [drift, old] = await Promise.all([
      tapedeckInProcess(['replay', changed, '--transport', 'http', '--', ...CURRENT]),
      tapedeckInProcess(['replay', older, '--transport', 'http', '--', ...OLDER]),
    ]);
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain('$.result.content[0].text');
    expect(drift.stderr).toContain('another answer');
    expect(old.code).toBe(1);
    expect(old.stderr).toContain(OLDER_DRIFT);

    // serve stands in for the server: the SDK client's own answers (202) are matched, the results are the recorded ones.
    const srv = await startTapedeck(['serve', tape, '--transport', 'http']);
    const served = await run([...WORKLOAD, '--url', `${srv.address}/mcp`]);
    expect(served.code, served.stderr).toBe(0);
    const [want, got] = [workloadOutcomes(client.stdout), workloadOutcomes(served.stdout)];
    for (const k of SERVED_KINDS) expect(got[k], k).toEqual(want[k]);
    // Every progress notification the tape holds (the live client may have missed one the server sent with its result).
    expect(got.progress).toEqual([1, 2, 3].map((progress) => ({ progress, total: 3 })));
    const stopped = await srv.stop();
    expect(stopped.stderr).not.toContain('no recorded response');
    expect(stopped.code).toBe(0);
  });
});
