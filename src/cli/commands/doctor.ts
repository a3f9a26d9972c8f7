import { sweepStaleTemps, tapedeckTempDir } from '../../core/files/temp-files.js';
import { jsonForTerminal } from '../../core/text/terminal-safe.js';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { errorEnvelope, resultEnvelope } from '../../core/diagnostics/envelope.js';
import { ExitCode } from '../../core/diagnostics/exit-codes.js';
import { spawnTerminal } from '../../session/terminal.js';
import { socketCheck } from '../../session/socket-check.js';
import { closeRenderer } from '../../render/browser/renderer.js';
import { rendererChecks, type DoctorCheck } from '../../render/browser/doctor.js';


export type { DoctorCheck };

export function homeDirectory(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? env.TAPEDECK_HOME ?? env.AGENT_TTY_HOME ?? join(homedir(), '.tapedeck'));
}

/** Exists and is writable, or does not exist yet but can be created. */
export function homeCheck(dir: string): DoctorCheck {
  const name = 'home-directory';
  if (existsSync(dir)) {
    const st = statSync(dir);
    if (!st.isDirectory()) return { name, ok: false, detail: `${dir} is not a directory`, fix: `remove ${dir} or set TAPEDECK_HOME to a directory` };
    // Sessions' sockets and manifests live there: another user who can write it could swap them.
    if ((st.mode & 0o022) !== 0) {
      return { name, ok: false, detail: `${dir} is writable by ${st.mode & 0o002 ? 'everyone' : 'its group'} (mode ${(st.mode & 0o777).toString(8)})`, fix: `chmod 700 ${dir}` };
    }
    try {
      accessSync(dir, constants.W_OK | constants.X_OK);
      return { name, ok: true, detail: `${dir} is writable` };
    } catch {
      return { name, ok: false, detail: `${dir} is not writable`, fix: `chmod u+rwx ${dir}, or set TAPEDECK_HOME to a writable directory` };
    }
  }
  let parent = dirname(dir);
  while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
  try {
    accessSync(parent, constants.W_OK | constants.X_OK);
    return { name, ok: true, detail: `${dir} will be created on first use` };
  } catch {
    return { name, ok: false, detail: `${dir} does not exist and ${parent} is not writable`, fix: `mkdir -p ${dir}, or set TAPEDECK_HOME to a writable directory` };
  }
}

/** Spawns `true` in a PTY through the same path every terminal takes. */
export async function ptyCheck(): Promise<DoctorCheck> {
  const name = 'pty-spawn';
  try {
    const term = spawnTerminal('true', [], { rows: 5, cols: 20 });
    try {
      const exit = await term.waitForExit({ timeoutMs: 10_000 });
      if (exit.exitCode !== 0) return { name, ok: false, detail: `true exited with ${exit.exitCode}`, fix: 'check that node-pty loads for this Node (npm rebuild node-pty)' };
      return { name, ok: true, detail: 'node-pty spawned true' };
    } finally {
      await term.dispose();
    }
  } catch (err) {
    if ((err as { code?: string }).code === 'OPTIONAL_PACKAGE_MISSING') return { name, ok: false, detail: (err as Error).message, fix: 'npm install node-pty (an optional dependency of tapedeck, skipped by npm install --omit=optional)' };
    if ((err as { code?: string }).code === 'NATIVE_MODULE_MISSING') {
      return { name, ok: false, detail: 'the native module node-pty is not installed or did not load', fix: 'npm install (node-pty ships prebuilt binaries for linux-x64/arm64 and macOS); on other platforms npm rebuild node-pty, which needs python3, make and a C++ compiler' };
    }
    return { name, ok: false, detail: (err as Error).message, fix: 'npm rebuild node-pty, and check /dev/ptmx is usable' };
  }
}

function terminfoCheck(): DoctorCheck {
  const found = ['/usr/share/terminfo/x/xterm-256color', '/lib/terminfo/x/xterm-256color', '/etc/terminfo/x/xterm-256color'].some((f) => existsSync(f));
  return found
    ? { name: 'terminfo', ok: true, detail: 'xterm-256color found' }
    : { name: 'terminfo', ok: true, warning: 'no xterm-256color terminfo: programs may draw less. Fix: apt-get install ncurses-base' };
}

/** Removes what killed tapedeck processes left: its temp folder, and sibling temp files here and in goldens/. */
function tempFilesCheck(cwd: string): DoctorCheck {
  const removed = [tapedeckTempDir(), cwd, join(cwd, 'goldens')].flatMap(sweepStaleTemps);
  return { name: 'temp-files', ok: true, detail: removed.length ? `removed ${removed.length} left by killed runs` : 'none left by killed runs' };
}

export async function runDoctorChecks(home?: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [homeCheck(homeDirectory(home, env)), await ptyCheck(), await socketCheck(), terminfoCheck(), tempFilesCheck(cwd)];
  try {
    checks.push(...(await rendererChecks()));
  } finally {
    await closeRenderer();
  }
  return checks;
}

export const command = defineCommand({
  name: 'doctor',
  summary: 'check PTYs, the screenshot renderer, fonts, Chromium, ffmpeg and the home directory',
  usage: ['[--home DIR] [--json]'],
  description: `Checks what tapedeck needs on this machine: the home directory, PTY spawn,
control sockets (a 0600 Unix socket in a 0700 directory, as session hosts use),
the screenshot rasteriser, the pinned fonts and a test screenshot (drawn
without a browser). Chromium is checked for the HTML report and its player
only, ffmpeg for export --format webm only: either missing is a warning,
not a failure. Exit 0 when all pass, 8 when something is missing.
Environment: TAPEDECK_HOME (default ~/.tapedeck), TAPEDECK_CHROMIUM (default
/usr/bin/chromium), TAPEDECK_FFMPEG (default ffmpeg on PATH).`,
  options: {
    home: { type: 'string', arg: 'DIR', help: 'the home directory to check (default TAPEDECK_HOME, else ~/.tapedeck)' },
    json: { type: 'boolean', help: 'one JSON result envelope with every check' },
  },
  positionals: { max: 0, message: 'takes no arguments' },
  async run({ values, io }) {
    const checks = await runDoctorChecks(values.home, io.env, io.cwd);
    const ok = checks.every((c) => c.ok);
    if (values.json) {
      // A failed check is a failure envelope (ok:false, seed 002 §1.3), with every check in its details.
      const failed = checks.filter((c) => !c.ok).map((c) => c.name);
      const envelope = ok
        ? resultEnvelope('doctor', { ok, checks })
        : errorEnvelope('doctor', { code: 'INTERNAL_ERROR', message: `${failed.length} check(s) failed: ${failed.join(', ')}`, details: { ok, checks, exitCode: ExitCode.environment } });
      io.stdout.write(`${jsonForTerminal(envelope)}\n`);
    } else {
      for (const c of checks) {
        const mark = !c.ok ? 'FAIL' : c.warning ? 'warn' : 'ok  ';
        io.stdout.write(`${mark} ${c.name}${c.detail ? `: ${c.detail}` : ''}\n`);
        if (c.warning) io.stdout.write(`     ${c.warning}\n`);
        if (!c.ok && c.fix) io.stdout.write(`     fix: ${c.fix}\n`);
      }
    }
    return ok ? ExitCode.ok : ExitCode.environment;
  },
});
