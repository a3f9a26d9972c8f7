import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, run, type RunResult } from '../helpers/cli.js';
import { packedTarball } from '../helpers/packed.js';

/**
 * A protocol-only user: the packed tarball (the suite run's one: test/helpers/packed.ts)
 * installed with `npm install --omit=optional`
 * (offline from npm's cache), which leaves out everything only screenshots and terminals
 * need (package.json's optionalDependencies). record, replay and serve work against
 * examples/agent-server.mjs; a command that needs a left-out package fails with exit 2
 * naming it; node_modules stays under 40 MB.
 */
const base = join(tmpdir(), `tapedeck-protocol-only-${process.pid}`);
const project = join(base, 'project');
const BIN = join(project, 'node_modules/.bin/tapedeck');
const OPTIONAL = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { optionalDependencies: Record<string, string> }).optionalDependencies);
const REQUESTS = ['{"op":"explain","code":"MT1001"}', '{"op":"check","path":"main.mty"}'].join('\n') + '\n';

let install: RunResult;

/** Bytes of every file under dir (what `du` counts, near enough; symlinks not followed). */
function size(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    total += st.isDirectory() ? size(p) : st.size;
  }
  return total;
}

const tapedeck = (args: string[], input?: string) => run([BIN, ...args], { cwd: project, input, env: { CI: '', TAPEDECK_UPDATE: '' }, timeoutMs: 30_000 });

beforeAll(async () => {
  rmSync(base, { recursive: true, force: true });
  mkdirSync(join(project, 'goldens'), { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'protocol-only', private: true, type: 'module' }));
  cpSync(join(ROOT, 'examples/agent-server.mjs'), join(project, 'agent-server.mjs'));
  cpSync(join(ROOT, 'examples/project'), join(project, 'src'), { recursive: true });
  install = await run(['npm', 'install', await packedTarball(), '--omit=optional', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project, timeoutMs: 120_000 });
}, 180_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('a protocol-only install (npm install --omit=optional)', () => {
  test('leaves out every optional package and stays under 40 MB', () => {
    expect(install.code, install.stdout + install.stderr).toBe(0);
    for (const name of OPTIONAL) expect(existsSync(join(project, 'node_modules', name)), name).toBe(false);
    expect(OPTIONAL).toEqual(expect.arrayContaining(['node-pty', '@napi-rs/canvas', 'playwright-core', '@xterm/headless', 'dejavu-fonts-ttf']));
    const mb = size(join(project, 'node_modules')) / 1e6;
    expect(mb).toBeLessThan(40);
  });

  test('record, replay and serve work against the agent server', async () => {
    const env = { AGENT_SERVER_ROOT: join(project, 'src') };
    const rec = await run([BIN, 'record', '--out', 'goldens/agent.ndjson', '--', 'node', 'agent-server.mjs'], { cwd: project, input: REQUESTS, env, timeoutMs: 30_000 });
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stdout).toContain('"kind":"done"');
    const tape = readFileSync(join(project, 'goldens/agent.ndjson'), 'utf8');
    expect(tape).toContain('MT1001');

    const replay = await run([BIN, 'replay', 'goldens/agent.ndjson', '--', 'node', 'agent-server.mjs'], { cwd: project, env, timeoutMs: 30_000 });
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    // A changed project drifts: replay notices (exit 1), so it really compared.
    writeFileSync(join(project, 'src/main.mty'), 'fs.write("out", user_input)   \n');
    const drift = await run([BIN, 'replay', 'goldens/agent.ndjson', '--', 'node', 'agent-server.mjs'], { cwd: project, env, timeoutMs: 30_000 });
    expect(drift.code, drift.stdout + drift.stderr).toBe(1);

    const served = await tapedeck(['serve', 'goldens/agent.ndjson', '--allow-unused'], '{"op":"explain","code":"MT1001"}\n');
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toContain('MT1001');
  });

  test('screenshot fails with exit 2 naming the optional package it needs', async () => {
    cpSync(join(ROOT, 'goldens/terminal/bash-echo.cast'), join(project, 'goldens/bash-echo.cast'));
    const shot = await tapedeck(['screenshot', 'goldens/bash-echo.cast', '--out', 'shot.png']);
    expect(shot.code).toBe(2);
    const named = /tapedeck screenshot needs the optional package (\S+): npm install (\S+)\n/.exec(shot.stderr);
    expect(named, shot.stderr).not.toBeNull();
    expect(named![1]).toBe(named![2]);
    expect(OPTIONAL).toContain(named![1]);
    expect(existsSync(join(project, 'node_modules', named![1]))).toBe(false);
    expect(shot.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(join(project, 'shot.png'))).toBe(false);
  });
});
