/**
 * @module gateway/gateway-context
 * What the gateway's steps (hit path, fill, forwarding, invalidation) share: the options resolved once.
 */
import type { IncomingMessage } from 'node:http';
import { acceptNormaliser, ROA_MEDIA_TYPES } from './accept-normaliser.js';
import { cacheKeyer, type CacheKeyer } from './cache-key.js';
import type { CacheStore, StoredResponse } from './cache-store.js';
import { compileCidrs, LOOPBACK_CIDRS } from './cidr.js';
import { peerTrust } from './forwarded-headers.js';
import { Generations } from './generations.js';
import { MemoryCacheStore } from './memory-cache-store.js';
import type { GatewayLogger, GatewayOptions } from './proxy.js';
import { Upstream } from './upstream.js';

export interface GatewayCounters {
  hits: number;
  misses: number;
  /** Stored responses served past their freshness (stale-while-revalidate, stale-if-error, max-stale). */
  stale: number;
  stored: number;
  purges: number;
}

export interface GatewayContext {
  readonly store: CacheStore;
  readonly upstream: Upstream;
  /** The origin's authority: Host for HTTP/1.0 clients that sent none, and the same-origin test of §4.4. */
  readonly upstreamHost: string;
  /** A response larger than this is relayed but not stored. */
  readonly maxBytes: number;
  readonly logger: GatewayLogger;
  /** Milliseconds since the epoch; every age and freshness computation reads this clock. */
  readonly now: () => number;
  /** Maps Accept to one supported type, or undefined when Accept is left untouched. */
  readonly normalise: ((accept: string | undefined) => string | undefined) | undefined;
  /** One stored copy per variant, gzip when the origin gives it, decoded for clients that do not take it (gateway/content-coding). */
  readonly contentCoding: boolean;
  readonly keyOf: CacheKeyer;
  /** The cache key of a request; for a single origin the target alone, so no field is read for it. */
  readonly requestKey: (req: IncomingMessage) => string;
  /** Whether a response setting a cookie may be stored and shared (`storeSetCookie`). */
  readonly storeSetCookie: boolean;
  /** Whether a peer's X-Forwarded-* and Forwarded are believed and passed on (`trustProxy`). */
  readonly peerTrusted: (address: string | undefined) => boolean;
  /** How clients reach this gateway's one listener: `https` with `tls`, else `http` (X-Forwarded-Proto). */
  readonly protocol: 'http' | 'https';
  /** Whether an address may PURGE. */
  readonly purgeAllowed: (address: string | undefined) => boolean;
  readonly generations: Generations;
  /** Fills in flight by key, which identical requests wait for instead of asking the origin again. */
  readonly inflight: Map<string, Promise<void>>;
  /** Stored responses being revalidated in the background, so one stale hit starts one revalidation. */
  readonly revalidating: WeakSet<StoredResponse>;
  readonly counters: GatewayCounters;
}

const NOOP_LOGGER: GatewayLogger = { info() {}, warn() {}, error() {} };

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export function createGatewayContext(opts: GatewayOptions): GatewayContext {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const accept = opts.normaliseAccept === undefined ? ROA_MEDIA_TYPES : opts.normaliseAccept;
  const keyOf = cacheKeyer(opts.keyByHost === true);
  return {
    store: opts.store ?? new MemoryCacheStore(maxBytes, { maxVariants: opts.maxVariants }),
    upstream: new Upstream(opts.upstream, opts.upstreamTimeoutMs ?? 30_000, opts.upstreamLocalAddress),
    upstreamHost: new URL(opts.upstream).host,
    maxBytes,
    logger: opts.logger ?? NOOP_LOGGER,
    now: opts.now ?? Date.now,
    normalise: accept === false ? undefined : acceptNormaliser(accept),
    contentCoding: opts.contentCoding !== false,
    keyOf,
    requestKey: opts.keyByHost === true ? (req) => keyOf(req.headers.host, req.url!) : (req) => req.url!,
    storeSetCookie: opts.storeSetCookie === true,
    peerTrusted: peerTrust(opts.trustProxy),
    protocol: opts.tls === undefined ? 'http' : 'https',
    purgeAllowed: compileCidrs(opts.purgeAllow ?? LOOPBACK_CIDRS),
    generations: new Generations(),
    inflight: new Map(),
    revalidating: new WeakSet(),
    counters: { hits: 0, misses: 0, stale: 0, stored: 0, purges: 0 },
  };
}

/** A shared response setting a cookie is passed to its one client unless configured otherwise. */
export function mayShare(ctx: GatewayContext, map: Record<string, string>): boolean {
  return ctx.storeSetCookie || map['set-cookie'] === undefined;
}
