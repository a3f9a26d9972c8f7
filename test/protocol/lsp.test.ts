import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, ROOT, run, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

/**
 * Issue 30: Content-Length framing (LSP) recorded, replayed and served with real
 * language servers (vscode-langservers-extracted's JSON server and
 * typescript-language-server, pinned), driven by an editor-like client.
 */
const temp = useTempDirs();
const FIX = join(ROOT, 'test/fixtures/protocol');
const CLIENT = ['node', join(FIX, 'lsp-client.mjs')];
const JSON_SERVER = ['node', join(ROOT, 'node_modules/vscode-langservers-extracted/bin/vscode-json-language-server'), '--stdio'];
const TS_SERVER = ['node', join(ROOT, 'node_modules/typescript-language-server/lib/cli.mjs'), '--stdio'];
const teed = (log: string, server: string[]) => ['sh', '-c', `tee ${log} | exec ${server.join(' ')}`];
const pairsOf = (tape: string) => readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { request: string; response: string });

describe('Content-Length framing (LSP)', () => {
  test('the JSON language server: one JSON value per message, paired by id; replay sends the same bytes and exits 0; serve answers the client, --passthrough in the same framing', async () => {
    const dir = temp();
    const tape = join(dir, 'json-lsp.ndjson');
    const doc = join(FIX, 'lsp/a.json');
    // Independent runs go side by side: the direct session beside the recorded one, then replay, drift and serve.
    const [direct, recorded] = await Promise.all([
      run([...CLIENT, doc, 'json', '--', ...JSON_SERVER]),
      run([...CLIENT, doc, 'json', '--', 'node', CLI, 'record', '--out', tape, '--', ...teed(join(dir, 'recorded.bin'), JSON_SERVER)]),
    ]);
    expect(direct.code, direct.stderr).toBe(0);
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toBe(direct.stdout);
    const pairs = pairsOf(tape);
    expect(pairs.map((p) => JSON.parse(p.request).method)).toEqual(['initialize', 'initialized', 'textDocument/didOpen', 'textDocument/documentSymbol', 'textDocument/hover', 'shutdown', 'exit']);
    // Every tape line stays seed 000's two keys; the framing is noted beside the tape, with the run's start.
    expect(pairs.every((p) => Object.keys(p).join() === 'request,response')).toBe(true);
    expect(readFileSync(`${tape}.notes`, 'utf8')).toBe('{"run_start":1,"framing":"content-length"}\n');
    for (const p of pairs) for (const m of p.response.split('\n').filter(Boolean)) expect(() => JSON.parse(m)).not.toThrow();
    expect(JSON.parse(pairs[3].response.trim().split('\n').at(-1)!)).toMatchObject({ id: 2, result: [{ name: 'name' }, { name: 'answer' }, { name: 'list' }] });

    const changed = join(dir, 'changed.ndjson');
    writeFileSync(changed, readFileSync(tape, 'utf8').replace('\\"detail\\":\\"tapedeck\\"', '\\"detail\\":\\"tapedesk\\"'));
    writeFileSync(`${changed}.notes`, readFileSync(`${tape}.notes`));
    // A tape without the hover pair: serve --passthrough asks the real server, in Content-Length framing too.
    const partial = join(dir, 'partial.ndjson');
    writeFileSync(partial, `${readFileSync(tape, 'utf8').trim().split('\n').filter((l) => !l.includes('textDocument/hover')).join('\n')}\n`);
    writeFileSync(`${partial}.notes`, readFileSync(`${tape}.notes`));
    const [replay, drift, served, passed] = await Promise.all([
      tapedeckInProcess(['replay', tape, '--', ...teed(join(dir, 'replayed.bin'), JSON_SERVER)]),
      tapedeckInProcess(['replay', changed, '--', ...JSON_SERVER]),
      run([...CLIENT, doc, 'json', '--', 'node', CLI, 'serve', tape]),
      run([...CLIENT, doc, 'json', '--', 'node', CLI, 'serve', partial, '--passthrough', '--', ...JSON_SERVER]),
    ]);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout).toBe(direct.stdout);
    const appended = pairsOf(partial).at(-1)!;
    expect(JSON.parse(appended.request).method).toBe('textDocument/hover');
    expect(appended.response).toBe(pairs[4].response);
    // Replay: the server receives the bytes the client sent, headers included.
    expect(replay.stderr).toContain('7 pair(s), 0 drift(s)');
    expect(replay.code).toBe(0);
    expect(readFileSync(join(dir, 'replayed.bin'))).toEqual(readFileSync(join(dir, 'recorded.bin')));

    // A changed recorded answer is drift with its JSON path.
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain('$.result[0].detail: expected "tapedesk", got "tapedeck"');

    // Serve: the client gets the same answers from the tape, framed.
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toBe(direct.stdout);
  });

  test('typescript-language-server: its workspace/configuration request answered from the tape; replay exits 0, serve answers the client', { timeout: 150_000 }, async () => {
    const tape = join(temp(), 'ts-lsp.ndjson');
    const doc = join(FIX, 'lsp/a.ts');
    const recorded = await run([...CLIENT, doc, 'typescript', '--', 'node', CLI, 'record', '--out', tape, '--', ...TS_SERVER], { timeoutMs: 60_000 });
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stdout).toContain('const answer: number');
    expect(readFileSync(tape, 'utf8')).toContain('workspace/configuration');
    const [replay, served] = await Promise.all([
      tapedeckInProcess(['replay', tape, '--timeout-ms', '45000', '--', ...TS_SERVER]),
      run([...CLIENT, doc, 'typescript', '--', 'node', CLI, 'serve', tape]),
    ]);
    expect(replay.stderr).toContain('0 drift(s)');
    expect(replay.code).toBe(0);
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toBe(recorded.stdout);
  });
});
