import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CLI, EVERYTHING_SERVER, ROOT, processAlive as alive, run, useTempDirs, tapedeckInProcess } from '../helpers/cli.js';

/**
 * Issue 13 against real MCP servers and the official SDK client
 * (@modelcontextprotocol/sdk, pinned): server-to-client requests, stateful
 * servers under --jobs, drift inside JSON text, and the tap's shutdown.
 */
const temp = useTempDirs();
const SDK_CLIENT = ['node', join(ROOT, 'test/fixtures/sdk-client.mjs')];
const MEMORY = ['env', 'MEMORY_FILE_PATH={{tapedeck.tmpdir}}/memory.jsonl', 'node', join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')];
const ENTITIES = {
  entities: ['Ada', 'Charles', 'Engine', 'Notes'].map((name) => ({ name, entityType: 'thing', observations: [`about ${name}`] })),
};

/** Records a tape through `tapedeck record` with the SDK client calling the given tools. */
async function recordWithSdk(tape: string, tools: string[], server: string[]) {
  const res = await run([...SDK_CLIENT, ...tools, '--', 'node', CLI, 'record', '--out', tape, '--', ...server]);
  expect(res.code, res.stderr).toBe(0);
  return res;
}

describe('MCP servers and the official SDK client', () => {
  test('sampling and elicitation: the server asks the client mid-call; replay answers from the tape and exits 0', async () => {
    const dir = temp();
    const tape = join(dir, 'sampling.ndjson');
    const client = await recordWithSdk(tape, ['trigger-sampling-request={"prompt":"hi","maxTokens":10}', 'trigger-elicitation-request'], EVERYTHING_SERVER);
    expect(client.stdout).toContain('a fixed sampled answer');
    expect(client.stdout).toContain('Ada Lovelace');
    const text = readFileSync(tape, 'utf8');
    expect(text).toContain('sampling/createMessage');
    expect(text).toContain('elicitation/create');

    const clean = await tapedeckInProcess(['replay', tape, '--timeout-ms', '20000', '--', ...EVERYTHING_SERVER]);
    expect(clean.stderr).toContain('0 drift(s)');
    expect(clean.code).toBe(0);

    // The recorded client answer is what the live server gets: change it and the tool result drifts.
    const changed = join(dir, 'changed.ndjson');
    writeFileSync(changed, text.replace('a fixed sampled answer', 'another answer'));
    const drift = await tapedeckInProcess(['replay', changed, '--timeout-ms', '20000', '--', ...EVERYTHING_SERVER]);
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain('another answer');
    expect(drift.stderr).toContain('[TD1001]');

    // A server request the tape never saw: answered with an error so nothing hangs, and reported.
    const unseen = join(dir, 'unseen.ndjson');
    const pairs = text.trim().split('\n').map((l) => JSON.parse(l));
    const kept = pairs.filter((p) => !p.request.includes('a fixed sampled answer'));
    for (const p of kept) p.response = p.response.split('\n').filter((m: string) => !m.includes('sampling/createMessage')).join('\n');
    writeFileSync(unseen, `${kept.map((p) => JSON.stringify(p)).join('\n')}\n`);
    const unexpected = await tapedeckInProcess(['replay', unseen, '--timeout-ms', '20000', '--', ...EVERYTHING_SERVER]);
    expect(unexpected.code).toBe(1);
    expect(unexpected.stderr).toContain('unexpected server message (sampling/createMessage) [TD1005]');
  });

  test('a stateful server (server-memory): 6 copies replay clean with --jobs 3, each in its own {{tapedeck.tmpdir}}', async () => {
    const dir = temp();
    const tape = join(dir, 'memory-0.ndjson');
    await recordWithSdk(tape, [`create_entities=${JSON.stringify(ENTITIES)}`, 'read_graph'], MEMORY);
    for (let i = 1; i < 6; i++) copyFileSync(tape, join(dir, `memory-${i}.ndjson`));
    const isolated = await tapedeckInProcess(['replay', join(dir, 'memory-*.ndjson'), '--jobs', '3', '--', ...MEMORY]);
    expect(isolated.stderr).toContain('6 tape(s), 24 pair(s), 0 drift(s)');
    expect(isolated.code).toBe(0);

    // The control: one shared memory file, and the second copy sees the first one's entities. One after
    // the other, so the first has saved them before the second starts (in parallel it is a race).
    const shared = ['env', `MEMORY_FILE_PATH=${join(dir, 'shared.jsonl')}`, ...MEMORY.slice(2)];
    const clash = await tapedeckInProcess(['replay', join(dir, 'memory-[01].ndjson'), '--jobs', '1', '--', ...shared]);
    expect(clash.code).toBe(1);
  });

  test('a drift deep inside content[0].text names its inner path, in the summary and in --json prose', async () => {
    const dir = temp();
    const tape = join(dir, 'graph.ndjson');
    await recordWithSdk(tape, [`create_entities=${JSON.stringify(ENTITIES)}`, 'read_graph'], MEMORY);
    const lines = readFileSync(tape, 'utf8').trim().split('\n');
    const last = JSON.parse(lines.at(-1)!);
    const response = JSON.parse(last.response);
    // Only the text: structuredContent still says "Notes", so the one difference is inside the string.
    response.result.content[0].text = response.result.content[0].text.replace('"Notes"', '"Nodes"');
    last.response = `${JSON.stringify(response)}\n`;
    lines[lines.length - 1] = JSON.stringify(last);
    writeFileSync(tape, `${lines.join('\n')}\n`);

    const res = await tapedeckInProcess(['replay', tape, '--json', '--', ...MEMORY]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('$.result.content[0].text → $.entities[3].name: expected "Nodes", got "Notes"');
    const [envelope] = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(envelope.prose).toContain('$.result.content[0].text → $.entities[3].name');
  });
});

describe('the tap on shutdown', () => {
  test('SIGTERM mid-session: every completed pair is in the tape and the server (ignoring SIGTERM) is stopped', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    const pidFile = join(dir, 'pid');
    const tap = spawn('node', [CLI, 'record', '--out', tape, '--', 'node', join(ROOT, 'test/fixtures/stubborn-server.mjs'), pidFile], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    tap.stdout.on('data', (c: Buffer) => (out += c.toString()));
    for (let id = 1; id <= 10; id++) {
      tap.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'echo', params: { n: id } })}\n`);
      await expect.poll(() => out.includes(`"id":${id},`), { timeout: 10_000, interval: 20 }).toBe(true);
    }
    // Each pair is on disk as soon as it is complete, before any shutdown.
    await expect.poll(() => (existsSync(tape) ? readFileSync(tape, 'utf8').trim().split('\n').length : 0), { timeout: 10_000 }).toBe(10);
    const exited = new Promise<number | null>((resolve) => tap.once('close', (code) => resolve(code)));
    tap.kill('SIGTERM');
    expect(await exited).not.toBeNull();
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(pairs).toHaveLength(10);
    expect(JSON.parse(pairs[9].response)).toMatchObject({ id: 10, result: { n: 10 } });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  });

  test('a notification sent after the last response, as the server exits, lands in the last pair', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    const server = join(dir, 'late.mjs');
    writeFileSync(
      server,
      `import { createInterface } from 'node:readline';
createInterface({ input: process.stdin }).on('line', (l) => { const m = JSON.parse(l); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n'); })
  .on('close', () => { process.stdout.write('{"jsonrpc":"2.0","method":"notifications/bye"}\\n'); });
`,
    );
    const res = await tapedeckInProcess(['record', '--out', tape, '--', 'node', server], { input: '{"jsonrpc":"2.0","id":1,"method":"a"}\n{"jsonrpc":"2.0","id":2,"method":"b"}\n' });
    expect(res.code).toBe(0);
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(pairs).toHaveLength(2);
    expect(pairs[1].response).toBe('{"jsonrpc":"2.0","id":2,"result":{}}\n{"jsonrpc":"2.0","method":"notifications/bye"}\n');
    expect((await tapedeckInProcess(['replay', tape, '--', 'node', server])).code).toBe(0);
  });

  test('end of input with a server that never exits: the tap stops its group after --grace-ms', async () => {
    const dir = temp();
    const tape = join(dir, 't.ndjson');
    const pidFile = join(dir, 'pid');
    const tap = spawn('node', [CLI, 'record', '--out', tape, '--grace-ms', '200', '--', 'node', join(ROOT, 'test/fixtures/stubborn-server.mjs'), pidFile], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    tap.stdout.on('data', (c: Buffer) => (out += c.toString()));
    tap.stdin.write('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}\n');
    await expect.poll(() => out.includes('"id":1'), { timeout: 10_000, interval: 20 }).toBe(true);
    const exited = new Promise<number | null>((resolve) => tap.once('close', (code) => resolve(code)));
    tap.stdin.end();
    expect(await exited).not.toBe(0); // the server was killed: 128+N
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(pairs).toHaveLength(1);
    expect(JSON.parse(pairs[0].response)).toMatchObject({ id: 1, result: { a: 1 } });
    await expect.poll(() => alive(Number(readFileSync(pidFile, 'utf8'))), { timeout: 10_000 }).toBe(false);
  });
});

