/**
 * @module resources/idempotency
 * `Idempotency-Key` on POST (draft-ietf-httpapi-idempotency-key-header, with Stripe's behaviour as the
 * practical model): the first request with a key claims it in the store (atomically, so instances sharing
 * PostgreSQL agree), runs, and its answer is stored; a retry with the same key and the same request gets
 * that answer again, marked `Idempotent-Replayed: true`, and nothing runs twice.
 */
import { createHash, randomUUID } from 'node:crypto';
import { HttpError } from '../errors/http-error.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import type { IdempotencyKeyRef, IdempotentResponse, Store } from '../storage/store.js';
import type { ResourceContext } from './resource.js';

/** Keys (and the answers stored under them) are kept a day, as Stripe does. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600_000;
/** A running marker older than this belongs to an instance that died; another request may take the key. */
export const IDEMPOTENCY_LOCK_MS = 60_000;
const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_LIMIT = 500;
/** The fields of a stored answer that a replay sends again (with its status and body). */
const REPLAYED_FIELDS = ['Location', 'Content-Location', 'Content-Type', 'ETag', 'Last-Modified', 'Vary'] as const;

export type IdempotencyStore = Pick<Store, 'claimIdempotencyKey' | 'completeIdempotencyKey' | 'releaseIdempotencyKey' | 'sweepIdempotencyKeys'>;

export interface IdempotencyOptions {
  store: IdempotencyStore;
  /** ms epoch; injected by tests. Default Date.now. */
  clock?: () => number;
  /** How long a key is kept. Default 24 hours. */
  ttlMs?: number;
  /** How long a running marker holds its key before it counts as abandoned. Default 60 s. */
  lockMs?: number;
  /** Expired keys are deleted at most this often per instance, at most `sweepLimit` at a time. Default 60 s, 500. */
  sweepIntervalMs?: number;
  sweepLimit?: number;
}

/**
 * The idempotency keys of one resource's POSTs. `resourceHandler` calls `run` for a POST that carries a key,
 * after authentication and after the body was read and validated: a request refused before then claims
 * nothing, and the same request is refused the same way again.
 * @example
 *   const spec = { ...collection, idempotency: new IdempotencyKeys({ store }) };
 */
export class IdempotencyKeys {
  private readonly store: IdempotencyStore;
  private readonly clock: () => number;
  private readonly ttlMs: number;
  private readonly lockMs: number;
  private readonly sweepIntervalMs: number;
  private readonly sweepLimit: number;
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(opts: IdempotencyOptions) {
    this.store = opts.store;
    this.clock = opts.clock ?? Date.now;
    this.ttlMs = positive(opts.ttlMs ?? IDEMPOTENCY_KEY_TTL_MS, 'ttlMs');
    this.lockMs = positive(opts.lockMs ?? IDEMPOTENCY_LOCK_MS, 'lockMs');
    this.sweepIntervalMs = positive(opts.sweepIntervalMs ?? SWEEP_INTERVAL_MS, 'sweepIntervalMs');
    this.sweepLimit = positive(opts.sweepLimit ?? SWEEP_LIMIT, 'sweepLimit');
  }

  /**
   * Runs `action` (which answers through `ctx.res`) once per caller and key: replays a stored answer,
   * 422 when the key was used for another request, 409 while the first one still runs.
   */
  async run(ctx: ResourceContext<unknown>, key: string, action: () => Promise<void>, development = false): Promise<void> {
    const { req, res } = ctx;
    // Keys are scoped to the caller: another user's key of the same text is another key.
    if (ctx.caller === undefined) throw new HttpError(400, 'Idempotency-Key needs an authenticated request', { code: 'ROA_ERR_BAD_IDEMPOTENCY_KEY' });
    const now = this.clock();
    this.sweep(now);
    const ref: IdempotencyKeyRef = { caller: ctx.caller.name, key, token: randomUUID() };
    const fingerprint = fingerprintOf(req);
    const claim = await this.store.claimIdempotencyKey({ ...ref, fingerprint, nowMs: now, lockedUntilMs: now + this.lockMs, expiresAtMs: now + this.ttlMs });
    if (claim.state !== 'claimed' && claim.fingerprint !== fingerprint) {
      ctx.trace.push('idempotency:mismatch');
      throw new HttpError(422, 'This Idempotency-Key was used for a different request (method, URL, Content-Type or body)', { code: 'ROA_ERR_IDEMPOTENCY_KEY_REUSED' });
    }
    if (claim.state === 'running') {
      ctx.trace.push('idempotency:running');
      throw new HttpError(409, 'A request with this Idempotency-Key is still being processed; retry later', {
        code: 'ROA_ERR_IDEMPOTENCY_KEY_IN_USE',
        headers: { 'Retry-After': '1' },
      });
    }
    if (claim.state === 'done') {
      ctx.trace.push('idempotency:replayed');
      return replay(res, claim.response, development ? ctx.trace : undefined);
    }
    ctx.trace.push('idempotency:claimed');
    await this.runClaimed(res, ref, action);
  }

