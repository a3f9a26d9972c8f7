import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, processAlive, ROOT, run, tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';
import { terminalSafe } from '../../src/core/text/terminal-safe.js';
import { redact, restore } from '../../src/core/text/redact.js';

const temp = useTempDirs();
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const echo = join(ROOT, 'examples/echo-server.mjs');

describe('a tape from outside the project does not run its command', () => {
  const evilCast = (marker: string) => `${JSON.stringify({ version: 2, width: 20, height: 3, tapedeck: { argv: ['sh', '-c', `touch ${marker}`] } })}\n[0.1,"o","x"]\n`;

  it('exit 2 asking for -- CMD or --trust-tape; either one runs; a tape in the goldens folder or config project runs', async () => {
    const dir = temp();
    const marker = join(dir, 'ran');
    const downloads = join(dir, 'downloads');
    mkdirSync(downloads);
    writeFileSync(join(downloads, 'evil.cast'), evilCast(marker));
    const project = join(dir, 'project');
    mkdirSync(join(project, 'goldens'), { recursive: true });

    const refused = await tapedeckInProcess(['replay', join(downloads, 'evil.cast')], { cwd: project });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the tape is not in this project');
    expect(refused.stderr).toContain(`sh -c "touch ${marker}"`);
    expect(refused.stderr).toMatch(/give the command after --.*or pass --trust-tape/i);
    expect(existsSync(marker)).toBe(false);

    const overridden = await tapedeckInProcess(['replay', join(downloads, 'evil.cast'), '--step-timeout-ms', '300', '--', 'true'], { cwd: project });
    expect([0, 1]).toContain(overridden.code);
    expect(existsSync(marker)).toBe(false);

    await tapedeckInProcess(['replay', join(downloads, 'evil.cast'), '--trust-tape', '--step-timeout-ms', '300'], { cwd: project });
    expect(existsSync(marker)).toBe(true);

    // Inside the project's goldens folder, the recorded command is the project's own.
    const inGoldens = join(project, 'goldens', 'mine.cast');
    const marker2 = join(dir, 'ran2');
    writeFileSync(inGoldens, evilCast(marker2));
    await tapedeckInProcess(['replay', 'goldens/mine.cast', '--step-timeout-ms', '300'], { cwd: project });
    expect(existsSync(marker2)).toBe(true);

    // With a tapedeck.config.json, the folder it is in is the project.
    const marker3 = join(dir, 'ran3');
    mkdirSync(join(project, 'tapes'));
    writeFileSync(join(project, 'tapes', 'mine.cast'), evilCast(marker3));
    const noConfig = await tapedeckInProcess(['replay', 'tapes/mine.cast'], { cwd: project });
    expect(noConfig.code).toBe(2);
    writeFileSync(join(project, 'tapedeck.config.json'), '{}\n');
    await tapedeckInProcess(['replay', 'tapes/mine.cast', '--step-timeout-ms', '300'], { cwd: project });
    expect(existsSync(marker3)).toBe(true);
  });
});

