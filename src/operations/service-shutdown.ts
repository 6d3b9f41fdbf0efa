/**
 * @module operations/service-shutdown
 * The order a running service closes in: not ready, the embedded gateway drained (the service
 * still answers what it forwards), the service drained, pending purges finished or given up, then
 * Redis and the database closed. One deadline bounds all of it.
 */
import type { Drainable } from './server-drain.js';
import type { Readiness } from './readiness.js';

/** The Purger as shutdown sees it: `drain` where the purger has one, else `close`. */
export interface DrainablePurger {
  drain?(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
  stats?(): { pending: number };
}

export interface ServiceShutdownParts {
  readiness: Readiness;
  server: Drainable;
  gateway?: { shutdown(timeoutMs: number): Promise<{ cut: number }> };
  purger?: DrainablePurger;
  /** Redis and the database, closed last. */
  release(): Promise<void>;
}

export interface ServiceShutdownReport {
  /** Connections cut at the deadline: the embedded gateway's and the service's. */
  cut: { gateway: number; service: number };
  /** `drained`: the purger waited for its purges (it logs what it gave up); `closed`: purges still pending were dropped. */
  purges: 'none' | 'drained' | 'closed';
  /** Retries that were pending when the purger was closed without `drain`. */
  purgesAbandoned?: number;
}

/**
 * Shuts a running service down within `timeoutMs`.
 * @example
 *   await shutdownService({ readiness, server: drainable(server), release }, 10_000);
 */
export async function shutdownService(parts: ServiceShutdownParts, timeoutMs: number): Promise<ServiceShutdownReport> {
  const deadline = performance.now() + timeoutMs;
  const left = (): number => Math.max(0, deadline - performance.now());
  parts.readiness.shutDown();
  const gateway = parts.gateway ? await parts.gateway.shutdown(left()) : { cut: 0 };
  const service = await parts.server.drain(left());
  const report: ServiceShutdownReport = { cut: { gateway: gateway.cut, service: service.cut }, purges: 'none' };
  const purger = parts.purger;
  if (purger !== undefined) {
    if (typeof purger.drain === 'function') {
      await purger.drain(left());
      await purger.close();
      report.purges = 'drained';
    } else {
      const pending = purger.stats?.().pending ?? 0;
      await purger.close();
      report.purges = 'closed';
      if (pending > 0) report.purgesAbandoned = pending;
    }
  }
  await parts.release();
  return report;
}