  /** Runs the action with its response held back until the answer is stored, so a retry right after it sees the answer. */
  private async runClaimed(res: Response, ref: IdempotencyKeyRef, action: () => Promise<void>): Promise<void> {
    const held = holdEnd(res);
    try {
      await action();
    } catch (err) {
      held.restore();
      // A failed request stores nothing: the key is freed, so a retry runs (as after a 5xx at Stripe).
      await this.store.releaseIdempotencyKey(ref).catch(() => false);
      throw err;
    }
    held.restore();
    const response = held.captured(res);
    if (response === undefined || response.status >= 500) await this.store.releaseIdempotencyKey(ref).catch(() => false);
    // The write happened: its answer goes out even when storing it failed (the marker then lapses after lockMs).
    else await this.store.completeIdempotencyKey(ref, response).catch(() => false);
    held.flush();
  }

  /** Deletes expired keys now and then, without making the request wait; expired keys are ignored anyway. */
  private sweep(now: number): void {
    if (now - this.lastSweep < this.sweepIntervalMs) return;
    this.lastSweep = now;
    this.store.sweepIdempotencyKeys(now, this.sweepLimit).catch(() => 0);
  }
}

/**
 * What a retry must repeat: sha-256 over the method, the request target (path and query), the
 * Content-Type as sent and the body bytes (after any Content-Encoding was undone), NUL-separated.
 */
export function fingerprintOf(req: Request): string {
  const hash = createHash('sha256');
  hash.update(`${req.method ?? ''}\0${req.originalUrl || req.url || ''}\0${req.headers['content-type'] ?? ''}\0`);
  if (req.rawBody !== undefined) hash.update(req.rawBody);
  return hash.digest('base64url');
}

/** The stored answer again, as first sent (whatever this retry's Accept says). */
function replay(res: Response, stored: IdempotentResponse, trace: string[] | undefined): void {
  const headers: Record<string, string> = { ...stored.headers, 'Idempotent-Replayed': 'true', 'Content-Length': String(Buffer.byteLength(stored.body)) };
  if (trace !== undefined) headers['X-Roa-Trace'] = trace.join(', ');
  res.writeHead(stored.status, headers);
  res.end(stored.body);
}

interface HeldEnd {
  restore(): void;
  captured(res: Response): IdempotentResponse | undefined;
  flush(): void;
}

/** Keeps `res.end` from sending while the answer is stored; the headers set so far stay on `res`. */
function holdEnd(res: Response): HeldEnd {
  const own = Object.prototype.hasOwnProperty.call(res, 'end');
  const original = res.end;
  let args: unknown[] | undefined;
  res.end = ((...a: unknown[]) => {
    args = a;
    return res;
  }) as Response['end'];
  return {
    restore() {
      if (own) res.end = original;
      else delete (res as Partial<Response>).end;
    },
    captured(r) {
      if (args === undefined) return undefined;
      const chunk = args[0];
      const body = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_FIELDS) {
        const v = r.getHeader(name);
        if (v !== undefined) headers[name] = Array.isArray(v) ? v.join(', ') : String(v);
      }
      return { status: r.statusCode, headers, body };
    },
    flush() {
      if (args !== undefined) (res.end as (...a: unknown[]) => Response)(...args);
    },
  };
}

function positive(n: number, name: string): number {
  if (!Number.isFinite(n) || n <= 0) throw new RangeError(`${name} must be a positive number, got ${String(n)}`);
  return n;
}
