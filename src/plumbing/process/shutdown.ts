/**
 * What stays open between commands in one process (the renderer's browser page)
 * and is closed once, when the process is done with it: the CLI bin runs these
 * before it exits, so main(argv, io) called many times in one process (a test
 * suite, an embedding tool) reuses them instead of starting them per call.
 */
const closers = new Set<() => Promise<void>>();

/** Registers `close` to run at shutdown (registering the same function twice runs it once). */
export function closeAtShutdown(close: () => Promise<void>): void {
  closers.add(close);
}

/** Runs every registered closer (failures ignored: the process is ending) and forgets them. */
export async function shutdown(): Promise<void> {
  const pending = [...closers];
  closers.clear();
  await Promise.allSettled(pending.map((close) => close()));
}
