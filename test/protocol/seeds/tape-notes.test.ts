import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AGENT_SERVER, ROOT, tapedeck, tapedeckInProcess, useTempDirs } from '../../helpers/cli.js';
import { readProtocolTape } from '../../../src/tape/protocol/tape.js';

const temp = useTempDirs();
const OLD = join(ROOT, 'test/fixtures/old-format');
const SERVER_UNIX = [...AGENT_SERVER, '--transport', 'unix', '--listen', '{{socket}}'];
const TOKEN = 's3cret-token-value';
const SERVER_HTTP = [...AGENT_SERVER, '--transport', 'http', '--listen', '127.0.0.1:{{port}}', '--auth-token', TOKEN];
/** A stateful server: each answer counts the requests of its run. */
const COUNTER = ['node', '-e', "let n=0;require('readline').createInterface({input:process.stdin}).on('line',l=>{if(!l.trim())return;n++;process.stdout.write(JSON.stringify({kind:'result',n})+'\\n'+JSON.stringify({kind:'done',exit_code:0})+'\\n')})"];

describe('tapes written before the notes file (a wire key in each line) still read', () => {
  test('an old HTTP and an old Unix tape read with their notes and replay clean over their transports', async () => {
    const http = await readProtocolTape(join(OLD, 'agent-server-http.ndjson'));
    expect(http.pairs.map((p) => p.wire?.method)).toEqual([...Array(8).fill('POST'), 'GET', 'GET']);
    const unix = await tapedeckInProcess(['replay', join(OLD, 'agent-server-unix.ndjson'), '--', ...SERVER_UNIX], { env: { CI: 'true' } });
    expect(unix.stderr).toContain('0 drift(s)');
    expect(unix.code).toBe(0);
    const again = await tapedeckInProcess(['replay', join(OLD, 'agent-server-http.ndjson'), '--auth-token', TOKEN, '--', ...SERVER_HTTP], { env: { CI: 'true' } });
    expect(again.code).toBe(0);
  });

  test('a malformed wire note is exit 2 naming the file and line (inline or in the notes file)', async () => {
    const dir = temp();
    const line = readFileSync(join(OLD, 'agent-server-unix.ndjson'), 'utf8').split('\n')[0];
    const cases: Array<[string, string]> = [
      [line.replace('"transport":"unix"', '"transport":"pigeon"'), 'not a valid wire note: "transport" must be "http" or "unix", got "pigeon"'],
      [line.replace('"session":1', '"session":1,"status":"abc"'), 'not a valid wire note: "status" must be an integer from 100 to 599, got "abc"'],
      [line.replace('"wire":{"transport":"unix","session":1}', '"wire":"unix"'), 'not a valid wire note: "wire" must be an object'],
    ];
    for (const [bad, message] of cases) {
      const tape = join(dir, 'bad.ndjson');
      writeFileSync(tape, `${line}\n${bad}\n`);
      const res = await tapedeckInProcess(['replay', tape, '--', ...SERVER_UNIX]);
      expect(res.stderr).toContain(`${tape}:2: ${message}`);
      expect(res.code).toBe(2);
    }
    // The notes file's own lines: a pair the tape lacks, a tape edited without its notes.
    const tape = join(dir, 'two.ndjson');
    copyFileSync(join(ROOT, 'goldens/agent-server-unix.ndjson'), tape);
    const notes = readFileSync(join(ROOT, 'goldens/agent-server-unix.ndjson.notes'), 'utf8');
    writeFileSync(`${tape}.notes`, `${notes}{"pair":9,"wire":{"transport":"unix","session":1}}\n`);
    const beyond = await tapedeckInProcess(['replay', tape, '--', ...SERVER_UNIX]);
    expect(beyond.stderr).toContain(`${tape}.notes:8: not a valid notes line: it names pair 9, but the tape has 7 pair(s)`);
    expect(beyond.code).toBe(2);
    writeFileSync(`${tape}.notes`, notes);
    const lines = readFileSync(tape, 'utf8').split('\n');
    writeFileSync(tape, [lines[1], lines[0], ...lines.slice(2)].join('\n'));
    const edited = await tapedeckInProcess(['replay', tape, '--', ...SERVER_UNIX]);
    expect(edited.stderr).toContain(`${tape}.notes:1: not a valid notes line: pair 1 of the tape is not the request this note was written for`);
    expect(edited.code).toBe(2);
    writeFileSync(`${tape}.notes`, '{"pair":1,"run_start":1}\n');
    expect((await tapedeckInProcess(['replay', tape, '--', ...SERVER_UNIX])).stderr).toContain(`${tape}.notes:1: not a valid notes line: expected exactly one of "pair", "before" or "run_start"`);
  });
});

