import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, test } from 'vitest';
import { AGENT_SERVER, CLI, ROOT } from '../../helpers/cli.js';

/**
 * A reader written from seed 000's text alone: a tape is lines of
 * {"request","response"}; each request is sent to the agent over stdio, and the
 * live bytes up to the done line must equal the recorded response. It reads
 * only those two keys, and refuses a line that has any other (seed 000's
 * recorder writes exactly two).
 */
async function seedReplay(tape: string, agent: string[], env: NodeJS.ProcessEnv = {}): Promise<{ pairs: number; drifts: string[] }> {
  const pairs = readFileSync(tape, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      const v = JSON.parse(l) as Record<string, unknown>;
      expect(Object.keys(v), `${tape}:${i + 1} is seed 000's two-key line`).toEqual(['request', 'response']);
      return { request: v.request as string, response: v.response as string };
    });
  const child = spawn(agent[0], agent.slice(1), { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const drifts: string[] = [];
  for (const [i, p] of pairs.entries()) {
    child.stdin!.write(`${p.request}\n`);
    let live = '';
    for (;;) {
      const next = await lines.next();
      if (next.done) break;
      live += `${next.value}\n`;
      if ((JSON.parse(next.value) as { kind?: string }).kind === 'done') break;
    }
    if (live !== p.response) drifts.push(`pair ${i + 1}: ${JSON.stringify(p.request)}`);
  }
  child.stdin!.end();
  await new Promise((r) => child.once('close', r));
  return { pairs: pairs.length, drifts };
}

describe("tapedeck's HTTP and Unix tapes, read as seed 000 reads them", () => {
  test('the example agent over stdio answers every pair of the HTTP and the Unix golden byte for byte', async () => {
    const http = await seedReplay(join(ROOT, 'goldens/agent-server-http.ndjson'), AGENT_SERVER);
    expect(http).toEqual({ pairs: 8, drifts: [] }); // the GETs and the 401 are in the notes, not here
    const unix = await seedReplay(join(ROOT, 'goldens/agent-server-unix.ndjson'), AGENT_SERVER);
    expect(unix).toEqual({ pairs: 7, drifts: [] });
  });

  test("tapedeck agent's own HTTP golden, replayed by that reader against tapedeck agent over stdio: no drift", async () => {
    const res = await seedReplay(join(ROOT, 'goldens/tapedeck-agent-http.ndjson'), ['node', CLI, 'agent'], { CI: 'true' });
    expect(res).toEqual({ pairs: 7, drifts: [] });
  });

  test('the reader tells a changed agent apart (it can fail)', async () => {
    const res = await seedReplay(join(ROOT, 'goldens/agent-server-unix.ndjson'), AGENT_SERVER, { AGENT_SERVER_CRASH_ON: 'nothing', AGENT_SERVER_ROOT: join(ROOT, 'test/fixtures') });
    expect(res.drifts.length).toBeGreaterThan(0);
  });
});