describe('nothing from a tape or a live program reaches the terminal unescaped', () => {
  it('escapes C0, DEL, C1 and ESC, and defuses GitHub workflow commands', () => {
    expect(terminalSafe('a\x1b]52;c;QQ==\x07b\u009dc\u009c\x7f\r\n::error x\n  ::warning y\tz')).toBe('a\\e]52;c;QQ==\\x07b\\x9dc\\x9c\\x7f\\r\n\\x3a:error x\n  \\x3a:warning y\tz');
  });

  it('the protocol drift summary, malformed-tape errors and serve logs', async () => {
    const dir = temp();
    const request = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: { t: '\u009d0;x\u009c' } });
    // A request that is not JSON, with a raw newline: the summary prints it, and must not start a line with ::.
    const raw = 'plain\n::error file=a::injected \u001b]0;title\u0007';
    writeFileSync(join(dir, 'inj.ndjson'), `${JSON.stringify({ request, response: '{"jsonrpc":"2.0","id":1,"result":"\\u001b[2J\\u009b1m"}\n' })}\n${JSON.stringify({ request: raw, response: 'x\n' })}\n`);
    const replay = await tapedeckInProcess(['replay', 'inj.ndjson', '--', 'node', echo], { cwd: dir, env: { GITHUB_ACTIONS: 'true' } });
    expect(replay.code).toBe(1);
    expect(replay.stderr).not.toMatch(CONTROL);
    expect(replay.stderr).not.toMatch(/^\s*::/m);
    expect(replay.stderr).toContain('\\x9d0;x\\x9c');
    expect(replay.stderr).toContain('plain\\n\\x3a:error file=a::injected \\e]0;title\\x07'.replace('\\x3a:', '::'));
    // The annotations on stdout are the only workflow commands: one per drift.
    expect(replay.stdout.split('\n').filter((l) => l.startsWith('::')).length).toBeGreaterThanOrEqual(1);
    expect(replay.stdout.split('\n').filter((l) => l.startsWith('::')).every((l) => /^::(error|warning|notice) /.test(l))).toBe(true);
    expect(replay.stdout).not.toMatch(CONTROL);

    writeFileSync(join(dir, 'bad.cast'), '{"version":2,"width":20,"height":3}\n[0.1,"\u001b]52;c;QQ==\u0007\u009d",5]\n');
    const bad = await tapedeck(['snapshot', 'bad.cast'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^tapedeck: bad\.cast:2: /);
    expect(bad.stderr).not.toMatch(CONTROL);

    const serve = await tapedeckInProcess(['serve', 'inj.ndjson'], { cwd: dir, input: '{"id":9,"method":"\\u001b[31mred"}\n\u001b]0;t\u0007\n' });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain('no recorded response matches');
    expect(serve.stderr).not.toMatch(CONTROL);
  });
});

