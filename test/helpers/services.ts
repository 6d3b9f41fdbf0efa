/**
 * @module test/helpers/services
 * Decides what a test does when an external service (PostgreSQL, Redis, varnishd, Chromium) is absent:
 * on a laptop it skips with a printed reason; under CI=true or ROA_REQUIRE_SERVICES=1 it fails.
 */
import { Socket } from 'node:net';
import pg from 'pg';
import type { createClient } from 'redis';
import { after, afterEach, before, beforeEach, it, type TestContext } from './node-test.js';

/** True when absent services must fail the run instead of skipping. */
export function servicesRequired(): boolean {
  return process.env.CI === 'true' || process.env.CI === '1' || process.env.ROA_REQUIRE_SERVICES === '1';
}

/**
 * Call when a service a test needs is unavailable. Skips the test (printing why) on a laptop;
 * throws (failing the test) when services are required.
 */
export function skipOrFail(t: TestContext, reason: string): void {
  if (servicesRequired()) {
    throw new Error(`required service unavailable (CI=true or ROA_REQUIRE_SERVICES=1): ${reason}`);
  }
  console.log(`# skipped: ${reason}`);
  t.skip(reason);
}

/**
 * Returns the skip reason to hand to `suiteNeeding` (false when the service is there), or throws when
 * services are required.
 */
export function skipReason(available: boolean, reason: string): string | false {
  if (available) return false;
  if (servicesRequired()) {
    throw new Error(`required service unavailable (CI=true or ROA_REQUIRE_SERVICES=1): ${reason}`);
  }
  console.log(`# skipped: ${reason}`);
  return reason;
}

/** The test and hook functions a suite declares its tests with (see suiteNeeding). */
export interface SuiteFunctions {
  it: typeof it;
  before: typeof before;
  after: typeof after;
  beforeEach: typeof beforeEach;
  afterEach: typeof afterEach;
}

/**
 * The functions a suite that needs a service declares its tests with, given `skipReason(...)`'s
 * answer: node's own while the service is there; else an `it` that registers each test as skipped
 * with the reason, and hooks that do nothing (they would reach for the missing service). Node 20
 * reports a `describe(name, { skip })` as a skipped suite with no tests in it, so the run's
 * `# tests` and `# skipped` counts shrank instead of showing what was not run; this keeps them.
 * Shadow the imported names at the top of the suite:
 * @example
 *   const redisSkip = skipReason(await redisReachable(), 'Redis not reachable');
 *   describe('RedisThing', () => {
 *     const { it, after } = suiteNeeding(redisSkip);
 *     it('works', async () => {});
 *   });
 */
export function suiteNeeding(reason: string | false): SuiteFunctions {
  if (reason === false) return { it, before, after, beforeEach, afterEach };
  const skipped = (name: unknown, ...rest: unknown[]) => {
    const options = typeof rest[0] === 'object' && rest[0] !== null ? rest[0] : {};
    return it(String(name), { ...options, skip: reason }, () => {});
  };
  const none = () => {};
  return {
    it: skipped as typeof it,
    before: none as typeof before,
    after: none as typeof after,
    beforeEach: none as typeof beforeEach,
    afterEach: none as typeof afterEach,
  };
}

/** The PostgreSQL the tests use: ROA_TEST_PG_URL, else the trust-auth server every machine of ours runs. */
export const TEST_PG_URL = process.env.ROA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** True when PostgreSQL at `url` (default TEST_PG_URL) takes a connection and answers a query within 3 s. */
export async function pgReachable(url = TEST_PG_URL): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The Redis the tests use: REDIS_URL, else the one every machine of ours runs on 6379. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** True when something accepts connections at TEST_REDIS_URL within half a second. */
export function redisReachable(): Promise<boolean> {
  const { hostname, port } = new URL(TEST_REDIS_URL);
  return new Promise((resolve) => {
    const s = new Socket();
    s.setTimeout(500);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.connect(Number(port || 6379), hostname);
  });
}

/** Deletes every key under `prefix` (the test's own, so runs never collide), then closes `admin`. */
export async function dropRedisPrefix(admin: ReturnType<typeof createClient>, prefix: string): Promise<void> {
  if (!admin.isOpen) await admin.connect();
  const keys = await admin.keys(prefix + '*');
  if (keys.length > 0) await admin.del(keys);
  await admin.close();
}
