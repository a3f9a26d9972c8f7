import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ResponseFramer, type Exchange } from '../../src/core/framing/boundary.js';
import { writeFileAtomic } from '../../src/core/files/atomic-write.js';
import { isCI, resolveUpdateMode } from '../../src/core/config/ci.js';
import { diffJson, formatPathDifference } from '../../src/core/text/json-diff.js';
import { LineSplitter } from '../../src/core/text/lines.js';
import { trimWhiteSpace } from '../../src/core/text/trim.js';
import { Normaliser, parseFilter } from '../../src/core/text/normalise.js';
import { formatPair } from '../../src/tape/protocol/tape.js';
import { tempDir } from '../helpers/cli.js';
import { TapedeckError, type ErrorCode } from '../../src/core/diagnostics/errors.js';
import { ERROR_EXIT_CODES } from '../../src/core/diagnostics/error-codes.js';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('LineSplitter', () => {
  test('keeps every byte and never splits a UTF-8 character', () => {
    const text = 'héllo wörld\n日本語\npartial';
    const bytes = Buffer.from(text);
    const s = new LineSplitter();
    const lines: Buffer[] = [];
    for (let i = 0; i < bytes.length; i++) lines.push(...s.push(bytes.subarray(i, i + 1)));
    expect(lines.map((l) => l.toString())).toEqual(['héllo wörld\n', '日本語\n']);
    expect(s.flush()?.toString()).toBe('partial');
  });
});

