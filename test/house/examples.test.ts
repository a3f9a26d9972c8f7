/**
 * tapedeck's own example tests: real programs in real PTYs, asserted with the
 * vitest matchers, screens compared with the goldens under goldens/test/house/examples.test.ts/.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { spawnTerminal } from '../../src/index.js';
import '../../src/matchers/index.js';
import { ROOT } from '../helpers/cli.js';

const files = join(ROOT, 'examples/files');

describe('examples', () => {
  test('vim opens a file', async () => {
    const term = spawnTerminal('vim', ['-u', 'NONE', '-i', 'NONE', '-n', 'notes.txt'], { rows: 12, cols: 60, cwd: files });
    await expect(term).toContainText('"notes.txt" 4 lines, 51 bytes');
    await expect(term).toMatchScreen();
    // DECCKM: vim switches the arrows to application mode, and they still move the cursor.
    term.press('Down', 'Down', 'End');
    await expect(term).toHaveCursorAt(2, 6);
    term.type(':q!\r');
    await expect(term).toHaveExited(0);
  });

  test('less pages through a long file', async () => {
    const term = spawnTerminal('less', ['long.txt'], { rows: 10, cols: 50, cwd: files, env: { LESS: '', LESSHISTFILE: '-' } });
    await expect(term).toContainText('line 9 of a long file');
    term.press('PageDown');
    await expect(term).toContainText('line 18 of a long file');
    await expect(term).not.toContainText('line 1 of a long file');
    await expect(term).toMatchScreen();
    term.press('q');
    await expect(term).toHaveExited(0);
  });

  test('bash runs a command at its prompt', async () => {
    const term = spawnTerminal('bash', ['--norc', '--noprofile'], { rows: 8, cols: 40, env: { PS1: 'demo$ ', HISTFILE: '/dev/null' } });
    await expect(term).toHaveText('demo$', { line: 0 });
    term.type('printf "\\e[1;31mred\\e[0m and plain\\n"\r');
    await expect(term).toContainText(/^red and plain$/m);
    await expect(term).toMatchScreen({ styles: true });
    term.type('exit 4\r');
    await expect(term).toHaveExited(4);
  });

  test('the python REPL evaluates an expression', async () => {
    const term = spawnTerminal('python3', ['-q', '-I'], { rows: 8, cols: 40 });
    await expect(term).toHaveText('>>>', { line: 0 });
    term.type('6 * 7\r');
    await expect(term).toHaveText('42', { line: 1 });
    await expect(term).toMatchScreen();
    term.press('ctrl+d');
    await expect(term).toHaveExited(0);
  });
});
