import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';

/**
 * A measuring aid, not part of the suite: vitest.cpu.config.ts loads it as a setup
 * file, and each test file appends one line to $TAPEDECK_CPU_LOG: the CPU seconds
 * its worker and the children it waited for spent between beforeAll and afterAll
 * (utime+stime+cutime+cstime of /proc/self/stat), the wall seconds, the worker's
 * pid and the file. Sort the log to see which files cost the most.
 */
function cpuTicks(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
}

let ticks = 0;
let started = 0;
beforeAll(() => {
  ticks = cpuTicks();
  started = Date.now();
});
afterAll(() => {
  const file = (expect.getState().testPath ?? '?').replace(/.*\/test\//, 'test/');
  // Clock ticks are 1/100 s on Linux.
  appendFileSync(process.env.TAPEDECK_CPU_LOG ?? 'cpu-per-file.log', `${((cpuTicks() - ticks) / 100).toFixed(2)}\t${((Date.now() - started) / 1000).toFixed(1)}\t${process.pid}\t${file}\n`);
});