describe('secrets', () => {
  const SECRET = 'tok/abc.123-XYZ';
  it('JSON-escaped forms are redacted: \\/ and \\u escapes in either case', () => {
    const env = { TOKEN: 'a/b<c>é' };
    expect(redact('xa/b<c>éy', ['TOKEN'], env)).toBe('x{{tapedeck.env.TOKEN}}y');
    // An escaped spelling is hidden too, under a placeholder that says how to spell the value back.
    for (const form of ['a\\/b<c>é', 'a/b\\u003cc\\u003e\\u00e9', 'a\\/b\\u003Cc\\u003E\\u00E9']) {
      const stored = redact(`x${form}y`, ['TOKEN'], env);
      expect(stored).toMatch(/^x\{\{tapedeck\.env\.TOKEN\|[^}]+\}\}y$/);
      expect(restore(stored, env)).toBe(`x${form}y`);
    }
  });

  it('a server escaping / as \\/ does not get its token stored by --update; serve logs hide it', async () => {
    const dir = temp();
    // Answers with the token, / escaped as \/ (as PHP and some Java writers do).
    writeFileSync(join(dir, 'srv.cjs'), `process.stdin.on('data', (d) => { for (const l of String(d).split('\\n').filter(Boolean)) { const m = JSON.parse(l); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { token: process.env.TOKEN } }).replace(/\\//g, '\\\\/') + '\\n'); } });`);
    const req = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'login', params: { key: '{{tapedeck.env.TOKEN}}' } });
    writeFileSync(join(dir, 's.ndjson'), `${JSON.stringify({ request: req, response: '{"jsonrpc":"2.0","id":1,"result":{"token":"old"}}\n' })}\n`);
    const env = { TOKEN: SECRET };
    const update = await tapedeckInProcess(['replay', 's.ndjson', '--update', '--', 'node', 'srv.cjs'], { cwd: dir, env });
    expect(update.code).toBe(0);
    const tape = readFileSync(join(dir, 's.ndjson'), 'utf8');
    expect(tape).toContain('{{tapedeck.env.TOKEN}}');
    expect(tape).not.toContain('abc.123');
    expect(update.stderr).not.toContain('abc.123');

    const serve = await tapedeckInProcess(['serve', 's.ndjson', '--allow-unused'], { cwd: dir, env, input: `${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'other', params: { key: SECRET } })}\n` });
    expect(serve.stderr).toContain('no recorded response matches');
    expect(serve.stderr).toContain('{{tapedeck.env.TOKEN}}');
    expect(serve.stderr).not.toContain('abc.123');
  });

  it('casts: record --redact-env hides the value in output, input and header; replay restores it and matches', async () => {
    const dir = temp();
    mkdirSync(join(dir, 'goldens'));
    const env = { TOKEN: SECRET };
    // It reads before it prints: piped input is echoed the moment it arrives, so output written before
    // the read could land before or after that echo, and the replayed screen would differ by chance.
    const script = 'read x; printf "arg=%s\\n" "$1"; printf "got=%s\\n" "$x"';
    const rec = await tapedeckInProcess(['record', '--out', 'goldens/s.cast', '--redact-env', 'TOKEN', '--', 'sh', '-c', script, 'sh', SECRET], { cwd: dir, env, input: `${SECRET}\n` });
    expect(rec.code).toBe(0);
    const cast = readFileSync(join(dir, 'goldens/s.cast'), 'utf8');
    expect(cast).not.toContain('abc.123');
    const [header, ...events] = cast.trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect((header as { tapedeck: { argv: string[] } }).tapedeck.argv.at(-1)).toBe('{{tapedeck.env.TOKEN}}');
    expect(events.some((e) => Array.isArray(e) && e[1] === 'o' && String(e[2]).includes('arg={{tapedeck.env.TOKEN}}'))).toBe(true);
    expect(events.some((e) => Array.isArray(e) && e[1] === 'i' && String(e[2]).includes('{{tapedeck.env.TOKEN}}'))).toBe(true);
    const replay = await tapedeck(['replay', 'goldens/s.cast', '--step-timeout-ms', '3000'], { cwd: dir, env });
    expect(replay.stderr).not.toContain('abc.123');
    expect(replay.code).toBe(0);
    const unset = await tapedeckInProcess(['replay', 'goldens/s.cast'], { cwd: dir });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('TOKEN is not set');
  });

  it('TD1002 redacts what it received before cutting it to 500 characters', async () => {
    const dir = temp();
    // 490 characters, then the token across the 500-character cut, then a hang.
    writeFileSync(join(dir, 'hang.cjs'), `process.stdin.once('data', () => process.stdout.write('{"partial":"' + 'p'.repeat(476) + process.env.TOKEN + '"')); setInterval(() => {}, 1000);`);
    const req = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { k: '{{tapedeck.env.TOKEN}}' } });
    writeFileSync(join(dir, 'h.ndjson'), `${JSON.stringify({ request: req, response: '{"jsonrpc":"2.0","id":1,"result":1}\n' })}\n`);
    const r = await tapedeckInProcess(['replay', 'h.ndjson', '--timeout-ms', '1500', '--', 'node', 'hang.cjs'], { cwd: dir, env: { TOKEN: SECRET } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[TD1002]');
    expect(r.stderr).toContain('{{tapedeck.env.TOKEN}}'.slice(0, 10));
    expect(r.stderr).not.toContain('tok/abc');
  });
});

