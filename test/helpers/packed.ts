import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { ROOT, run, type RunResult } from './cli.js';

/**
 * tapedeck as `npm pack` makes it, built once per suite run and shared by every
 * test file that installs it (test/global-setup.ts provides the run's folder):
 * packing and installing cost seconds of CPU each, and the files that test the
 * packed package need the same tarball and, but for --omit=optional, the same
 * install. Nothing is packed unless a test asks.
 */
const SHARED = inject('tapedeckPackDir');
const NOCC = join(SHARED, 'nocc');

/**
 * Runs `script` (sh) once per suite run under an exclusive flock on `name`: the
 * first caller runs it, the others wait on the lock (a condition, not a time) and
 * read the result it left: exit code, stdout and stderr.
 */
async function once(name: string, script: string, env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  const out = join(SHARED, name);
  const guarded = `mkdir -p "$OUT" && if [ ! -e "$OUT.code" ]; then ( ${script} ) >"$OUT.stdout" 2>"$OUT.stderr"; echo $? >"$OUT.code"; fi`;
  const res = await run(['flock', join(SHARED, `${name}.lock`), 'sh', '-c', guarded], { cwd: ROOT, env: { OUT: out, ...env }, timeoutMs: 240_000 });
  if (res.code !== 0) throw new Error(`${name}: ${res.stderr}`);
  const read = (ext: string) => readFileSync(`${out}.${ext}`, 'utf8');
  return { code: Number(read('code')), signal: null, stdout: read('stdout'), stderr: read('stderr') };
}

/** The packed tarball of this checkout (dist/ as built by global setup). */
export async function packedTarball(): Promise<string> {
  const res = await once('pack', 'npm pack --pack-destination "$OUT" --silent');
  if (res.code !== 0) throw new Error(`npm pack failed: ${res.stderr}`);
  return join(SHARED, 'pack', 'tapedeck-0.1.0.tgz');
}

/**
 * The tarball installed into an empty project on a machine without a compiler
 * (every compiler and make on PATH fails loudly, CC and CXX are false), from npm's
 * cache: once per run. `into` gets that install's node_modules as hard links
 * (a copy of the folders: renaming or adding a package there touches no other
 * project). Returns npm's result, for the caller to check.
 */
export async function installPackedWithoutCompiler(into: string): Promise<RunResult> {
  const tarball = await packedTarball();
  const install = await once(
    'install',
    [
      `mkdir -p "${NOCC}" && for tool in g++ gcc cc c++ make clang clang++; do printf '#!/bin/sh\\necho "no compiler on this machine" >&2\\nexit 127\\n' >"${NOCC}/$tool" && chmod 755 "${NOCC}/$tool"; done`,
      `cd "$OUT" && printf '%s' '{"name":"fresh","private":true,"type":"module"}' >package.json`,
      'npm install "$TARBALL" --prefer-offline --no-audit --no-fund',
    ].join(' && '),
    { TARBALL: tarball, PATH: `${NOCC}:${process.env.PATH}`, CC: 'false', CXX: 'false' },
  );
  if (install.code !== 0) return install;
  const linked = await run(['cp', '-al', join(SHARED, 'install/node_modules'), join(into, 'node_modules')]);
  if (linked.code !== 0) throw new Error(`cp -al: ${linked.stderr}`);
  return install;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder for this run's shared packed tarball and install; removed when the run ends. */
    tapedeckPackDir: string;
  }
}
