/**
 * @module metrics/gateway-collector
 * The caching gateway's figures (gateway `stats()`), read into a registry at each scrape: nothing
 * is counted twice on the gateway's hot path.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { GatewayStats } from '../gateway/proxy.js';

/** What the collector reads: `stale` may be absent from an older stats shape. */
export interface StatsSource {
  stats(): GatewayStats & { stale?: number };
}

/**
 * Registers the gateway's metrics in `registry`: hits, misses, stale answers, responses stored,
 * PURGEs received (counters), and bytes and entries held (gauges).
 * @example
 *   collectGateway(service.metrics.registry, () => running.gateway);
 */
export function collectGateway(registry: Registry, source: () => StatsSource | undefined): void {
  const registers = [registry];
  const counter = (name: string, help: string, read: (s: GatewayStats & { stale?: number }) => number | undefined): void => {
    new Counter({
      name, help, registers,
      collect() {
        const g = source();
        const v = g === undefined ? undefined : read(g.stats());
        this.reset();
        if (v !== undefined && v > 0) this.inc(v);
      },
    });
  };
  const gauge = (name: string, help: string, read: (s: GatewayStats) => number): void => {
    new Gauge({
      name, help, registers,
      collect() {
        const g = source();
        this.set(g === undefined ? 0 : read(g.stats()));
      },
    });
  };
  counter('roa_gateway_hits_total', 'Requests the gateway answered from its store (stale answers included)', (s) => s.hits);
  counter('roa_gateway_misses_total', 'Requests the gateway passed to the origin', (s) => s.misses);
  counter('roa_gateway_stale_total', 'Stale stored responses served (stale-while-revalidate, stale-if-error, max-stale)', (s) => s.stale ?? 0);
  counter('roa_gateway_stored_total', 'Responses the gateway stored', (s) => s.stored);
  counter('roa_gateway_purges_total', 'PURGE requests the gateway accepted', (s) => s.purges);
  gauge('roa_gateway_stored_bytes', 'Bytes the gateway holds (keys, fields, bodies and per-entry objects)', (s) => s.bytes);
  gauge('roa_gateway_entries', 'Responses the gateway holds, every Vary variant counted', (s) => s.entries);
}
