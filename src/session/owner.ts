import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who a terminal belongs to: the vitest integration runs each test inside
 * `terminalOwner.run(test, ...)`, so a terminal spawned anywhere in that test
 * (also under test.concurrent) is that test's, and ending the test ends only
 * its own terminals.
 */
export const terminalOwner = new AsyncLocalStorage<object>();

/** The owner each terminal was spawned under (the test that spawned it), when there was one. */
const spawnedUnder = new WeakMap<object, object>();

/** Notes the current owner (if any) of a terminal being spawned. */
export function noteOwner(thing: object): void {
  const owner = terminalOwner.getStore();
  if (owner) spawnedUnder.set(thing, owner);
}

/** The test that spawned `thing`, or undefined when it was spawned outside any test. */
export function ownerOf(thing: object): object | undefined {
  return spawnedUnder.get(thing);
}
