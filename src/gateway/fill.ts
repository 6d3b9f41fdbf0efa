/**
 * @module gateway/fill
 * A fill: fetching a response from the origin (conditionally when revalidating), answering the
 * client with it and storing what may be stored.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { weakEqual } from '../http/etag-list.js';
import { currentAge, responsePolicy, usableOnError, type RequestDirectives, type ResponsePolicy } from './cache-rules.js';
import type { StoredResponse } from './cache-store.js';
import { askForGzip, keyedVaryNames, relayDecoding, type RelayDecoding } from './content-coding.js';
import { clientGone, writeHead } from './exchange.js';
import { mayShare, type GatewayContext } from './gateway-context.js';
import { collectFields, fieldMap, type Field } from './headers.js';
import { interim, outgoing, upstreamFailure } from './forward.js';
import { buildStored, concatBody, freshen, serveStored, varyNames, varyValues } from './stored-response.js';
import { upstreamHeaders } from './upstream-headers.js';
import { UpstreamError } from './upstream.js';

/** The origin's final response to a fill. */
type UpstreamResponse = IncomingMessage;

export interface FillOptions {
  /** The stored response being revalidated (and kept as the stand-in should the origin fail). */
  validate: StoredResponse | undefined;
  rd: RequestDirectives;
  /** Whether identical requests arriving meanwhile wait for this fill (request collapsing). */
  coalesce: boolean;
  /** The Cache-Status `fwd` reason (RFC 9211 §2.2). */
  fwd: string;
}

/**
 * Fetches from the origin and answers `res` (undefined for a background revalidation), storing
 * the response when it may be stored.
 */
export function fill(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse | undefined, key: string, o: FillOptions): void {
  new Fill(ctx, req, res, key, o).start();
}

/** One fill's state: when it started, which purge generation it saw, and whether it has finished. */
class Fill {
  readonly ctx: GatewayContext;
  readonly req: IncomingMessage;
  readonly res: ServerResponse | undefined;
  readonly key: string;
  readonly o: FillOptions;
  readonly #requestTime: number;
  readonly #seq: number;
  #release: (() => void) | undefined;
  #finished = false;

  constructor(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse | undefined, key: string, o: FillOptions) {
    this.ctx = ctx;
    this.req = req;
    this.res = res;
    this.key = key;
    this.o = o;
    ctx.counters.misses += res === undefined ? 0 : 1;
    this.#requestTime = ctx.now();
    this.#seq = ctx.generations.begin();
    if (o.coalesce) this.#release = this.#announce();
  }

  start(): void {
    const headers = upstreamHeaders(this.ctx, this.req, this.o.validate);
    this.ctx.upstream.send({
      method: 'GET',
      path: this.req.url!,
      headers: this.ctx.contentCoding ? askForGzip(headers) : headers,
      body: undefined,
      onInformation: this.res === undefined ? undefined : interim(this.res),
    }).then((up) => this.#received(up), (err: unknown) => this.#failed(err));
  }

  /** Registers this fill as the one identical requests wait for; returns what releases them. */
  #announce(): () => void {
    const { inflight } = this.ctx;
    let done!: () => void;
    const p = new Promise<void>((resolve) => (done = resolve));
    inflight.set(this.key, p);
    return () => {
      if (inflight.get(this.key) === p) inflight.delete(this.key);
      done();
    };
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.ctx.generations.end();
    this.#release?.();
    if (this.o.validate !== undefined) this.ctx.revalidating.delete(this.o.validate);
  }