describe('ResponseFramer', () => {
  const frame = (boundary: ConstructorParameters<typeof ResponseFramer>[0], holdLast = false) => {
    const done: Exchange[] = [];
    const framer = new ResponseFramer(boundary, { onComplete: (ex) => done.push(ex), holdLast, takePartial: () => undefined });
    const line = (s: string) => framer.serverLine(Buffer.from(`${s}\n`));
    const text = (ex: Exchange) => Buffer.concat(ex.chunks).toString();
    return { framer, done, line, text };
  };

  test('done: a response ends at its {"kind":"done"} line', () => {
    const { framer, done, line, text } = frame({ kind: 'done' });
    framer.addRequest('{"op":"check"}');
    line('{"kind":"log","text":"done"}');
    expect(done).toHaveLength(0);
    line('{"kind":"done","exit_code":1}');
    expect(done.map(text)).toEqual(['{"kind":"log","text":"done"}\n{"kind":"done","exit_code":1}\n']);
  });

  test('auto, DAP: a request ends with the response whose request_seq is its seq, events wait with it, the client answer to an adapter request ends at once', () => {
    const { framer, done, line, text } = frame({ kind: 'auto' });
    const launch = framer.addRequest('{"seq":1,"type":"request","command":"launch","arguments":{}}')!;
    expect(launch.rule.kind).toBe('jsonrpc'); // not idle: DAP is paired by seq, whatever the pace
    framer.addRequest('{"seq":2,"type":"request","command":"threads"}');
    line('{"seq":1,"type":"event","event":"output","body":{"output":"starting"}}');
    line('{"seq":2,"type":"response","request_seq":2,"command":"threads","success":true,"body":{"threads":[]}}');
    expect(done).toHaveLength(0); // the launch is still waiting; request order is kept
    line('{"seq":3,"type":"request","command":"runInTerminal","arguments":{"args":["node"]}}');
    line('{"seq":4,"type":"response","request_seq":1,"command":"launch","success":true}');
    expect(done.map(text)).toEqual([
      '{"seq":1,"type":"event","event":"output","body":{"output":"starting"}}\n{"seq":3,"type":"request","command":"runInTerminal","arguments":{"args":["node"]}}\n{"seq":4,"type":"response","request_seq":1,"command":"launch","success":true}\n',
      '{"seq":2,"type":"response","request_seq":2,"command":"threads","success":true,"body":{"threads":[]}}\n',
    ]);
    const answer = framer.addRequest('{"seq":3,"type":"response","request_seq":3,"command":"runInTerminal","success":true,"body":{}}')!;
    expect(answer.complete).toBe(true);
    expect(done).toHaveLength(3);
  });

  test('jsonrpc: responses by id, out of order; notifications get none; early server messages go to the next request', () => {
    const { framer, done, line, text } = frame({ kind: 'jsonrpc' });
    line('{"jsonrpc":"2.0","method":"notifications/hello"}');
    framer.addRequest('{"jsonrpc":"2.0","id":1,"method":"a"}');
    framer.addRequest('{"jsonrpc":"2.0","id":2,"method":"b"}');
    framer.addRequest('{"jsonrpc":"2.0","method":"notifications/cancelled"}');
    line('{"jsonrpc":"2.0","id":2,"result":"B"}');
    expect(done).toHaveLength(0); // request order is kept
    line('{"jsonrpc":"2.0","id":1,"result":"A"}');
    expect(done.map((e) => e.request.slice(0, 30))).toHaveLength(3);
    expect(text(done[0])).toBe('{"jsonrpc":"2.0","method":"notifications/hello"}\n{"jsonrpc":"2.0","id":1,"result":"A"}\n');
    expect(text(done[1])).toBe('{"jsonrpc":"2.0","id":2,"result":"B"}\n');
    expect(text(done[2])).toBe('');
  });

  test('auto picks jsonrpc, done and idle per request', () => {
    const { framer } = frame({ kind: 'auto' });
    expect(framer.resolveRule('{"jsonrpc":"2.0","id":1,"method":"x"}')).toEqual({ kind: 'jsonrpc' });
    expect(framer.resolveRule('{"op":"check"}')).toEqual({ kind: 'done' });
    expect(framer.resolveRule('hello')).toEqual({ kind: 'idle', ms: 300 });
  });

  test('a replayed cancelled request ends with its own recorded lines or once the server\'s line total reaches the recorded one, whichever comes first', () => {
    const { framer, done, line } = frame({ kind: 'jsonrpc' });
    framer.addRequest('{"jsonrpc":"2.0","id":0,"method":"initialize"}');
    line('{"jsonrpc":"2.0","id":0,"result":{}}');
    // Recorded: the server's timer request came while the call ran (2 lines by then). Live: it came earlier, before the call went.
    line('{"jsonrpc":"2.0","id":"s1","method":"roots/list"}');
    const early = framer.addRequest('{"jsonrpc":"2.0","id":1,"method":"tools/call"}', { endAfterLines: 1, endAfterTotal: 2 })!;
    expect(early.complete).toBe(true);
    // Not reached yet: it waits for the server's next line, whichever exchange that line goes to.
    const waiting = framer.addRequest('{"jsonrpc":"2.0","id":2,"method":"tools/call"}', { endAfterLines: 2, endAfterTotal: 4 })!;
    expect(waiting.complete).toBe(false);
    line('{"jsonrpc":"2.0","method":"notifications/message"}');
    expect(waiting.complete).toBe(false);
    line('{"jsonrpc":"2.0","method":"notifications/message"}');
    expect(waiting.complete).toBe(true);
    // The own-lines rule still ends one whose lines came later than recorded (the total is then ahead).
    const own = framer.addRequest('{"jsonrpc":"2.0","id":3,"method":"tools/call"}', { endAfterLines: 1, endAfterTotal: 99 })!;
    line('{"jsonrpc":"2.0","method":"notifications/progress"}');
    expect(own.complete).toBe(true);
    expect(done.map((e) => e.request)).toEqual([expect.stringContaining('initialize'), expect.stringContaining('"id":1'), expect.stringContaining('"id":2'), expect.stringContaining('"id":3')]);
  });

  test('holdLast keeps late server messages in the last pair', () => {
    const { framer, done, line, text } = frame({ kind: 'jsonrpc' }, true);
    framer.addRequest('{"jsonrpc":"2.0","id":1,"method":"a"}');
    line('{"jsonrpc":"2.0","id":1,"result":"A"}');
    expect(done).toHaveLength(0);
    line('{"jsonrpc":"2.0","method":"late"}');
    framer.finish();
    expect(done.map(text)).toEqual(['{"jsonrpc":"2.0","id":1,"result":"A"}\n{"jsonrpc":"2.0","method":"late"}\n']);
  });
});

describe('trimWhiteSpace', () => {
  test('trims Unicode White_Space at both ends, as seed 000 (Rust str::trim) does, and keeps a byte order mark', () => {
    expect(trimWhiteSpace(' \t{"op":"check"}\r\n')).toBe('{"op":"check"}');
    expect(trimWhiteSpace('\u3000\u00a0x y\u2028\u0085')).toBe('x y');
    expect(trimWhiteSpace('\ufeff{"a":1}\n')).toBe('\ufeff{"a":1}');
    expect(trimWhiteSpace('\u200b')).toBe('\u200b'); // a zero-width space is not White_Space
    expect(trimWhiteSpace(' \n ')).toBe('');
    const same = '{"id":1}';
    expect(trimWhiteSpace(same)).toBe(same);
  });
});

