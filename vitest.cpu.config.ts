import { mergeConfig } from 'vitest/config';
import suite from './vitest.config.js';

/**
 * The suite as vitest.config.ts runs it, with test/helpers/cpu-probe.ts logging each
 * file's CPU seconds: CI=true TAPEDECK_CPU_LOG=/tmp/cpu.log npx vitest run --config vitest.cpu.config.ts
 * then sort -rn /tmp/cpu.log | head -15.
 */
export default mergeConfig(suite, { test: { setupFiles: ['test/helpers/cpu-probe.ts'] } });
