/**
 * @module gateway/proxy
 * createGateway: the caching reverse proxy; wires the hit path, fill, forwarding and invalidation.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { activeFastPaths, type FastPaths, type FastPathsOption } from '../http/fast-paths.js';
import { answerProbe, probeKind } from '../operations/health.js';
import type { Readiness } from '../operations/readiness.js';
import { SAFE_METHODS } from '../http/safe-methods.js';
import { requestStarted } from '../http/turn-flush.js';
import type { CacheStore } from './cache-store.js';
import { adoptAuthority } from './exchange.js';
import { forward } from './forward.js';
import { createGatewayContext, type GatewayContext } from './gateway-context.js';
import { createGatewayServer, type GatewayServer, type GatewayTls } from './gateway-server.js';
import { gatewayReadiness } from './health.js';
import { gatewayRequests } from './gateway-access.js';
import { collectGateway } from '../metrics/gateway-collector.js';
import { isMetricsPath, metricsResponder } from '../metrics/metrics-endpoint.js';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { serveBodiless } from './hit-path.js';
import { invalidateTargets, receivePurge, type InvalidationTarget } from './invalidation.js';
import { INVALID_HOST, refuse, scanRequest, type Refusal } from './request-scan.js';

export { ROA_MEDIA_TYPES } from './accept-normaliser.js';
export type { GatewayServer, GatewayTls } from './gateway-server.js';
export type { InvalidationTarget } from './invalidation.js';

export interface GatewayLogger {
  info(...a: unknown[]): void;
  warn(...a: unknown[]): void;
  error(...a: unknown[]): void;
}

export interface GatewayOptions {
  /** Base URL of the origin, e.g. http://127.0.0.1:3000 */
  upstream: string;
  /**
   * Where responses are stored. Default: a `MemoryCacheStore` bounded by `maxBytes` and
   * `maxVariants`. A store given here brings its own bounds; `maxBytes` still caps one response.
   */
  store?: CacheStore;
  /** LRU memory bound in bytes, counting keys, fields, bodies and per-entry objects; default 64 MiB. */
  maxBytes?: number;
  /** Most Vary variants kept per URL, the least recently used dropped first; default 16. */
  maxVariants?: number;
  /**
   * Key on the request's Host as well as its target (RFC 9111 §2). Off for the embedded gateway,
   * which fronts its one origin; `runGateway` (`roa gateway`) turns it on.
   */
  keyByHost?: boolean;
  /**
   * Store responses that carry `Set-Cookie` (and replay the cookie to every client). Off by
   * default, as in Varnish's built-in VCL: such a response is passed to its one client only.
   */
  storeSetCookie?: boolean;
  /**
   * Serve HTTPS: one TLS listener (TLS 1.2 at least) offering HTTP/2 and HTTP/1.1 by ALPN, which
   * behave the same. The origin is still spoken to in plain HTTP/1.1. `server` is then node:http2's
   * secure server, whose `setSecureContext` takes a renewed pair (tls/credentials `reloadOnSignal`).
   */
  tls?: GatewayTls;
  /**
   * Peers whose X-Forwarded-For, -Proto, -Host and Forwarded are kept (addresses, CIDRs and
   * `loopback`, `linklocal`, `uniquelocal`, as in Express's `trust proxy`); default none. From any
   * other peer they are replaced by what this gateway saw (gateway/upstream-headers).
   */
  trustProxy?: string[];
  /** CIDRs allowed to PURGE; default loopback (127.0.0.0/8, ::1). */
  purgeAllow?: string[];
  /** Media types Accept is normalised to (default {@link ROA_MEDIA_TYPES}); false leaves Accept untouched. */
  normaliseAccept?: string[] | false;
  /**
   * Store one copy per variant, asking the origin for gzip, and decode it for clients that do not
   * accept gzip (gateway/content-coding, like Varnish's http_gzip_support). Default true.
   */
  contentCoding?: boolean;
  /** Default 30 s; past it the client gets a 504 problem. */
  upstreamTimeoutMs?: number;
  /**
   * The local address connections to the origin are made from (default: the system's choice). The
   * embedded gateway pins it so that the service can trust exactly this address's X-Forwarded-For.
   */
  upstreamLocalAddress?: string;
  /** The clock ages and freshness are computed with, in milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /**
   * The speed tricks that rely on Node internals (http/fast-paths); the gateway uses `turnFlush`.
   * Default: `ROA_FAST_PATHS` from the environment, else all on where detected.
   */
  fastPaths?: FastPathsOption;
  logger?: GatewayLogger;
  /**
   * Answer `GET /metrics` here (the gateway's figures and process metrics) to the addresses of
   * `allow` (CIDRs, default loopback), judged by the socket's peer. `roa gateway` turns it on; the
   * embedded gateway passes /metrics to its service. Default off.
   */
  metrics?: { allow?: string[] };
}

export interface GatewayStats {
  hits: number;
  misses: number;
  /** Stored responses served past their freshness (counted in `hits` too). */
  stale: number;
  stored: number;
  bytes: number;
  /** Responses held now, every Vary variant counted. */
  entries: number;
  purges: number;
}

