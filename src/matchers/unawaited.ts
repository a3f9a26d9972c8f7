import { chai } from 'vitest';

interface TestLike {
  onFinished?: (() => unknown)[];
}

/**
 * tapedeck's matchers are asynchronous (they retry): one that is not awaited
 * would pass its test and fail later, blamed on another. Each call returns a
 * promise that notes being awaited; when its test ends without that, the test
 * fails saying to await it (as vitest does for expect.poll).
 */
export function requireAwait(names: readonly string[]): void {
  for (const name of names) {
    chai.util.overwriteMethod(chai.Assertion.prototype, name, (original: (...args: unknown[]) => unknown) =>
      function (this: object, ...args: unknown[]) {
        const result = original.apply(this, args) as Promise<unknown>;
        const test = chai.util.flag(this, 'vitest-test') as TestLike | undefined;
        if (!test || typeof result?.then !== 'function') return result;
        const negated = chai.util.flag(this, 'negate') ? 'not.' : '';
        const call = `expect(...).${negated}${name}(...)`;
        const error = new Error(`${call} was not awaited. tapedeck assertions retry until they pass or time out, so they are asynchronous: write \`await ${call}\`.`);
        let awaited = false;
        result.then(undefined, () => {}); // reported as "not awaited" below, never as an unhandled rejection
        (test.onFinished ??= []).push(() => {
          if (!awaited) throw error;
        });
        return {
          then(onFulfilled?: (v: unknown) => unknown, onRejected?: (e: unknown) => unknown) {
            awaited = true;
            return result.then(onFulfilled, onRejected);
          },
          catch(onRejected?: (e: unknown) => unknown) {
            awaited = true;
            return result.catch(onRejected);
          },
          finally(onFinally?: () => void) {
            awaited = true;
            return result.finally(onFinally);
          },
          [Symbol.toStringTag]: 'Promise',
        };
      },
    );
  }
}
