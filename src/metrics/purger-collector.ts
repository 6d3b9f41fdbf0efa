/**
 * @module metrics/purger-collector
 * Purges sent, failed and retried per cache node, read from the purger at each scrape.
 */
import { Counter, type Registry } from 'prom-client';

/** One node's purge figures, as the purger reports them. */
export interface PurgeNodeStats {
  node: string;
  sent: number;
  failed: number;
  retried: number;
}

/** A purger that may report per-node figures (`nodeStats` is optional: older purgers have none). */
export interface PurgeStatsSource {
  nodeStats?: () => PurgeNodeStats[];
}

/**
 * Registers `roa_purges_{sent,failed,retried}_total{node}` in `registry`; `source` is read at each
 * scrape, since the purger is made after start-up (once the embedded gateway's port is known).
 */
export function collectPurger(registry: Registry, source: () => object | undefined): void {
  const registers = [registry];
  const counter = (name: string, help: string, read: (s: PurgeNodeStats) => number): void => {
    new Counter({
      name, help, labelNames: ['node'], registers,
      collect() {
        this.reset();
        const p = source() as PurgeStatsSource | undefined;
        if (p === undefined || typeof p.nodeStats !== 'function') return;
        for (const s of p.nodeStats()) this.labels(s.node).inc(read(s));
      },
    });
  };
  counter('roa_purges_sent_total', 'PURGE requests sent to a cache node', (s) => s.sent);
  counter('roa_purges_failed_total', 'PURGE requests to a cache node that failed or timed out', (s) => s.failed);
  counter('roa_purges_retried_total', 'PURGE requests to a cache node sent again (the delayed second purge or a retry)', (s) => s.retried);
}