describe('signals, descriptors, export, pipes and temp files', () => {
  it('SIGTERM and SIGINT end a replay at once (143, 130) and stop its server', async () => {
    for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
      const dir = temp();
      const pidFile = join(dir, 'server.pid');
      writeFileSync(join(dir, 'hang.cjs'), `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.stdin.on('data', () => {}); setInterval(() => {}, 1000);`);
      writeFileSync(join(dir, 't.ndjson'), `${JSON.stringify({ request: '{"jsonrpc":"2.0","id":1,"method":"x"}', response: '{"jsonrpc":"2.0","id":1,"result":1}\n' })}\n`);
      const child = spawn('node', [CLI, 'replay', 't.ndjson', '--timeout-ms', '120000', '--', 'node', 'hang.cjs'], { cwd: dir, stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8') === '') await new Promise((r) => setTimeout(r, 50));
      const serverPid = Number(readFileSync(pidFile, 'utf8'));
      const sentAt = performance.now();
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(performance.now() - sentAt).toBeLessThan(10_000);
      // The server goes too: gone, or a zombie waiting for init to reap it (the kill lands a moment later).
      const state = () => {
        if (!processAlive(serverPid)) return 'gone';
        try {
          return readFileSync(`/proc/${serverPid}/stat`, 'utf8').split(') ')[1]?.[0] ?? 'gone';
        } catch {
          return 'gone';
        }
      };
      const deadline = performance.now() + 10_000;
      while (!['gone', 'Z', 'X'].includes(state()) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(['gone', 'Z', 'X']).toContain(state());
    }
  });

  it('200 positioned plays and stopped readers under ulimit -n 100 leak no descriptor', async () => {
    const dir = temp();
    const cast = join(dir, 'm.cast');
    writeFileSync(cast, ['{"version":2,"width":20,"height":3}', '[0.1,"o","one"]', '[0.2,"m","here"]', '[0.3,"o","two"]', ...Array.from({ length: 2000 }, (_, i) => `[${0.4 + i / 1000},"o","line ${i}\\r\\n"]`)].join('\n') + '\n');
    const script = join(dir, 'plays.mjs');
    writeFileSync(script, `
      import { playCast } from ${JSON.stringify(join(ROOT, 'dist/session/cast/play.js'))};
      import { openCast } from ${JSON.stringify(join(ROOT, 'dist/tape/asciicast/read.js'))};
      for (let i = 0; i < 200; i++) {
        const played = await playCast(${JSON.stringify(cast)}, i % 2 ? { marker: 'here' } : { seconds: 0.25 });
        played.screen.dispose();
        const opened = await openCast(${JSON.stringify(cast)});
        for await (const e of opened.events()) if (e.code === 'm') break;
      }
      console.log('done 200');
    `);
    const r = await run(['sh', '-c', `ulimit -n 100 && exec node ${script}`], { cwd: dir, timeoutMs: 120_000 });
    expect(r.stderr).not.toContain('EMFILE');
    expect(r.stdout).toContain('done 200');
    expect(r.code).toBe(0);
  });

  it('export refuses what the reader would reject instead of writing null times', async () => {
    const dir = temp();
    writeFileSync(join(dir, 'big.cast'), '{"version":3,"term":{"cols":20,"rows":3}}\n[1e308,"o","x"]\n');
    const r = await tapedeck(['export', 'big.cast', '--format', 'v2', '--out', 'out.cast'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tapedeck: big\.cast:2: event interval must be a number >= 0 and at most 1000000000/);
    expect(existsSync(join(dir, 'out.cast'))).toBe(false);
  });

  it('a cast is read from a pipe; a temp file left by a killed recording is swept by the next one', async () => {
    const dir = temp();
    const cast = '{"version":2,"width":20,"height":3}\n[0.1,"o","from a pipe"]\n';
    const piped = await run(['sh', '-c', `node ${CLI} snapshot /dev/stdin`], { cwd: dir, input: cast });
    expect(piped.stderr).toBe('');
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain('from a pipe');

    const stale = join(dir, '.demo.cast.tapedeck-4194399-0badc0de.tmp'); // pid past pid_max: dead
    const live = join(dir, `.other.cast.tapedeck-${process.pid}-0badc0de.tmp`);
    writeFileSync(stale, 'half');
    writeFileSync(live, 'in use');
    const rec = await tapedeckInProcess(['record', '--out', 'demo.cast', '--', 'echo', 'hi'], { cwd: dir });
    expect(rec.stderr).toContain('recorded echo');
    expect(rec.code).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([`.other.cast.tapedeck-${process.pid}-0badc0de.tmp`]);
  });
});