describe('Normaliser', () => {
  test('--ignore splices the value out in place, keeping every other byte', () => {
    const n = new Normaliser({ ignore: ['$.result.serverInfo.version', '$..timestamp'] });
    const line = '{"result": {"serverInfo":{"name":"x","version":"1.2.3"},"items":[{"timestamp":5},{"b":{"timestamp":"t"}}]}}\n';
    expect(n.apply(line)).toBe('{"result": {"serverInfo":{"name":"x","version":"<ignored>"},"items":[{"timestamp":"<ignored>"},{"b":{"timestamp":"<ignored>"}}]}}\n');
    expect(n.apply('not json\n')).toBe('not json\n');
  });

  test('--filter rewrites bytes; \\= is a literal =', () => {
    const f = parseFilter('pid\\=\\d+=pid=N');
    expect(new Normaliser({ filters: [f] }).apply('pid=123 pid=9')).toBe('pid=N pid=N');
    expect(() => parseFilter('nothing')).toThrow(/REGEX=REPLACEMENT/);
    expect(() => parseFilter('(unclosed=x')).toThrow(/invalid regular expression/);
  });
});

describe('diffJson', () => {
  test('names the differing paths', () => {
    const d = diffJson({ result: { tools: [{ name: 'a' }, { name: 'b' }, { name: 'echo' }] } }, { result: { tools: [{ name: 'a' }, { name: 'b' }, { name: 'echo2' }], extra: 1 } });
    expect(d.map((x) => formatPathDifference(x))).toEqual(['$.result.tools[2].name: expected "echo", got "echo2"', '$.result.extra: unexpected 1 (not in the tape)']);
    expect(diffJson({ 'a-b': [1] }, { 'a-b': [] }).map((x) => formatPathDifference(x))).toEqual(['$["a-b"][0]: expected 1, got nothing (missing)']);
  });
});

describe('tape format and files', () => {
  test('pairs are seed-000 JSON, with exact bytes kept when they are not UTF-8', () => {
    expect(formatPair('{"op":"x"}', Buffer.from('{"kind":"done"}\n'))).toBe('{"request":"{\\"op\\":\\"x\\"}","response":"{\\"kind\\":\\"done\\"}\\n"}');
    const bad = JSON.parse(formatPair('r', Buffer.from([0x61, 0xff, 0x0a])));
    expect(Buffer.from(bad.response_base64, 'base64')).toEqual(Buffer.from([0x61, 0xff, 0x0a]));
  });

  test('atomic writes replace the file whole and leave no temp files', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const p = join(t.dir, 'g.ndjson');
    writeFileSync(p, 'old\n');
    writeFileAtomic(p, 'new\n');
    expect(readFileSync(p, 'utf8')).toBe('new\n');
    expect(readdirSync(t.dir)).toEqual(['g.ndjson']);
  });

  test('CI detection and update modes', () => {
    expect(isCI({ CI: 'true' })).toBe(true);
    expect(isCI({ CI: '0' })).toBe(false);
    expect(isCI({ CI: 'false' })).toBe(false);
    expect(isCI({})).toBe(false);
    expect(resolveUpdateMode(undefined, { CI: '1' })).toBe('none');
    expect(resolveUpdateMode(undefined, {})).toBe('new');
    expect(resolveUpdateMode(undefined, { CI: '1', TAPEDECK_UPDATE: 'all' })).toBe('all');
    expect(resolveUpdateMode('all', { CI: '1' })).toBe('all');
  });
});

describe('error codes', () => {
  test('each code carries its exit code: bad input 2, then seed 002\'s 4–8', () => {
    const exit = (code: ErrorCode) => new TapedeckError(code, 'x').exitCode;
    expect([exit('INVALID_INPUT'), exit('STORAGE_READ_ERROR'), exit('TD2001'), exit('MALFORMED_CAST')]).toEqual([2, 2, 2, 2]);
    expect([exit('SESSION_NOT_RUNNING'), exit('WAIT_TIMEOUT'), exit('RENDERER_UNAVAILABLE'), exit('EXPORT_ERROR'), exit('ENVIRONMENT')]).toEqual([4, 5, 6, 7, 8]);
    // Every code is in the table with an exit code the CLI documents.
    for (const code of Object.keys(ERROR_EXIT_CODES) as ErrorCode[]) expect([2, 4, 5, 6, 7, 8]).toContain(exit(code));
  });
});
