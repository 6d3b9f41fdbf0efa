/**
 * @module gateway/hit-path
 * GET and HEAD: answering from the store when RFC 9111 allows it, else handing over to a fill.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { currentAge, requestDirectives, reuse } from './cache-rules.js';
import type { Variants } from './cache-store.js';
import { clientForm, normaliseAcceptEncoding } from './content-coding.js';
import { fill } from './fill.js';
import { forward } from './forward.js';
import type { GatewayContext } from './gateway-context.js';
import { gatewayTimeout, sendProblem } from './problem.js';
import { CREDENTIALS, PLAIN, type RequestKind } from './request-scan.js';
import { serveStored, writeHit } from './stored-response.js';

/**
 * Answers a GET or HEAD that scanRequest accepted. A `PLAIN` request (no request directives,
 * conditionals or Range) finding a fresh response is answered without reading `req.headers`
 * beyond what Vary names; everything else goes through {@link lookup}.
 */
export function serveBodiless(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, kind: RequestKind): void {
  // Credentials make a response personal: never looked up nor stored, forwarded intact.
  if (kind === CREDENTIALS) {
    forward(ctx, req, res, 'roa; fwd=bypass; detail=credentials', false);
    return;
  }
  if (ctx.normalise !== undefined) req.headers.accept = ctx.normalise(req.headers.accept);
  if (ctx.contentCoding) normaliseAcceptEncoding(req);
  const key = ctx.requestKey(req);
  const variants = ctx.store.get(key);
  if (variants !== undefined && kind === PLAIN) {
    const v = variants.only ?? variants.select(req.headers);
    if (v !== undefined && !v.noCache) {
      const age = v.initialAge + (ctx.now() - v.responseTime) / 1000;
      if (age < v.lifetime) {
        ctx.counters.hits++;
        writeHit(res, clientForm(req, v), age, req.method === 'HEAD', 'roa; hit');
        return;
      }
    }
  }
  lookup(ctx, req, res, key, variants);
}

/** The full RFC 9111 §4 evaluation: reuse, serve stale, validate, collapse or fetch. */
function lookup(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, key: string, variants: Variants | undefined): void {
  const h = req.headers;
  const rd = requestDirectives(h['cache-control'], h.pragma);
  const v = variants?.select(h);
  const now = ctx.now();
  if (v !== undefined) {
    const verdict = reuse(v, rd, now);
    if (verdict === 'fresh' || verdict === 'stale-ok') {
      ctx.counters.hits++;
      if (verdict === 'stale-ok') ctx.counters.stale++;
      serveStored(req, res, v, currentAge(v, now), 'roa; hit');
      return;
    }
    if (verdict === 'stale-while-revalidate') {
      ctx.counters.hits++;
      ctx.counters.stale++;
      serveStored(req, res, v, currentAge(v, now), 'roa; hit; fwd=stale');
      if (!ctx.revalidating.has(v)) {
        ctx.revalidating.add(v);
        fill(ctx, req, undefined, key, { validate: v, rd, coalesce: false, fwd: 'stale' });
      }
      return;
    }
  }
  if (rd.onlyIfCached) {
    // RFC 9111 §5.2.1.7: nothing usable stored, so 504 rather than contacting the origin.
    sendProblem(res, gatewayTimeout('only-if-cached and no usable stored response', 'ROA_ERR_NOT_CACHED'), 'roa; fwd=miss');
    return;
  }
  const fwd = v !== undefined ? (rd.noCache ? 'request' : 'stale') : variants !== undefined ? 'vary-miss' : 'uri-miss';
  if (req.method === 'HEAD') {
    forward(ctx, req, res, `roa; fwd=${fwd}`, false);
    return;
  }
  if (v !== undefined) {
    // Conditional when the stored response has validators (RFC 9111 §4.3.1); kept as the
    // stand-in should the origin fail (§4.2.4, RFC 5861 §4).
    fill(ctx, req, res, key, { validate: v, rd, coalesce: false, fwd });
    return;
  }
  const coalesce = !rd.noCache && rd.maxAge === undefined && h.range === undefined &&
    h['if-none-match'] === undefined && h['if-modified-since'] === undefined;
  const pending = coalesce ? ctx.inflight.get(key) : undefined;
  if (pending === undefined) {
    fill(ctx, req, res, key, { validate: undefined, rd, coalesce, fwd });
    return;
  }
  // Another fill for this key is running: wait for it, then answer from what it stored.
  void pending.then(() => {
    const w = ctx.store.get(key)?.select(h);
    if (w !== undefined && reuse(w, rd, ctx.now()) === 'fresh') {
      ctx.counters.hits++;
      serveStored(req, res, w, currentAge(w, ctx.now()), 'roa; fwd=miss; collapsed');
    } else {
      fill(ctx, req, res, key, { validate: undefined, rd, coalesce: false, fwd });
    }
  });
}
