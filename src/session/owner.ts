import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who a terminal belongs to: the vitest integration runs each test inside
 * `terminalOwner.run(test, ...)`, so a terminal spawned anywhere in that test
 * (also under test.concurrent) is that test's, and ending the test ends only
 * its own terminals.
 */
export const terminalOwner = new AsyncLocalStorage<object>();
