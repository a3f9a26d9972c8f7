/**
 * Stress loops run a few times by default and their full count when TAPEDECK_SOAK=1
 * (a nightly CI job), so the everyday suite stays fast on a 2-core machine.
 */
export const SOAK = process.env.TAPEDECK_SOAK === '1';

export function runs(quick: number, soak: number): number {
  return SOAK ? soak : quick;
}
