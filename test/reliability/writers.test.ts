import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { tapedeck, tapedeckInProcess, useTempDirs } from '../helpers/cli.js';

/**
 * Issue 26 items 1, 4, 6 (parallel review) and 10, driven through the CLI as
 * the report drove them: review accepts only what it is told, no write goes
 * through a link that leaves the project, and the goldens folder a config
 * names stays inside the project.
 */
const temp = useTempDirs();
const read = (p: string) => readFileSync(p, 'utf8');

/** A project folder (marked by package.json) inside `dir`, with goldens/. */
function project(dir: string): string {
  const root = join(dir, 'proj');
  mkdirSync(join(root, 'goldens', 'sub'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"name":"p","private":true}\n');
  return root;
}

describe('review: --accept/--reject act on what is named after them, and only that (26.1)', () => {
  test('review goldens --accept goldens/a.txt accepts a.txt alone; --reject goldens/t.txt removes t.txt.new alone', async () => {
    const root = project(temp());
    const g = (p: string) => join(root, 'goldens', p);
    writeFileSync(g('a.txt'), 'old a\n');
    writeFileSync(g('a.txt.new'), 'new a\n');
    writeFileSync(g('b.txt.new'), 'new b\n');
    writeFileSync(g('sub/c.txt.new'), 'new c\n');
    writeFileSync(g('t.txt.new'), 'new t\n');

    const accept = await tapedeck(['review', 'goldens', '--accept', 'goldens/a.txt'], { cwd: root });
    expect(accept.stderr).toBe('accepted goldens/a.txt\n');
    expect(accept.code).toBe(0);
    expect(read(g('a.txt'))).toBe('new a\n');
    expect([existsSync(g('b.txt')), existsSync(g('b.txt.new')), existsSync(g('sub/c.txt')), existsSync(g('sub/c.txt.new'))]).toEqual([false, true, false, true]);

    const reject = await tapedeck(['review', 'goldens', '--reject', 'goldens/t.txt'], { cwd: root });
    expect(reject.stderr).toBe('rejected goldens/t.txt\n');
    expect(reject.code).toBe(0);
    expect(existsSync(g('t.txt.new'))).toBe(false);
    expect([existsSync(g('b.txt.new')), existsSync(g('sub/c.txt.new'))]).toEqual([true, true]);

    // A named golden outside the PATH looked in is a mistake, not a wider accept.
    const outside = await tapedeck(['review', 'goldens/sub', '--accept', 'goldens/b.txt'], { cwd: root });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('review: goldens/b.txt is not under goldens/sub');
    expect(existsSync(g('b.txt.new'))).toBe(true);

    // "all" still means everything under PATH.
    const all = await tapedeck(['review', 'goldens/sub', '--accept', 'all'], { cwd: root });
    expect(all.stderr).toBe('accepted goldens/sub/c.txt\n');
    expect(existsSync(g('b.txt.new'))).toBe(true);
  });

  test('8 parallel review --accept all runs over 40 candidates: every one accepted once, no ENOENT (26.6)', async () => {
    const root = project(temp());
    for (let i = 0; i < 40; i++) {
      writeFileSync(join(root, 'goldens', `g${i}.txt`), `old ${i}\n`);
      writeFileSync(join(root, 'goldens', `g${i}.txt.new`), `new ${i}\n`);
    }
    const runs = await Promise.all(Array.from({ length: 8 }, () => tapedeck(['review', '--accept', 'all'], { cwd: root })));
    for (const r of runs) {
      expect(r.stderr).not.toMatch(/internal error|ENOENT/);
      expect(r.code).toBe(0);
    }
    for (let i = 0; i < 40; i++) expect(read(join(root, 'goldens', `g${i}.txt`))).toBe(`new ${i}\n`);
    // Each golden was accepted by exactly one run; the others said a parallel review took it.
    const accepted = runs.flatMap((r) => r.stderr.split('\n').filter((l) => l.startsWith('accepted ')));
    expect(accepted.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `accepted goldens/g${i}.txt`).sort());
  });
});

