import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT } from '../../helpers/cli.js';
import { spawnTerminal, type Terminal } from '../../../src/index.js';

/**
 * A resize the program misses is signalled again unless the program answers
 * it; output that was already under way when the resize went out is no
 * answer. The fixture writes without pause and draws its size only from the
 * second SIGWINCH on: with every output taken as the answer, it never got one.
 */
const terminals: Terminal[] = [];
afterAll(async () => {
  await Promise.all(terminals.map((t) => t.dispose()));
});

describe('SIGWINCH repeats', () => {
  it('are not cancelled by output under way when the resize went out', async () => {
    const t = spawnTerminal('python3', [join(ROOT, 'test/fixtures/terminal/busy_winch.py')], { rows: 10, cols: 40 });
    terminals.push(t);
    await t.waitForText('tick 3');
    t.resize(12, 50);
    const seen = await t.waitForRegex(/size 12x50 after (\d+) signals/, { timeoutMs: 10_000 });
    expect(Number(/after (\d+)/.exec(seen.matchedText!)![1])).toBeGreaterThanOrEqual(2);
  });
});
