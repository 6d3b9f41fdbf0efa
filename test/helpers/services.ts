/**
 * @module test/helpers/services
 * Decides what a test does when an external service (PostgreSQL, Redis, varnishd, Chromium) is absent:
 * on a laptop it skips with a printed reason; under CI=true or ROA_REQUIRE_SERVICES=1 it fails.
 */
import { Socket } from 'node:net';
import type { createClient } from 'redis';
import type { TestContext } from 'node:test';

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

/** Describe-level helper: returns a skip reason string for `describe(name, { skip })`, or throws when required. */
export function skipReason(available: boolean, reason: string): string | false {
  if (available) return false;
  if (servicesRequired()) {
    throw new Error(`required service unavailable (CI=true or ROA_REQUIRE_SERVICES=1): ${reason}`);
  }
  console.log(`# skipped: ${reason}`);
  return reason;
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
