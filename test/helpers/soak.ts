/**
 * Stress loops run a few times by default and their full count when TAPEDECK_SOAK=1
 * (a nightly CI job), so the everyday suite stays fast on a 2-core machine.
 */
export const SOAK = process.env.TAPEDECK_SOAK === '1';

export function runs(quick: number, soak: number): number {
  return SOAK ? soak : quick;
}

/**
 * Keeps `n` cores busy (one spinning node process each) until the returned
 * function is called: soak loops run half their count like this, so "passes with
 * both cores busy" is checked every night, not only by hand.
 */
export async function busyCores(n = 2): Promise<() => void> {
  const { spawn } = await import('node:child_process');
  const spinners = Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => {
    for (const s of spinners) s.kill('SIGKILL');
  };
}

/**
 * Runs `body` `count` times: with TAPEDECK_SOAK=1, the second half of the runs
 * with both cores busy (busyCores). `body` gets the run's number from 0.
 */
export async function soakLoop(count: number, body: (i: number) => Promise<void>): Promise<void> {
  let stop: (() => void) | undefined;
  try {
    for (let i = 0; i < count; i++) {
      if (SOAK && i === Math.floor(count / 2)) stop = await busyCores();
      await body(i);
    }
  } finally {
    stop?.();
  }
}
