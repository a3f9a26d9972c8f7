import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { agentHome, agentTty, ok } from '../helpers/agent-tty.js';

/**
 * Golden envelopes: the success and failure envelope of every command, with
 * what varies from run to run (times, ids, pids, paths, hashes, seqs) replaced
 * by placeholders, locked in goldens/agent-tty/. A change to any field name,
 * error code, exit code or message shows up as a diff here.
 * Update after an intended change: npx vitest run test/agent-tty/golden.test.ts -u
 */
/** The current test's home (each test has its own; the tests in this file run one at a time). */
let home: string;
const cleanups: Array<() => Promise<void>> = [];
let id: string;
const envelopes: Record<string, unknown> = {};

const VOLATILE_NUMBERS = new Set(['hostPid', 'childPid', 'pid', 'uptime', 'durationSeconds', 'capturedAtSeq', 'seq', 'lastEventSeq', 'eventCount', 'pngSizeBytes', 'idleMs', 'events', 'frames']);
const VOLATILE_STRINGS = new Set(['timestamp', 'createdAt', 'updatedAt', 'sha256', 'renderProfileHash', 'node', 'detail', 'cwd', 'shell']);

function normalise(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => normalise(v));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, normalise(v, k)]));
  }
  if (typeof value === 'number' && VOLATILE_NUMBERS.has(key)) return `<${key}>`;
  if (typeof value === 'string') {
    if (VOLATILE_STRINGS.has(key)) return `<${key}>`;
    return value
      .replaceAll(home, '<home>')
      .replace(/\b(sess|snap|shot|rec|vid)_[0-9A-Z]{26}\b/g, '<$1_id>')
      .replace(/\d+ ms\b/g, '<n> ms');
  }
  return value;
}

/** Runs one CLI call and keeps its normalised envelope and exit code under `name`. */
async function capture(name: string, args: string[]): Promise<number | null> {
  const r = await agentTty(home, args);
  envelopes[name] = { exitCode: r.code, envelope: normalise(r.env) };
  return r.code;
}

/** Calls that do not depend on each other, run at once; kept in the order given. */
async function captureAll(calls: [string, string[]][]): Promise<void> {
  const results = await Promise.all(calls.map(([, args]) => agentTty(home, args)));
  for (const [i, [name]] of calls.entries()) envelopes[name] = { exitCode: results[i].code, envelope: normalise(results[i].env) };
}

beforeEach(() => {
  const fresh = agentHome();
  home = fresh.home;
  cleanups.push(fresh.cleanup);
});
afterAll(async () => {
  await Promise.all(cleanups.map((c) => c()));
});

describe('agent-tty golden envelopes', () => {
  it('locks every command’s success and failure envelope', async () => {
    await capture('create.ok', ['create', '--rows', '4', '--cols', '30', '--name', 'golden', '--env', 'A=1', '--', 'sh', '-c', 'printf "ready\\n"; read x; echo "got $x"; read y; exec sleep 600']);
    id = (await ok(home, ['list'])).sessions[0].sessionId;
    // Failures refused before they reach the session (and reads that change nothing) run side by side.
    await captureAll([
      ['create.fail', ['create', '--rows', '0']],
      ['list.ok', ['list']],
      ['list.fail', ['list', 'extra']],
    ]);
    await capture('wait.ok', ['wait', id, '--text', 'ready']);
    await captureAll([
      ['wait.timeout', ['wait', id, '--text', 'never', '--timeout-ms', '200']],
      ['wait.fail', ['wait', id, '--text', 'a', '--exit']],
    ]);
    await capture('type.ok', ['type', id, 'one', '--append-newline']);
    await capture('type.fail', ['type', id]);
    await ok(home, ['wait', id, '--text', 'got one']);
    await capture('paste.ok', ['paste', id, 'two']);
    await capture('paste.fail', ['paste', id, 'x', '--file', 'y']);
    await capture('send-keys.ok', ['send-keys', id, 'Enter']);
    await captureAll([
      ['send-keys.fail', ['send-keys', id, 'ctrl+shift+nope']],
      ['resize.ok', ['resize', id, '--rows', '5', '--cols', '32']],
      ['resize.fail', ['resize', id, '--rows', '5']],
    ]);
    await ok(home, ['wait', id, '--text', 'two^[[201~']); // the tty's echo of the paste, before snapshotting it
    await captureAll([
      ['snapshot.ok', ['snapshot', id]],
      ['snapshot.text', ['snapshot', id, '--format', 'text']],
      ['snapshot.fail', ['snapshot', id, '--format', 'cells']],
      ['screenshot.fail', ['screenshot', id, '--profile', 'sepia']],
    ]);
    await captureAll([
      ['record-export.ok', ['record', 'export', id, '--format', 'asciicast', '--out', join(home, 'golden.cast')]],
      ['record-export.fail', ['record', 'export', id, '--format', 'gif']],
      ['inspect.fail', ['inspect', 'sess_00000000000000000000000000']],
      ['signal.fail', ['signal', id, 'SIGNOPE']],
    ]);
    await capture('signal.ok', ['signal', id, 'TERM']);
    await ok(home, ['wait', id, '--exit']);
    await capture('inspect.ok', ['inspect', id]);
    await capture('destroy.ok', ['destroy', id]);
    await capture('destroy.fail', ['destroy', id]);
    await captureAll([
      ['gc.ok', ['gc', '--older-than', '1ms', '--dry-run']],
      ['gc.fail', ['gc', '--older-than', 'forever']],
      ['version.ok', ['version']],
      ['version.fail', ['version', '--verbose']],
      ['doctor.fail', ['doctor', 'now']],
      ['usage.fail', ['frobnicate']],
    ]);
    await expect(`${JSON.stringify(envelopes, null, 2)}\n`).toMatchFileSnapshot('../../goldens/agent-tty/envelopes.json');
  });

  it('locks the screenshot and doctor success envelopes (these start Chromium)', async () => {
    const s = await ok(home, ['create', '--rows', '3', '--cols', '20', '--', 'sh', '-c', 'echo shot; read x']);
    await ok(home, ['wait', s.sessionId, '--text', 'shot']);
    const shots: Record<string, unknown> = {};
    const shot = await agentTty(home, ['--profile', 'light', 'screenshot', s.sessionId, '--hide-cursor']);
    shots['screenshot.ok'] = { exitCode: shot.code, envelope: normalise(shot.env) };
    const doctor = await agentTty(home, ['doctor']);
    shots['doctor.ok'] = { exitCode: doctor.code, envelope: normalise(doctor.env) };
    await ok(home, ['destroy', s.sessionId]);
    await expect(`${JSON.stringify(shots, null, 2)}\n`).toMatchFileSnapshot('../../goldens/agent-tty/render-envelopes.json');
  });
});
