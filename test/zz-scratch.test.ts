import { it, expect } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordScript } from '../src/recorder/terminal-script.js';
import { replayTerminal } from '../src/replayer/terminal.js';

it('bash smoke', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'td-'));
  const out = join(dir, 'bash.cast');
  const t0 = performance.now();
  await recordScript({ out, command: 'bash', args: ['--norc', '--noprofile'], env: { PS1: 'demo$ ' }, rows: 10, cols: 40, steps: [
    { waitFor: 'demo$' }, { type: 'echo hello\r' }, { waitFor: 'hello\ndemo$' }, { marker: 'echoed' }, { type: 'exit 3\r' },
  ] });
  console.log('record ms', performance.now() - t0);
  console.log(readFileSync(out, 'utf8'));
  for (let i = 0; i < 3; i++) {
    const r = await replayTerminal(out, { env: { PS1: 'demo$ ' } });
    console.log(r.durationMs, r.startupMs, JSON.stringify(r.drifts, null, 1).slice(0, 3000));
    expect(r.drifts).toEqual([]);
  }
  const bad = await replayTerminal(out, { env: { PS1: 'other> ' }, stepTimeoutMs: 1000 });
  console.log(bad.durationMs, bad.drifts.map((d) => [d.code, d.pair, d.request, d.title, d.details.join('\n')].join(' | ')).join('\n\n'));
});