describe("seed 000's appended runs end at end of input", () => {
  test('two recordings of a stateful server appended to one tape replay clean: the notes say where the second run starts', async () => {
    const dir = temp();
    const tape = join(dir, 'count.ndjson');
    for (let run = 0; run < 2; run++) {
      const rec = await tapedeck(['record', '--out', tape, '--', ...COUNTER], { input: '{"op":"a"}\n{"op":"b"}\n' });
      expect(rec.code).toBe(0);
    }
    const lines = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => Object.keys(l).join())).toEqual(Array(4).fill('request,response'));
    expect(lines.map((l) => JSON.parse(l.response.split('\n')[0]).n)).toEqual([1, 2, 1, 2]);
    expect(readFileSync(`${tape}.notes`, 'utf8')).toBe('{"run_start":3}\n');
    const res = await tapedeckInProcess(['replay', tape, '--', ...COUNTER], { env: { CI: 'true' } });
    expect(res.stderr).toContain('0 drift(s)');
    expect(res.code).toBe(0);
    // Without the notes (a tape appended by another recorder) the second run meets the first run's server.
    rmSync(`${tape}.notes`);
    const merged = await tapedeckInProcess(['replay', tape, '--', ...COUNTER], { env: { CI: 'true' } });
    expect(merged.stderr).toContain('$.n: expected 1, got 3');
    expect(merged.code).toBe(1);
  });
});

describe("seed 000's single-shot mode, recorded", () => {
  const pretty = '{\n  "op": "explain",\n  "code": "MT4099"\n}\n';
  test('a body that is one JSON value over several lines is one pair, replayed single-shot without a flag', async () => {
    const dir = temp();
    const tape = join(dir, 'shot.ndjson');
    const server = [...AGENT_SERVER, '--single-shot'];
    const rec = await tapedeck(['record', '--out', tape, '--', ...server], { input: pretty });
    expect(rec.code).toBe(0);
    expect(rec.stdout).toContain('"op":"explain"');
    const pairs = readFileSync(tape, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(pairs).toHaveLength(1);
    expect(pairs[0].request).toBe(pretty.trim());
    expect(pairs[0].response.endsWith('{"kind":"done","exit_code":0}\n')).toBe(true);
    expect(readFileSync(`${tape}.notes`, 'utf8')).toBe('{"run_start":1,"single_shot":true}\n');
    const res = await tapedeckInProcess(['replay', tape, '--', ...server], { env: { CI: 'true' } });
    expect(res.stderr).toContain('0 drift(s)');
    expect(res.code).toBe(0);
  });

  test('record --single-shot takes all of stdin as one request, exits with the server code; refused over HTTP', async () => {
    const dir = temp();
    const tape = join(dir, 'one.ndjson');
    const rec = await tapedeck(['record', '--single-shot', '--out', tape, '--', ...AGENT_SERVER, '--single-shot'], { input: '{"op":"check","path":"missing.mty"}\n' });
    expect(rec.code).toBe(1); // the done line's exit code, as the server exits
    expect(JSON.parse(readFileSync(tape, 'utf8')).request).toBe('{"op":"check","path":"missing.mty"}');
    const http = await tapedeckInProcess(['record', '--single-shot', '--transport', 'http', '--out', join(dir, 'h.ndjson'), '--', ...SERVER_HTTP]);
    expect(http.stderr).toContain('record: --single-shot applies to --transport stdio');
    expect(http.code).toBe(2);
    expect(existsSync(join(dir, 'h.ndjson'))).toBe(false);
  });

  test('an interactive session (one JSON value per line) is still recorded pair by pair', async () => {
    const tape = join(temp(), 'lines.ndjson');
    const rec = await tapedeck(['record', '--out', tape, '--', ...AGENT_SERVER], { input: '{"op":"explain","code":"MT4099"}\n{"op":"halt"}\n' });
    expect(rec.code).toBe(0);
    expect(readFileSync(tape, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(existsSync(`${tape}.notes`)).toBe(false); // a fresh stdio tape needs no notes
  });
});