  #received(up: UpstreamResponse): void {
    const responseTime = this.ctx.now();
    const status = up.statusCode ?? 502;
    const fields = collectFields(up.rawHeaders);
    const map = fieldMap(fields);
    const v = this.o.validate;
    if (v !== undefined && status === 304 && (map.etag === undefined || v.etag === undefined || weakEqual(map.etag, v.etag))) {
      up.resume();
      this.#validated(v, fields, map, responseTime);
      return;
    }
    if (v !== undefined && status >= 500 && usableOnError(v, this.o.rd, responseTime)) {
      // RFC 5861 §4 / RFC 9111 §4.2.4: the stored response stands in for the origin's error.
      up.resume();
      this.#finish();
      if (this.res !== undefined) {
        this.ctx.counters.stale++;
        serveStored(this.req, this.res, v, currentAge(v, responseTime), `roa; hit; fwd=${this.o.fwd}; fwd-status=${status}`);
      }
      return;
    }
    this.#relay(up, status, fields, map, responseTime);
  }

  /** RFC 9111 §4.3.4: a 304 freshens the stored response, which then answers. */
  #validated(v: StoredResponse, fields: Field[], map: Record<string, string>, responseTime: number): void {
    const { ctx } = this;
    const updated = freshen(v, fields, this.#requestTime, responseTime);
    ctx.store.remove(v);
    if (!ctx.generations.purgedSince(this.key, updated.tags, this.#seq) && mayShare(ctx, map)) ctx.store.put(updated);
    this.#finish();
    if (this.res !== undefined) serveStored(this.req, this.res, updated, currentAge(updated, ctx.now()), `roa; fwd=${this.o.fwd}; fwd-status=304`);
  }

  /** Relays a full response to the client while collecting it for the store (up to `maxBytes`). */
  #relay(up: UpstreamResponse, status: number, fields: Field[], map: Record<string, string>, responseTime: number): void {
    const { ctx, res, o } = this;
    const policy = responsePolicy('GET', status, map, o.rd, responseTime);
    const worthKeeping = policy.lifetime > 0 || policy.swr > 0 || policy.sie > 0 || map.etag !== undefined || map['last-modified'] !== undefined;
    let storing = policy.storable && worthKeeping && mayShare(ctx, map);
    if (o.validate !== undefined && !storing) ctx.store.remove(o.validate);
    const decoding = res === undefined ? undefined : relayDecoding(this.req, status, fields);
    if (decoding !== undefined) pipeDecoded(decoding, res!);
    if (res !== undefined) {
      writeHead(res, status, up.statusMessage, outgoing(decoding?.fields ?? fields, map.via, `roa; fwd=${o.fwd}${o.validate !== undefined ? `; fwd-status=${status}` : ''}${storing ? '; stored' : ''}`));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    up.on('data', (chunk: Buffer) => {
      if (storing) {
        size += chunk.length;
        if (size > ctx.maxBytes) {
          storing = false;
          chunks.length = 0;
        } else chunks.push(chunk);
      }
      if (res === undefined || clientGone(res)) return;
      const sink = decoding?.stream ?? res;
      if (!sink.write(chunk)) {
        up.pause();
        sink.once('drain', () => up.resume());
      }
    });
    up.on('end', () => {
      if (storing) this.#store(up, status, fields, map, policy, concatBody(chunks, size), responseTime);
      // The stored copy is the only one kept: the chunks must not live on in this closure.
      chunks.length = 0;
      this.#finish();
      if (decoding !== undefined) decoding.stream.end();
      else res?.end();
    });
    up.on('error', () => {
      this.#finish();
      res?.destroy();
    });
    res?.on('close', () => {
      if (res.writableFinished) return;
      // Keep reading a response being stored (also when paused for a client now gone); otherwise
      // stop the transfer, which closes the upstream connection rather than pool it half-read.
      if (storing) up.resume();
      else up.destroy();
    });
  }

  #store(up: UpstreamResponse, status: number, fields: Field[], map: Record<string, string>, policy: ResponsePolicy, body: Buffer, responseTime: number): void {
    const { ctx, key } = this;
    const names = this.ctx.contentCoding ? keyedVaryNames(varyNames(map.vary), fields) : varyNames(map.vary);
    const stored = buildStored({
      key, status, statusMessage: up.statusMessage ?? '', fields, body, policy,
      ageHeaders: map, requestTime: this.#requestTime, responseTime,
      vary: { names, values: varyValues(names, this.req.headers) },
    });
    // A purge of the key or of one of its tags since this fill began makes its answer outdated.
    if (!ctx.generations.purgedSince(key, stored.tags, this.#seq)) {
      ctx.store.put(stored);
      ctx.counters.stored++;
    }
  }

  #failed(err: unknown): void {
    this.#finish();
    const { ctx, res, o } = this;
    if (res === undefined) return;
    const now = ctx.now();
    const disconnected = err instanceof UpstreamError && err.kind === 'unreachable';
    if (o.validate !== undefined && usableOnError(o.validate, o.rd, now, disconnected)) {
      ctx.counters.stale++;
      serveStored(this.req, res, o.validate, currentAge(o.validate, now), `roa; hit; fwd=${o.fwd}; detail=origin-error`);
      return;
    }
    upstreamFailure(ctx, res, err);
  }
}

/** The decoder's output goes to the client; a body that does not decode ends the response abruptly. */
function pipeDecoded(decoding: RelayDecoding, res: ServerResponse): void {
  decoding.stream.on('data', (chunk: Buffer) => {
    if (!clientGone(res)) res.write(chunk);
  });
  decoding.stream.on('end', () => res.end());
  decoding.stream.on('error', () => res.destroy());
}
