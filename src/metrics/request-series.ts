/**
 * @module metrics/request-series
 * The request count and duration histogram, counted per request in plain numbers and handed to
 * prom-client as metrics of its `registerMetric` contract (`get()` returns the samples), which
 * renders them. prom-client's own Counter and Histogram validate and hash the label set on every
 * `inc`/`observe`, even through `labels()` children; that costs more than the rest of a cached
 * article GET's bookkeeping together, and this runs on every request.
 */
import type { Registry } from 'prom-client';

type Labels = { route: string; method: string; status: string };

/** One label set: its count, sum and per-bucket (not cumulative) counts, the last slot for +Inf. */
interface Series {
  readonly labels: Labels;
  count: number;
  sum: number;
  readonly buckets: Float64Array;
}

interface Sample {
  metricName?: string;
  labels: Record<string, string>;
  value: number;
}

/** What prom-client's registry reads of a metric (`Registry.registerMetric`). */
interface CustomMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: 'counter' | 'histogram'; aggregator: 'sum'; values: Sample[] }>;
  reset(): void;
}

/**
 * Requests by route pattern, method and status: `<name>_total` (counter) and `<name>_duration_seconds`
 * (histogram), registered in `registry`.
 * @example
 *   const series = new RequestSeries(registry, 'roa_http_requests', [0.001, 0.01, 0.1]);
 *   series.observe('/article/:key', 'GET', 200, 0.0004);
 */
export class RequestSeries {
  readonly #bounds: readonly number[];
  /** route → method → status → series; the three keys are few and their strings are reused. */
  readonly #byRoute = new Map<string, Map<string, Map<number, Series>>>();
  readonly #all: Series[] = [];

  constructor(registry: Registry, counterName: string, counterHelp: string, histogramName: string, histogramHelp: string, bounds: readonly number[]) {
    this.#bounds = [...bounds].sort((a, b) => a - b);
    registry.registerMetric(this.#metric(counterName, counterHelp, 'counter') as never);
    registry.registerMetric(this.#metric(histogramName, histogramHelp, 'histogram') as never);
  }

  /** Counts one request that took `seconds`. */
  observe(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.#byRoute.get(route);
    if (byMethod === undefined) this.#byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (s === undefined) {
      s = { labels: { route, method, status: String(status) }, count: 0, sum: 0, buckets: new Float64Array(this.#bounds.length + 1) };
      byStatus.set(status, s);
      this.#all.push(s);
    }
    s.count++;
    s.sum += seconds;
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    s.buckets[i]!++;
  }

  #metric(name: string, help: string, type: 'counter' | 'histogram'): CustomMetric {
    const samples = type === 'counter' ? () => this.#counterSamples() : () => this.#histogramSamples(name);
    return {
      name, help, type, aggregator: 'sum',
      get: () => Promise.resolve({ name, help, type, aggregator: 'sum', values: samples() }),
      reset: () => this.#reset(),
    };
  }

  #counterSamples(): Sample[] {
    return this.#all.map((s) => ({ labels: s.labels, value: s.count }));
  }

  /** Cumulative buckets (`le`), then `_sum` and `_count`, as prom-client's Histogram writes them. */
  #histogramSamples(name: string): Sample[] {
    const out: Sample[] = [];
    for (const s of this.#all) {
      let cumulative = 0;
      for (let i = 0; i <= this.#bounds.length; i++) {
        cumulative += s.buckets[i]!;
        const le = i < this.#bounds.length ? String(this.#bounds[i]) : '+Inf';
        out.push({ metricName: `${name}_bucket`, labels: { le, ...s.labels }, value: cumulative });
      }
      out.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum });
      out.push({ metricName: `${name}_count`, labels: s.labels, value: s.count });
    }
    return out;
  }

  #reset(): void {
    for (const s of this.#all) {
      s.count = 0;
      s.sum = 0;
      s.buckets.fill(0);
    }
  }
}
