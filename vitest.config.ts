import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    // Tests spawn real servers, PTYs and browsers: give them room, and keep the
    // 2-core machine from being oversubscribed.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
