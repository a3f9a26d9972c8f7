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
  },
});
