import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';
import { startTapedeck } from '../helpers/net.js';
import { CURRENT_PACKAGE, everything, OLDER_DRIFT, OLDER_PACKAGE, SERVED_KINDS, WORKLOAD, workloadOutcomes } from '../helpers/workload.js';
import { runs, soakLoop } from '../helpers/soak.js';

/**
 * Issue 30: MCP's legacy HTTP+SSE transport (2024-11-05; the SDK's
 * SSEClientTransport against server-everything's `sse` mode) records as
 * JSON-RPC pairs (each POST's answer framed from the GET stream), with the
 * endpoint's random `?sessionId=` stored as a placeholder; replay maps the
 * live one, answers the server's own requests, and serve stands in for it.
 */
const temp = useTempDirs();
const CURRENT = everything(CURRENT_PACKAGE, 'sse');
const OLDER = everything(OLDER_PACKAGE, 'sse');
const FIX = join(ROOT, 'test/fixtures/protocol');
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

interface Line {
  request: string;
  response: string;
}

describe('MCP legacy HTTP+SSE', () => {
  test(`recorded through the proxy as JSON-RPC pairs, replayed 0 (${runs(2, 20)} runs), an older server 1 with its JSON path, served to the SDK client`, { timeout: 240_000 }, async () => {
    const dir = temp();
    const tape = join(dir, 'sse.ndjson');
    const rec = await startTapedeck(['record', '--out', tape, '--transport', 'http', '--', ...CURRENT]);
    const direct = await run([...WORKLOAD, '--sse', `${rec.address}/sse`]);
    expect(direct.code, direct.stderr).toBe(0);
    expect(direct.stdout).toContain('"kind":"roots-asked","value":1');
    await rec.stop();

    const text = readFileSync(tape, 'utf8');
    const notes = readFileSync(`${tape}.notes`, 'utf8');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Line);
    // Each answer in its own request's pair (it used to be one GET pair holding every response and 14 "Accepted").
    expect(JSON.parse(lines[0].request).method).toBe('initialize');
    expect(JSON.parse(lines[0].response).result.serverInfo.name).toBe('mcp-servers/everything');
    expect(text).not.toContain('Accepted');
    const echo = lines.find((l) => l.request.includes('"echo"'))!;
    expect(echo.response).toContain('Echo: workload');
    const sampling = lines.findIndex((l) => l.request.includes('trigger-sampling-request'));
    expect(lines[sampling].response).toContain('sampling/createMessage');
    expect(lines[sampling + 1].request).toContain('fixed-model');
    // The session id is random: stored as a placeholder, never literally.
    expect(`${text}${notes}`).not.toMatch(UUID);
    expect(notes).toContain('"request":"GET /sse","response":"/message?sessionId={{tapedeck.session}}\\n"');
    expect(notes).toContain('"path":"/message?sessionId={{tapedeck.session}}"');

    await soakLoop(runs(2, 20), async () => {
      const res = await tapedeckInProcess(['replay', tape, '--transport', 'http', '--', ...CURRENT]);
      expect(res.stderr).toContain('0 drift(s)');
      expect(res.code).toBe(0);
    });
    const older = join(dir, 'older.ndjson');
    writeFileSync(older, text);
    writeFileSync(`${older}.notes`, notes);
    const old = await tapedeckInProcess(['replay', older, '--transport', 'http', '--', ...OLDER]);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain(OLDER_DRIFT);

    // serve: a fresh session id in the endpoint, each POST 202, the recorded answers on the stream.
    const srv = await startTapedeck(['serve', tape, '--transport', 'http']);
    const served = await run([...WORKLOAD, '--sse', `${srv.address}/sse`]);
    expect(served.code, served.stderr).toBe(0);
    const [want, got] = [workloadOutcomes(direct.stdout), workloadOutcomes(served.stdout)];
    for (const k of SERVED_KINDS) expect(got[k], k).toEqual(want[k]);
    const stopped = await srv.stop();
    expect(stopped.stderr).not.toContain('no recorded response');
    expect(stopped.code).toBe(0);
  });

  test('a cancelled call whose recorded output was a server request on a timer: the cancel goes at its recorded place when that request comes a request earlier (as under load)', async () => {
    // Recorded: roots/list asked while `slow` ran (cancelled at 100 ms), as a timer firing then would: on the stream inside
    // slow's pair. (Asked on a 20 ms timer, a loaded machine sometimes sent slow later and the tape had it elsewhere.)
    const server = (rootsAfter: string) => ['env', 'PORT={{port}}', `ROOTS_AFTER_MS=${rootsAfter}`, 'node', join(FIX, 'rpc-server.mjs'), '--sse'];
    const tape = join(temp(), 'early.ndjson');
    const rec = await startTapedeck(['record', '--out', tape, '--transport', 'http', '--', ...server('slow')]);
    const client = await run(['node', join(FIX, 'mini-client.mjs'), '--sse', `${rec.address}/sse`]);
    expect(client.code, client.stderr).toBe(0);
    expect(client.stdout).toContain('file:///workspace');
    await rec.stop();
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
    const slow = pairs.findIndex((p) => p.request.includes('"name":"slow"'));
    expect(pairs[slow].response).toContain('"method":"roots/list"');
    expect(pairs.some((p) => p.request.includes('notifications/cancelled'))).toBe(true);
    // Live, the same request comes with the initialize answer: the cancel must not wait for a line that already came
    // (it did, until the call's result came 3 s later: drift). Beside it, a replay against the recorded timing.
    const [early, same] = await Promise.all([
      tapedeckInProcess(['replay', tape, '--transport', 'http', '--timeout-ms', '5000', '--', ...server('initialize')]),
      tapedeckInProcess(['replay', tape, '--transport', 'http', '--timeout-ms', '5000', '--', ...server('20')]),
    ]);
    for (const r of [early, same]) {
      expect(r.stderr).toContain('0 drift(s)');
      expect(r.code).toBe(0);
    }
  });

  test('an endpoint URL that sends the client around the proxy is refused at record time: exit 2 saying why', async () => {
    // A server naming its own absolute address: the client's POSTs would never reach the recording.
    const server = createServer((req, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(`event: endpoint\ndata: http://127.0.0.1:${(server.address() as { port: number }).port}/message?sessionId=abc\n\n`);
      } else res.writeHead(202).end('Accepted');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const tape = join(temp(), 'around.ndjson');
      const rec = await startTapedeck(['record', '--out', tape, '--transport', 'http', '--upstream', `http://127.0.0.1:${(server.address() as { port: number }).port}`]);
      const stream = await fetch(`${rec.address}/sse`, { headers: { accept: 'text/event-stream' } });
      const reader = stream.body!.getReader();
      let seen = '';
      while (!seen.includes('\n\n')) seen += new TextDecoder().decode((await reader.read()).value);
      expect(seen).toContain('data: http://127.0.0.1:');
      await reader.cancel();
      const stopped = await rec.stop();
      expect(stopped.stderr).toContain('names 127.0.0.1:');
      expect(stopped.stderr).toContain('not this proxy: the client\'s POSTs would go around the recording, and a tape without them can never replay');
      expect(stopped.code).toBe(2);
    } finally {
      server.close();
    }
  });
});
