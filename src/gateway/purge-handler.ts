/**
 * @module gateway/purge-handler
 * The gateway's PURGE receiver: one URL (every Vary variant) or, with `xkey`, every response carrying a tag.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../errors/http-error.js';
import type { CacheKeyer } from './cache-key.js';
import type { CacheStore } from './cache-store.js';
import type { Generations } from './generations.js';
import { writeHead } from './exchange.js';
import { sendProblem } from './problem.js';

export interface PurgeContext {
  allowed: (address: string | undefined) => boolean;
  store: CacheStore;
  generations: Generations;
  /** The gateway's cache key, so `PURGE /path` names what a `GET /path` to the same Host stored. */
  keyOf: CacheKeyer;
  onPurge: () => void;
}

/**
 * Answers 200 with `{"purged": n}` when something was removed, 404 when nothing was stored,
 * 403 for addresses outside the allow-list. Generations are bumped even when nothing was
 * stored, so a fill in flight for that key or tag is not stored afterwards.
 */
export function handlePurge(req: IncomingMessage, res: ServerResponse, ctx: PurgeContext): void {
  req.resume();
  if (!ctx.allowed(req.socket.remoteAddress)) {
    sendProblem(res, new HttpError(403, 'Forbidden', { code: 'ROA_ERR_PURGE_FORBIDDEN', extensions: { detail: `PURGE is not allowed from ${req.socket.remoteAddress ?? 'unknown'}` } }), 'roa; fwd=bypass');
    return;
  }
  ctx.onPurge();
  const xkey = req.headers.xkey;
  const purged = typeof xkey === 'string' && xkey.trim() !== ''
    ? purgeEntries(ctx, [], xkey.split(/[\s,]+/))
    : purgeEntries(ctx, [ctx.keyOf(req.headers.host, req.url ?? '/')], []);
  if (purged === 0) {
    sendProblem(res, new HttpError(404, 'Not Found', { code: 'ROA_ERR_NOT_CACHED', extensions: { detail: 'nothing stored for this URL or tag' } }), 'roa; fwd=bypass');
    return;
  }
  const body = Buffer.from(JSON.stringify({ status: 'ok', purged }));
  writeHead(res, 200, undefined, ['Content-Type', 'application/json', 'Content-Length', String(body.length), 'Cache-Control', 'no-store', 'Via', '1.1 roa']);
  res.end(body);
}

/**
 * Drops every variant under `keys` and every response tagged with one of `tags`; returns how many
 * went. Each key and tag gets a new generation, so a fill in flight for it does not store its answer.
 */
export function purgeEntries(ctx: Pick<PurgeContext, 'store' | 'generations'>, keys: readonly string[], tags: readonly string[]): number {
  let purged = 0;
  for (const key of keys) {
    ctx.generations.purgeKey(key);
    purged += ctx.store.delete(key);
  }
  for (const tag of tags) {
    if (tag === '') continue;
    ctx.generations.purgeTag(tag);
    purged += ctx.store.deleteTag(tag);
  }
  return purged;
}