export interface Gateway {
  /**
   * node:http's server, or with `tls` node:http2's secure server (narrow with
   * `'setSecureContext' in gateway.server` to reload its certificate).
   */
  server: GatewayServer;
  /** What clients speak to this gateway: `https` with `tls` (HTTP/2 or HTTP/1.1), else `http`. */
  readonly protocol: 'http' | 'https';
  /** The fast paths this gateway runs (wanted and detected). */
  readonly fastPaths: FastPaths;
  listen(port: number, host?: string): Promise<AddressInfo>;
  /** Closes at once: every connection is cut. */
  close(): Promise<void>;
  /**
   * Closes gracefully: `/readyz` answers 503, no new connections, requests in flight finish
   * (HTTP/1 responses say `Connection: close`, HTTP/2 sessions get GOAWAY); after `timeoutMs` what
   * is still open is cut, and `cut` says how many connections that was.
   */
  shutdown(timeoutMs: number): Promise<{ cut: number }>;
  stats(): GatewayStats;
  /**
   * Drops what PURGE requests for `target.urls` and an `xkey` PURGE for `target.tags` would, and
   * returns how many stored responses went: for an origin in the same process (its purger), which
   * cannot PURGE a TLS-only listener over loopback under a certificate for the public name.
   */
  invalidate(target: InvalidationTarget): number;
}

/**
 * Creates the caching gateway in front of `opts.upstream`.
 * @example
 *   const gw = createGateway({ upstream: 'http://127.0.0.1:3000', normaliseAccept: ['application/json'] });
 *   await gw.listen(8080, '127.0.0.1');
 */
export function createGateway(opts: GatewayOptions): Gateway {
  const ctx = createGatewayContext(opts);
  const fastPaths = activeFastPaths(opts.fastPaths);
  const readiness = gatewayReadiness(opts.upstream, opts.upstreamLocalAddress);
  const begin = gatewayRequests(ctx.logger);
  const metrics = opts.metrics === undefined ? undefined : gatewayMetrics(opts.metrics.allow, () => gateway);
  const dispatch = (req: IncomingMessage, res: ServerResponse): void => handle(ctx, req, res, readiness, begin, metrics);
  const onRequest = fastPaths.turnFlush
    ? (req: IncomingMessage, res: ServerResponse): void => {
      requestStarted();
      handle(ctx, req, res, readiness, begin, metrics);
    }
    : dispatch;

  // RFC 9110 §10.1.1: the origin decides whether it wants the body. The client's Expect goes on
  // with the request and the origin's `100 Continue` comes back through `interim` (gateway/forward),
  // so a write the origin refuses on its headers (401, 413) is answered without the client sending the body.
  const { server, closeConnections, drain } = createGatewayServer(opts.tls, onRequest, fastPaths.turnFlush);

  const gateway: Gateway = {
    server,
    protocol: ctx.protocol,
    fastPaths,
    listen(port, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          ctx.logger.info({ address, protocol: ctx.protocol, upstream: opts.upstream }, 'gateway listening');
          resolve(address);
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        closeConnections();
        ctx.upstream.close();
      });
    },
    async shutdown(timeoutMs) {
      readiness.shutDown();
      const report = await drain(timeoutMs);
      ctx.upstream.close();
      return report;
    },
    stats() {
      return { ...ctx.counters, bytes: ctx.store.bytes, entries: ctx.store.count };
    },
    invalidate(target) {
      return invalidateTargets(ctx, target);
    },
  };
  return gateway;
}

type MetricsAnswer = (address: string | undefined, req: IncomingMessage, res: ServerResponse) => void;

/** The standalone gateway's own registry: its figures (metrics/gateway-collector) and process metrics. */
function gatewayMetrics(allow: string[] | undefined, gateway: () => Gateway): MetricsAnswer {
  const registry = new Registry();
  collectGateway(registry, gateway);
  collectDefaultMetrics({ register: registry });
  return metricsResponder(registry, allow);
}

/** Sends each request its way: refused, answered from the cache, a PURGE, or passed through. */
function handle(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, readiness: Readiness, begin: (req: IncomingMessage, res: ServerResponse) => void, metrics: MetricsAnswer | undefined): void {
  const method = req.method!;
  const bodiless = method === 'GET' || method === 'HEAD';
  // Host (or HTTP/2's :authority) may be left out by HTTP/1.0 only.
  const h2 = req.httpVersionMajor === 2;
  const kind = scanRequest(req.rawHeaders, h2 || req.httpVersionMinor !== 0, bodiless);
  if (kind >= INVALID_HOST) {
    refuse(res, kind as Refusal);
    return;
  }
  if (h2) adoptAuthority(req);
  // The gateway's own probes, whatever the origin has at these paths; bodies never say why the
  // origin failed (it may name internal hosts).
  const probe = probeKind(req.url);
  if (probe !== undefined) {
    answerProbe(probe, req, res, readiness, { production: true });
    return;
  }
  if (metrics !== undefined && isMetricsPath(req.url)) {
    metrics(req.socket.remoteAddress, req, res);
    return;
  }
  begin(req, res);
  if (bodiless) {
    serveBodiless(ctx, req, res, kind);
    return;
  }
  if (method === 'PURGE') {
    receivePurge(ctx, req, res);
    return;
  }
  // Unsafe methods invalidate on 2xx/3xx (RFC 9111 §4.4).
  forward(ctx, req, res, 'roa; fwd=method', !SAFE_METHODS.has(method));
}
