import { defineConfig } from 'vitest/config';
import CriticalPathFirst from './test/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    // Tests spawn real servers, PTYs and browsers and mostly wait on them, so four
    // workers keep a 2-core machine busy (measured: 164 s with 4, 249 s with 2);
    // every wait is for a condition with a generous timeout, never for a fixed time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    sequence: { sequencer: CriticalPathFirst },
    pool: 'forks',
    maxWorkers: 4,
    // A worker runs file after file with its modules loaded once, instead of a fresh process
    // importing src/ again for each of the 57 files: 351 s of CPU instead of 406 s, 230 s
    // instead of 260 s, in back-to-back quiet runs (2026-12-02); shuffled it passes too. Tests
    // keep no state between files: each restores what it changes (env, goldens root, timers).
    isolate: false,
  },
});
