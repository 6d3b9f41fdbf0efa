/**
 * @module metrics/service-metrics
 * One service's Prometheus metrics in a registry of its own (never prom-client's global one, so
 * several services in one process do not clash): HTTP requests by route pattern, method and
 * status; authentication failures per scheme; database and nonce-store errors; process metrics.
 */
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { RequestSeries } from './request-series.js';

/** Seconds; from a cached read (well under a millisecond) to a slow write waiting on its purges. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route label of a request no route answered. */
export const UNMATCHED_ROUTE = 'unmatched';
/** The route label of a request answered by middleware, or by a route whose path is not one string pattern. */
export const OTHER_ROUTE = 'other';

/** Error codes counted as database errors (storage/store-errors). */
const STORE_CODES: ReadonlySet<string> = new Set(['ROA_ERR_STORE_UNAVAILABLE', 'ROA_ERR_STORE']);
/** The code of a nonce store that did not answer (auth/hmac). */
const NONCE_CODE = 'ROA_ERR_NONCE_STORE_UNAVAILABLE';

/**
 * The metrics of one service. `registry.metrics()` renders them (metrics/metrics-endpoint).
 * @example
 *   const m = new ServiceMetrics();
 *   m.observeRequest('/article/:key', 'GET', 200, 0.0004);
 *   await m.registry.metrics();
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #requests: RequestSeries;
  readonly #authFailures: Counter<'scheme'>;
  readonly #storeErrors: Counter<'code'>;
  readonly #nonceErrors: Counter;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.#requests = new RequestSeries(
      this.registry,
      'roa_http_requests_total', 'HTTP requests answered, by route pattern, method and status',
      'roa_http_request_duration_seconds', 'Time from the request to the end of its response, by route pattern, method and status',
      DURATION_BUCKETS,
    );
    this.#authFailures = new Counter({ name: 'roa_auth_failures_total', help: 'Requests refused with 401 for bad credentials, by authentication scheme', labelNames: ['scheme'], registers });
    this.#storeErrors = new Counter({ name: 'roa_database_errors_total', help: 'Requests failed by the database (503 unavailable, 500 failure), by error code', labelNames: ['code'], registers });
    this.#nonceErrors = new Counter({ name: 'roa_nonce_store_errors_total', help: 'Signed requests refused with 503 because the nonce store did not answer', registers });
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Counts one finished request; `seconds` from its start to the end of its response. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.#requests.observe(route, method, status, seconds);
  }

  /** Counts a 401 for bad credentials of `scheme` (auth/authenticator's `onFailure`). */
  authFailed(scheme: string): void {
    this.#authFailures.labels(scheme.toLowerCase()).inc();
  }

  /** Counts a database or nonce-store error by its code; other codes are not counted here. */
  countError(code: string | undefined): void {
    if (code === undefined) return;
    if (STORE_CODES.has(code)) this.#storeErrors.labels(code).inc();
    else if (code === NONCE_CODE) this.#nonceErrors.inc();
  }
}