describe('writers refuse to write through a symlink that leaves the project (26.10)', () => {
  test('review --accept all: goldens/link.txt -> ../../outside.txt is refused (exit 2), outside.txt unchanged, the rest accepted', async () => {
    const dir = temp();
    const root = project(dir);
    writeFileSync(join(dir, 'outside.txt'), 'precious\n');
    symlinkSync('../../outside.txt', join(root, 'goldens/link.txt'));
    writeFileSync(join(root, 'goldens/link.txt.new'), 'pwned\n');
    writeFileSync(join(root, 'goldens/ok.txt.new'), 'fine\n');
    // A link that stays in the project is still written through (the linked tape stays a link).
    mkdirSync(join(root, 'store'));
    writeFileSync(join(root, 'store/real.txt'), 'old\n');
    symlinkSync('../store/real.txt', join(root, 'goldens/inside.txt'));
    writeFileSync(join(root, 'goldens/inside.txt.new'), 'new\n');

    const r = await tapedeck(['review', '--accept', 'all'], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`tapedeck review: goldens/link.txt: cannot write: it leads through a symbolic link to ${join(dir, 'outside.txt')}, outside the project ${root}`);
    expect(r.stderr).toContain('accepted goldens/ok.txt\n');
    expect(r.stderr).toContain('accepted goldens/inside.txt\n');
    expect(read(join(dir, 'outside.txt'))).toBe('precious\n');
    expect(lstatSync(join(root, 'goldens/link.txt')).isSymbolicLink()).toBe(true);
    expect(read(join(root, 'goldens/link.txt.new'))).toBe('pwned\n'); // left for a person to look at
    expect(read(join(root, 'store/real.txt'))).toBe('new\n');
    expect(lstatSync(join(root, 'goldens/inside.txt')).isSymbolicLink()).toBe(true);
  });

  test('replay goldens/v.ndjson --update with v.ndjson a link to a file outside: exit 2, the file unchanged', async () => {
    const dir = temp();
    const root = project(dir);
    const server = join(root, 'server.mjs');
    writeFileSync(server, "process.stdin.on('data', () => process.stdout.write('{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"live\"}\\n'));\n");
    const tape = `${JSON.stringify({ request: '{"jsonrpc":"2.0","id":1,"method":"m"}', response: '{"jsonrpc":"2.0","id":1,"result":"recorded"}\n' })}\n`;
    writeFileSync(join(dir, 'outside.ndjson'), tape);
    symlinkSync('../../outside.ndjson', join(root, 'goldens/v.ndjson'));
    const r = await tapedeck(['replay', 'goldens/v.ndjson', '--update', '--', 'node', server], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`goldens/v.ndjson: cannot write: it leads through a symbolic link to ${join(dir, 'outside.ndjson')}, outside the project`);
    expect(read(join(dir, 'outside.ndjson'))).toBe(tape);

    // A drifted replay without --update leaves no candidate through a link out either.
    symlinkSync('../../elsewhere.ndjson.new', join(root, 'goldens/v.ndjson.new'));
    const local = await tapedeck(['replay', 'goldens/v.ndjson', '--', 'node', server], { cwd: root, env: { CI: '', TAPEDECK_UPDATE: '' } });
    expect(local.code).not.toBe(0);
    expect(existsSync(join(dir, 'elsewhere.ndjson.new'))).toBe(false);
  });

  test('replay of a cast --update through a symlinked folder that leaves the project: refused, nothing written outside', async () => {
    const dir = temp();
    const root = project(dir);
    mkdirSync(join(dir, 'elsewhere'));
    symlinkSync('../../elsewhere', join(root, 'goldens/linked'));
    const cast = '{"version":2,"width":20,"height":3}\n[0.1,"o","recorded\\r\\n"]\n[0.2,"x","0"]\n';
    writeFileSync(join(dir, 'elsewhere/t.cast'), cast);
    const r = await tapedeck(['replay', 'goldens/linked/t.cast', '--update', '--', 'sh', '-c', 'echo live'], { cwd: root });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('goldens/linked/t.cast: cannot write: it leads through a symbolic link');
    expect(read(join(dir, 'elsewhere/t.cast'))).toBe(cast);
  });

  test('fix --apply: an envelope for a file that links out of the project is not applied', async () => {
    const dir = temp();
    const root = project(dir);
    writeFileSync(join(dir, 'outside.txt'), 'old\n');
    symlinkSync('../../outside.txt', join(root, 'goldens/f.txt'));
    const span = { file: 'goldens/f.txt', line: 1, col: 1, len: 3, byte_start: 0, byte_end: 3 };
    const diff = '--- a/goldens/f.txt\n+++ b/goldens/f.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n';
    const envelope = { schema_version: '1.0', code: 'X1', severity: 'error', span, title: 't', prose: 'p', fix: { kind: 'k', confidence: 1, alternatives: [{ label: 'l', diff, rationale: 'r', confidence: 1 }] } };
    const r = await tapedeck(['fix', '--apply', '--from-stdin'], { cwd: root, input: `${JSON.stringify(envelope)}\n` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not applied X1 .*symbolic link/);
    expect(read(join(dir, 'outside.txt'))).toBe('old\n');
  });
});

describe('a config cannot make the whole disk "in this project" (26.4)', () => {
  const pwned = (dir: string) => join(dir, 'pwned');
  const hostile = (dir: string) => {
    const cast = join(dir, 'elsewhere', 'evil.cast');
    mkdirSync(join(dir, 'elsewhere'));
    writeFileSync(cast, `${JSON.stringify({ version: 2, width: 20, height: 3, tapedeck: { argv: ['sh', '-c', `touch ${pwned(dir)}`] } })}\n[0.1,"o","x"]\n`);
    return cast;
  };

  for (const goldens of ['/', '..', '../elsewhere', '/tmp']) {
    test(`{"goldens": ${JSON.stringify(goldens)}} in the working directory: exit 2 naming the config line; the tape's command never runs`, async () => {
      const dir = temp();
      const root = project(dir);
      const cast = hostile(dir);
      writeFileSync(join(root, 'tapedeck.config.json'), `{\n  "timeoutMs": 5000,\n  "goldens": ${JSON.stringify(goldens)}\n}\n`);
      const r = await tapedeck(['replay', cast], { cwd: root });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`tapedeck.config.json:3: "goldens" must be a folder inside the project`);
      expect(existsSync(pwned(dir))).toBe(false);
    });
  }

  test('the same through --config, and TAPEDECK_GOLDENS=/ grants no trust either', async () => {
    const dir = temp();
    const root = project(dir);
    const cast = hostile(dir);
    writeFileSync(join(root, 'other.json'), '{"goldens": "/"}\n');
    const viaFlag = await tapedeck(['replay', '--config', 'other.json', cast], { cwd: root });
    expect(viaFlag.code).toBe(2);
    expect(viaFlag.stderr).toContain('other.json:1: "goldens" must be a folder inside the project');
    const viaEnv = await tapedeckInProcess(['replay', cast], { cwd: root, env: { TAPEDECK_GOLDENS: '/' } });
    expect(viaEnv.code).toBe(2);
    expect(viaEnv.stderr).toContain('the tape is not in this project');
    expect(existsSync(pwned(dir))).toBe(false);
  });

  test("a goldens folder inside the project still is the project's own: its tape's command runs", async () => {
    const dir = temp();
    const root = project(dir);
    mkdirSync(join(root, 'tapes'));
    writeFileSync(join(root, 'tapedeck.config.json'), '{"goldens": "tapes"}\n');
    const ran = join(root, 'ran');
    writeFileSync(join(root, 'tapes/own.cast'), `${JSON.stringify({ version: 2, width: 20, height: 3, tapedeck: { argv: ['sh', '-c', `touch ${ran}`] } })}\n[0.1,"x","0"]\n`);
    const r = await tapedeck(['replay', 'tapes/own.cast'], { cwd: root });
    expect(r.stderr).not.toContain('not in this project');
    expect(existsSync(ran)).toBe(true);
  });
});
