/**
 * @module gateway/invalidation
 * What drops stored responses: a successful unsafe request (RFC 9111 §4.4) and a PURGE.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayContext } from './gateway-context.js';
import { handlePurge, purgeEntries } from './purge-handler.js';

/** RFC 9111 §4.4: drop the target URI and same-origin Location / Content-Location. */
export function invalidate(ctx: GatewayContext, req: IncomingMessage, map: Record<string, string>): void {
  const target = req.url!;
  drop(ctx, ctx.requestKey(req));
  const host = req.headers.host ?? ctx.upstreamHost;
  for (const ref of [map.location, map['content-location']]) {
    if (ref === undefined) continue;
    let url: URL;
    try {
      url = new URL(ref, `http://${host}${target.startsWith('/') ? target : '/'}`);
    } catch {
      continue;
    }
    // Only the same origin: another host's responses are not this cache's to drop (§4.4).
    if (url.host !== host && url.host !== ctx.upstreamHost) continue;
    drop(ctx, ctx.keyOf(url.host, url.pathname + url.search));
  }
}

/** Removes a key, and keeps a fill already in flight for it from storing its (older) answer. */
function drop(ctx: GatewayContext, key: string): void {
  ctx.generations.purgeKey(key);
  ctx.store.delete(key);
}

/** Receives a PURGE (gateway/purge-handler): by URL, or by `xkey` tag, from allowed addresses only. */
export function receivePurge(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse): void {
  handlePurge(req, res, {
    allowed: ctx.purgeAllowed,
    store: ctx.store,
    generations: ctx.generations,
    keyOf: ctx.keyOf,
    onPurge: () => ctx.counters.purges++,
  });
}

/** What an in-process invalidation names: request targets (or absolute URLs) and xkey tags. */
export interface InvalidationTarget {
  urls: string[];
  tags: string[];
}

/**
 * Does what PURGE requests for `target.urls` and an `xkey` PURGE for `target.tags` would, without a
 * request: for a gateway in the same process whose listener only takes TLS under a certificate for
 * its public name. A URL is a target (`/article/7?x`) or an absolute URL; a gateway keyed by host
 * (`keyByHost`) takes an absolute URL's authority, and keys a bare target under the origin's, as a
 * PURGE sent with the origin's Host would. Returns how many stored responses went.
 */
export function invalidateTargets(ctx: GatewayContext, target: InvalidationTarget): number {
  ctx.counters.purges++;
  const keys: string[] = [];
  for (const ref of target.urls) {
    if (ref.startsWith('/')) {
      keys.push(ctx.keyOf(ctx.upstreamHost, ref));
      continue;
    }
    let url: URL;
    try {
      url = new URL(ref);
    } catch {
      continue;
    }
    keys.push(ctx.keyOf(url.host, url.pathname + url.search));
  }
  return purgeEntries(ctx, keys, target.tags);
}
