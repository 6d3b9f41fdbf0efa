/**
 * @module test/helpers/node-test
 * node:test with a timeout on every test and hook by default. node 20's `--test-timeout` bounds a
 * whole file and every suite as one test, so a long file fails as a whole; a per-test bound has to
 * be given to each `it`, which this module does. Test files import from here, not from node:test.
 */
import * as nodeTest from 'node:test';

export type { TestContext, SuiteContext } from 'node:test';
export const { describe, suite, mock } = nodeTest;

/** How long one test or hook may take before it fails: wide, for a busy 2-core machine (env ROA_TEST_TIMEOUT_MS). */
export const TEST_TIMEOUT_MS = Number(process.env.ROA_TEST_TIMEOUT_MS) || 120_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wraps node:test's overloaded functions, whose parameter types differ per overload
type AnyFn = (...args: any[]) => any;

/** Calls `base` with `{ timeout }` added to the options unless they carry one. */
function withTimeout<T extends AnyFn>(base: T): T {
  return ((...args: unknown[]) => {
    const at = args.findIndex((a) => typeof a === 'object' && a !== null);
    if (at >= 0) {
      args[at] = { timeout: TEST_TIMEOUT_MS, ...(args[at] as object) };
    } else {
      // it(fn), it(name, fn), it(name): the options go after the name, or first without one.
      const after = typeof args[0] === 'string' ? 1 : 0;
      args.splice(after, 0, { timeout: TEST_TIMEOUT_MS });
    }
    return base(...args);
  }) as T;
}

/** Hooks take (fn, options). */
function hookWithTimeout<T extends AnyFn>(base: T): T {
  return ((fn: unknown, options?: object) => base(fn, { timeout: TEST_TIMEOUT_MS, ...options })) as T;
}

function testFunction(base: typeof nodeTest.test): typeof nodeTest.test {
  const wrapped = withTimeout(base) as typeof nodeTest.test;
  return Object.assign(wrapped, { skip: base.skip, todo: base.todo, only: withTimeout(base.only) });
}

export const test = testFunction(nodeTest.test);
export const it = testFunction(nodeTest.it);
export const before = hookWithTimeout(nodeTest.before);
export const after = hookWithTimeout(nodeTest.after);
export const beforeEach = hookWithTimeout(nodeTest.beforeEach);
export const afterEach = hookWithTimeout(nodeTest.afterEach);
export default test;
