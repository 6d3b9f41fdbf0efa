/**
 * @module gateway/proxy
 * createGateway: the caching reverse proxy (X-Cache, Cache-Status, PURGE, coalescing, invalidation).
 */
import { createServer, type IncomingMessage, type InformationEvent, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { acceptNormaliser } from './accept-normaliser.js';
import { requestDirectives, responsePolicy, reuse, usableOnError, currentAge, type RequestDirectives } from './cache-rules.js';
import { cacheKeyer } from './cache-key.js';
import type { CacheStore, StoredResponse, Variants } from './cache-store.js';
import { compileCidrs, LOOPBACK_CIDRS } from './cidr.js';
import { Generations } from './generations.js';
import { addVia, collectFields, fieldMap, passesToClient, type Field } from './headers.js';
import { MemoryCacheStore } from './memory-cache-store.js';
import { badGateway, gatewayTimeout, sendProblem } from './problem.js';
import { handlePurge } from './purge-handler.js';
import { buildStored, concatBody, freshen, serveStored, varyNames, varyValues, writeHit } from './stored-response.js';
import { requestFraming, type Framing } from './request-framing.js';
import { Upstream, UpstreamError } from './upstream.js';
import { HttpError } from '../errors/http-error.js';
import { answerClientError, refuseConnect } from '../http/client-error.js';
import { weakEqual } from '../http/etag-list.js';
import { isValidHost } from '../http/host.js';
import { flushPerTurn, requestStarted } from '../http/turn-flush.js';

export interface GatewayLogger {
  info(...a: unknown[]): void;
  warn(...a: unknown[]): void;
  error(...a: unknown[]): void;
}

export interface GatewayOptions {
  /** Base URL of the origin, e.g. http://127.0.0.1:3000 */
  upstream: string;
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
  /** CIDRs allowed to PURGE; default loopback (127.0.0.0/8, ::1). */
  purgeAllow?: string[];
  /** Media types Accept is normalised to (default {@link ROA_MEDIA_TYPES}); false leaves Accept untouched. */
  normaliseAccept?: string[] | false;
  /** Default 30 s; past it the client gets a 504 problem. */
  upstreamTimeoutMs?: number;
  /**
   * The local address connections to the origin are made from (default: the system's choice). The
   * embedded gateway pins it so that the service can trust exactly this address's X-Forwarded-For.
   */
  upstreamLocalAddress?: string;
  logger?: GatewayLogger;
}

export interface GatewayStats {
  hits: number;
  misses: number;
  stored: number;
  bytes: number;
  /** Responses held now, every Vary variant counted. */
  entries: number;
  purges: number;
}

export interface Gateway {
  server: Server;
  listen(port: number, host?: string): Promise<AddressInfo>;
  close(): Promise<void>;
  stats(): GatewayStats;
}

/** Methods that never invalidate (RFC 9110 §9.2.1); every other one does on 2xx/3xx (RFC 9111 §4.4). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
/** Request fields replaced by the cache's own validators when it revalidates. */
const CLIENT_CONDITIONALS = new Set(['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range', 'range']);
const HOP_BY_HOP_REQUEST = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * The representations roa's article service serves, in its order of preference; the embedded gateway
 * normalises Accept to these. Listing a type the origin cannot produce would turn a browser's
 * Accept (text/html first, then XML, then any) into a 406.
 */
export const ROA_MEDIA_TYPES = ['application/xml', 'application/json'];

const NOOP_LOGGER: GatewayLogger = { info() {}, warn() {}, error() {} };

interface FillOptions {
  validate: StoredResponse | undefined;
  rd: RequestDirectives;
  coalesce: boolean;
  fwd: string;
}

/**
 * Creates the caching gateway in front of `opts.upstream`.
 * @example
 *   const gw = createGateway({ upstream: 'http://127.0.0.1:3000', normaliseAccept: ['application/json'] });
 *   await gw.listen(8080, '127.0.0.1');
 */
export function createGateway(opts: GatewayOptions): Gateway {
  const maxBytes = opts.maxBytes ?? 64 * 1024 * 1024;
  const logger = opts.logger ?? NOOP_LOGGER;
  const upstream = new Upstream(opts.upstream, opts.upstreamTimeoutMs ?? 30_000, opts.upstreamLocalAddress);
  const upstreamHost = new URL(opts.upstream).host;
  const allowed = compileCidrs(opts.purgeAllow ?? LOOPBACK_CIDRS);
  const accept = opts.normaliseAccept === undefined ? ROA_MEDIA_TYPES : opts.normaliseAccept;
  const normalise = accept === false ? undefined : acceptNormaliser(accept);
  const store: CacheStore = new MemoryCacheStore(maxBytes, { maxVariants: opts.maxVariants });
  const keyOf = cacheKeyer(opts.keyByHost === true);
  // The single-origin key needs no field, so the hit path does not materialise req.headers for it.
  const requestKey = opts.keyByHost === true ? (req: IncomingMessage) => keyOf(req.headers.host, req.url!) : (req: IncomingMessage) => req.url!;
  const storeSetCookie = opts.storeSetCookie === true;
  /** A shared response setting a cookie is passed to its one client unless configured otherwise. */
  const mayShare = (map: Record<string, string>): boolean => storeSetCookie || map['set-cookie'] === undefined;
  const generations = new Generations();
  const inflight = new Map<string, Promise<void>>();
  const revalidating = new WeakSet<StoredResponse>();
  const counters = { hits: 0, misses: 0, stored: 0, purges: 0 };

  function handle(req: IncomingMessage, res: ServerResponse): void {
    requestStarted();
    const method = req.method!;
    const bodiless = method === 'GET' || method === 'HEAD';
    const kind = scanRequest(req.rawHeaders, req.httpVersionMinor !== 0, bodiless);
    if (kind >= INVALID_HOST) {
      refuse(res, kind as Refusal);
      return;
    }
    if (bodiless) {
      // Credentials make a response personal: never looked up nor stored, forwarded intact.
      if (kind === CREDENTIALS) {
        forward(req, res, 'roa; fwd=bypass; detail=credentials', false);
        return;
      }
      if (normalise !== undefined) req.headers.accept = normalise(req.headers.accept);
      const key = requestKey(req);
      const variants = store.get(key);
      if (variants !== undefined && kind === PLAIN) {
        const v = variants.only ?? variants.select(req.headers);
        if (v !== undefined && !v.noCache) {
          const age = v.initialAge + (Date.now() - v.responseTime) / 1000;
          if (age < v.lifetime) {
            counters.hits++;
            writeHit(res, v, age, method === 'HEAD', 'roa; hit');
            return;
          }
        }
      }
      lookup(req, res, key, variants);
      return;
    }
    if (method === 'PURGE') {
      handlePurge(req, res, { allowed, store, generations, keyOf, onPurge: () => counters.purges++ });
      return;
    }
    forward(req, res, 'roa; fwd=method', !SAFE_METHODS.has(method));
  }

  function lookup(req: IncomingMessage, res: ServerResponse, key: string, variants: Variants | undefined): void {
    const h = req.headers;
    const rd = requestDirectives(h['cache-control'], h.pragma);
    const v = variants?.select(h);
    const now = Date.now();
    if (v !== undefined) {
      const verdict = reuse(v, rd, now);
      if (verdict === 'fresh' || verdict === 'stale-ok') {
        counters.hits++;
        serveStored(req, res, v, currentAge(v, now), 'roa; hit');
        return;
      }
      if (verdict === 'stale-while-revalidate') {
        counters.hits++;
        serveStored(req, res, v, currentAge(v, now), 'roa; hit; fwd=stale');
        if (!revalidating.has(v)) {
          revalidating.add(v);
          fill(req, undefined, key, { validate: v, rd, coalesce: false, fwd: 'stale' });
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
      forward(req, res, `roa; fwd=${fwd}`, false);
      return;
    }
    if (v !== undefined) {
      // Conditional when the stored response has validators (RFC 9111 §4.3.1); kept as the
      // stand-in should the origin fail (§4.2.4, RFC 5861 §4).
      fill(req, res, key, { validate: v, rd, coalesce: false, fwd });
      return;
    }
    const coalesce = !rd.noCache && rd.maxAge === undefined && h.range === undefined &&
      h['if-none-match'] === undefined && h['if-modified-since'] === undefined;
    const pending = coalesce ? inflight.get(key) : undefined;
    if (pending !== undefined) {
      void pending.then(() => {
        const w = store.get(key)?.select(h);
        if (w !== undefined && reuse(w, rd, Date.now()) === 'fresh') {
          counters.hits++;
          serveStored(req, res, w, currentAge(w, Date.now()), 'roa; fwd=miss; collapsed');
        } else {
          fill(req, res, key, { validate: undefined, rd, coalesce: false, fwd });
        }
      });
      return;
    }
    fill(req, res, key, { validate: undefined, rd, coalesce, fwd });
  }

  /** Fetches from the origin (conditionally when validating), answers `res` and stores what may be stored. */
  function fill(req: IncomingMessage, res: ServerResponse | undefined, key: string, o: FillOptions): void {
    counters.misses += res === undefined ? 0 : 1;
    const requestTime = Date.now();
    const seq = generations.begin();
    let release: () => void = () => {};
    if (o.coalesce) {
      let done!: () => void;
      const p = new Promise<void>((resolve) => (done = resolve));
      inflight.set(key, p);
      release = () => {
        if (inflight.get(key) === p) inflight.delete(key);
        done();
      };
    }
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      generations.end();
      release();
      if (o.validate !== undefined) revalidating.delete(o.validate);
    };
    upstream.send({
      method: 'GET',
      path: req.url!,
      headers: upstreamHeaders(req, o.validate),
      body: undefined,
      onInformation: res === undefined ? undefined : interim(res),
    }).then((up) => {
      const responseTime = Date.now();
      const status = up.statusCode ?? 502;
      const fields = collectFields(up.rawHeaders);
      const map = fieldMap(fields);
      const v = o.validate;
      if (v !== undefined && status === 304 && (map.etag === undefined || v.etag === undefined || weakEqual(map.etag, v.etag))) {
        up.resume();
        const updated = freshen(v, fields, requestTime, responseTime);
        store.remove(v);
        if (!generations.purgedSince(key, updated.tags, seq) && mayShare(map)) store.put(updated);
        finish();
        if (res !== undefined) serveStored(req, res, updated, currentAge(updated, Date.now()), `roa; fwd=${o.fwd}; fwd-status=304`);
        return;
      }
      if (v !== undefined && status >= 500 && usableOnError(v, o.rd, responseTime)) {
        up.resume();
        finish();
        if (res !== undefined) serveStored(req, res, v, currentAge(v, responseTime), `roa; hit; fwd=${o.fwd}; fwd-status=${status}`);
        return;
      }
      const policy = responsePolicy('GET', status, map, o.rd, responseTime);
      const worthKeeping = policy.lifetime > 0 || policy.swr > 0 || policy.sie > 0 || map.etag !== undefined || map['last-modified'] !== undefined;
      let storing = policy.storable && worthKeeping && mayShare(map);
      if (v !== undefined && !storing) store.remove(v);
      if (res !== undefined) {
        res.writeHead(status, up.statusMessage, outgoing(fields, map.via, `roa; fwd=${o.fwd}${v !== undefined ? `; fwd-status=${status}` : ''}${storing ? '; stored' : ''}`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      up.on('data', (chunk: Buffer) => {
        if (storing) {
          size += chunk.length;
          if (size > maxBytes) {
            storing = false;
            chunks.length = 0;
          } else chunks.push(chunk);
        }
        if (res !== undefined && !res.destroyed && !res.write(chunk)) {
          up.pause();
          res.once('drain', () => up.resume());
        }
      });
      up.on('end', () => {
        if (storing) {
          const stored = buildStored({
            key, status, statusMessage: up.statusMessage ?? '', fields, body: concatBody(chunks, size), policy,
            ageHeaders: map, requestTime, responseTime,
            vary: { names: varyNames(map.vary), values: varyValues(varyNames(map.vary), req.headers) },
          });
          // The stored copy is the only one kept: the chunks must not live on in this closure.
          chunks.length = 0;
          if (!generations.purgedSince(key, stored.tags, seq)) {
            store.put(stored);
            counters.stored++;
          }
        }
        finish();
        res?.end();
      });
      up.on('error', () => {
        finish();
        res?.destroy();
      });
      res?.on('close', () => {
        if (res.writableFinished) return;
        // Keep reading a response being stored (also when paused for a client now gone); otherwise
        // stop the transfer, which closes the upstream connection rather than pool it half-read.
        if (storing) up.resume();
        else up.destroy();
      });
    }, (err: unknown) => {
      finish();
      if (res === undefined) return;
      const now = Date.now();
      const disconnected = err instanceof UpstreamError && err.kind === 'unreachable';
      if (o.validate !== undefined && usableOnError(o.validate, o.rd, now, disconnected)) {
        serveStored(req, res, o.validate, currentAge(o.validate, now), `roa; hit; fwd=${o.fwd}; detail=origin-error`);
        return;
      }
      upstreamFailure(res, err);
    });
  }

  /** Passes a request through unchanged (any method, with its body); never stores. */
  function forward(req: IncomingMessage, res: ServerResponse, cacheStatus: string, invalidates: boolean): void {
    counters.misses++;
    // GET and HEAD get here without content: scanRequest refused any.
    const framing = req.method === 'GET' || req.method === 'HEAD' ? undefined : requestFraming(req);
    upstream.send({
      method: req.method!,
      path: req.url!,
      headers: upstreamHeaders(req, undefined, framing),
      body: framing === undefined ? undefined : req,
      onInformation: interim(res),
    }).then((up) => {
      const status = up.statusCode ?? 502;
      const fields = collectFields(up.rawHeaders);
      const map = fieldMap(fields);
      if (invalidates && status >= 200 && status < 400) invalidate(req, map);
      if (res.destroyed) {
        // The client left before the answer ('close' has fired already): drop the transfer, which
        // would otherwise stall half-read on the upstream connection until it timed out.
        up.destroy();
        return;
      }
      res.writeHead(status, up.statusMessage, outgoing(fields, map.via, cacheStatus));
      up.pipe(res);
      up.on('error', () => res.destroy());
      res.on('close', () => {
        if (!res.writableFinished) up.destroy();
      });
    }, (err: unknown) => {
      req.resume();
      upstreamFailure(res, err);
    });
  }

  /** RFC 9111 §4.4: drop the target URI and same-origin Location / Content-Location. */
  function invalidate(req: IncomingMessage, map: Record<string, string>): void {
    const target = req.url!;
    const key = requestKey(req);
    generations.purgeKey(key);
    store.delete(key);
    const host = req.headers.host ?? upstreamHost;
    for (const ref of [map.location, map['content-location']]) {
      if (ref === undefined) continue;
      let url: URL;
      try {
        url = new URL(ref, `http://${host}${target.startsWith('/') ? target : '/'}`);
      } catch {
        continue;
      }
      // Only the same origin: another host's responses are not this cache's to drop (§4.4).
      if (url.host !== host && url.host !== upstreamHost) continue;
      const other = keyOf(url.host, url.pathname + url.search);
      generations.purgeKey(other);
      store.delete(other);
    }
  }

  function upstreamFailure(res: ServerResponse, err: unknown): void {
    const e = err instanceof UpstreamError ? err : new UpstreamError('unreachable', String(err));
    logger.warn({ err: e.message, kind: e.kind }, 'gateway: upstream failure');
    sendProblem(res, e.kind === 'timeout' ? gatewayTimeout(e.message) : badGateway(e.message), 'roa; fwd=miss; detail=origin-error');
  }

  /**
   * Request fields for the origin: hop-by-hop removed, Accept normalised, Via added, validators
   * swapped in, exactly one Host, the client's address appended to X-Forwarded-For, and the body's
   * framing as it is actually sent (`framing`, from request-framing), never the client's
   * Content-Length line.
   */
  function upstreamHeaders(req: IncomingMessage, validate: StoredResponse | undefined, framing?: Framing): string[] {
    const raw = req.rawHeaders;
    const out: string[] = [];
    let listed: Set<string> | undefined;
    const connection = req.headers.connection;
    if (connection !== undefined) listed = new Set(connection.split(',').map((t) => t.trim().toLowerCase()));
    let via: string | undefined;
    let forwardedFor: string | undefined;
    let host = false;
    for (let i = 0; i < raw.length; i += 2) {
      const lower = raw[i]!.toLowerCase();
      if (HOP_BY_HOP_REQUEST.has(lower) || lower === 'content-length') continue;
      // RFC 9110 §7.6.1 lets Connection name hop-by-hop fields; Host is not one (scanRequest has
      // checked there is exactly one), and the framing is the caller's (`framing`, appended below),
      // so a Connection option can drop neither.
      if (lower === 'host') host = true;
      else if (listed?.has(lower)) continue;
      if (lower === 'via') {
        via = via === undefined ? raw[i + 1] : `${via}, ${raw[i + 1]}`;
        continue;
      }
      if (lower === 'x-forwarded-for') {
        forwardedFor = forwardedFor === undefined ? raw[i + 1] : `${forwardedFor}, ${raw[i + 1]}`;
        continue;
      }
      if (normalise !== undefined && lower === 'accept') continue;
      if (validate !== undefined && CLIENT_CONDITIONALS.has(lower)) continue;
      out.push(raw[i]!, raw[i + 1]!);
    }
    // RFC 9112 §3.2: an HTTP/1.0 client may leave Host out; the origin is spoken to in HTTP/1.1.
    if (!host) out.push('Host', upstreamHost);
    out.push('Via', addVia(via, 'roa'));
    // The origin's failed-login throttle counts per client address; behind this hop every client
    // would otherwise be this gateway. X-Forwarded-For rather than RFC 7239 Forwarded: it is what
    // Express's `trust proxy` (proxy-addr) reads and what Varnish appends, so one convention holds
    // along the whole chain. What the client sent stays in front of it, to be believed only as far as
    // the origin trusts each hop. Never part of the cache key: a hit is not forwarded at all.
    out.push('X-Forwarded-For', forwardedFor === undefined ? clientOf(req) : `${forwardedFor}, ${clientOf(req)}`);
    if (normalise !== undefined && req.headers.accept !== undefined) out.push('Accept', req.headers.accept);
    if (validate !== undefined) {
      if (validate.etag !== undefined) out.push('If-None-Match', validate.etag);
      if (validate.lastModified !== undefined) out.push('If-Modified-Since', validate.lastModified);
    }
    if (framing !== undefined) out.push(framing[0], framing[1]);
    return out;
  }

  // Host is checked by scanRequest, which answers with a problem rather than node's bare 400.
  const server = createServer({ requireHostHeader: false }, handle);
  // Hits answered in one event-loop turn leave together at its end (see http/turn-flush).
  server.on('connection', flushPerTurn);
  server.on('clientError', answerClientError);
  server.on('connect', refuseConnect);
  // RFC 9110 §10.1.1: the origin decides whether it wants the body. The client's Expect goes on
  // with the request and the origin's `100 Continue` comes back through `interim`, so a write the
  // origin refuses on its headers (401, 413) is answered without the client sending the body.
  server.on('checkContinue', handle);

  return {
    server,
    listen(port, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          logger.info({ address, upstream: opts.upstream }, 'gateway listening');
          resolve(address);
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        upstream.close();
      });
    },
    stats() {
      return { ...counters, bytes: store.bytes, entries: store.count };
    },
  };
}

const PLAIN = 0;
const SLOW = 1;
const CREDENTIALS = 2;
/** Refusals (400), numbered above every kind that is served. */
const INVALID_HOST = 3;
const CONTENT_NOT_ALLOWED = 4;
type Refusal = typeof INVALID_HOST | typeof CONTENT_NOT_ALLOWED;

/** The last Host value found valid: on the hit path a repeated value is checked by comparison alone. */
let lastValidHost: string | undefined;

/**
 * One pass over rawHeaders instead of materialising `req.headers` on the hit path: finds
 * credentials (never cached), the fields that need the full RFC 9111 evaluation (request
 * Cache-Control/Pragma, conditionals, Range), and what the gateway refuses: a Host that is
 * missing on HTTP/1.1, repeated or invalid (RFC 9112 §3.2), and content on GET or HEAD
 * (`bodiless`). Such content has no defined meaning (RFC 9110 §9.3.1-2) and no place in a cache
 * key, and forwarding it is how a body becomes the next request on a pooled connection.
 */
function scanRequest(raw: readonly string[], hostRequired: boolean, bodiless: boolean): typeof PLAIN | typeof SLOW | typeof CREDENTIALS | Refusal {
  let kind: typeof PLAIN | typeof SLOW = PLAIN;
  let credentials = false;
  let content = false;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === 'host') {
          const value = raw[i + 1]!;
          if (++hosts > 1) return INVALID_HOST;
          if (value !== lastValidHost) {
            if (!isValidHost(value)) return INVALID_HOST;
            lastValidHost = value;
          }
        }
        break;
      case 6: {
        const l = name.toLowerCase();
        if (l === 'cookie') credentials = true;
        else if (l === 'pragma') kind = SLOW;
        break;
      }
      case 13: {
        const l = name.toLowerCase();
        if (l === 'authorization') credentials = true;
        else if (l === 'cache-control' || l === 'if-none-match') kind = SLOW;
        break;
      }
      case 14: {
        const l = name.toLowerCase();
        if (l === 'authentication') credentials = true;
        // node's parser has checked the digits; any non-zero one means content.
        else if (l === 'content-length' && /[1-9]/.test(raw[i + 1]!)) content = true;
        break;
      }
      case 5:
        if (name.toLowerCase() === 'range') kind = SLOW;
        break;
      case 17: {
        const l = name.toLowerCase();
        if (l === 'if-modified-since') kind = SLOW;
        else if (l === 'transfer-encoding') content = true;
        break;
      }
    }
  }
  if (hosts === 0 && hostRequired) return INVALID_HOST;
  if (content && bodiless) return CONTENT_NOT_ALLOWED;
  return credentials ? CREDENTIALS : kind;
}

/** The connection closes after a refusal: what follows on it may not be what it seems. */
const REFUSALS: Record<Refusal, HttpError> = {
  [INVALID_HOST]: new HttpError(400, 'Bad Request', {
    code: 'ROA_ERR_INVALID_HOST',
    headers: { Connection: 'close' },
    extensions: { detail: 'A request needs exactly one Host header field holding a valid authority (RFC 9112 §3.2)' },
  }),
  [CONTENT_NOT_ALLOWED]: new HttpError(400, 'Bad Request', {
    code: 'ROA_ERR_CONTENT_NOT_ALLOWED',
    headers: { Connection: 'close' },
    extensions: { detail: 'A GET or HEAD request must not carry content' },
  }),
};

function refuse(res: ServerResponse, kind: Refusal): void {
  sendProblem(res, REFUSALS[kind], 'roa; detail=refused');
}

/** The client's address for X-Forwarded-For (`unknown` once its socket is gone, as RFC 7239 §6.2 writes it). */
function clientOf(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/** Response fields for the client: the origin's, plus this hop's Via, X-Cache and Cache-Status (RFC 9211). */
function outgoing(fields: readonly Field[], via: string | undefined, cacheStatus: string): string[] {
  const out: string[] = [];
  for (const f of fields) if (passesToClient(f)) out.push(f.name, f.value);
  out.push('Via', addVia(via, 'roa'), 'X-Cache', 'MISS', 'Cache-Status', cacheStatus);
  return out;
}

/** Forwards 1xx interim responses (RFC 9110 §15.2) other than 100/101, which node handles itself. */
function interim(res: ServerResponse): (info: InformationEvent) => void {
  return (info) => {
    if (info.statusCode === 101 || res.headersSent || res.socket === null) return;
    if (info.statusCode === 100) {
      if (res.req.headers.expect !== undefined) res.writeContinue();
      return;
    }
    let head = `HTTP/1.1 ${info.statusCode} ${info.statusMessage}\r\n`;
    for (let i = 0; i < info.rawHeaders.length; i += 2) head += `${info.rawHeaders[i]}: ${info.rawHeaders[i + 1]}\r\n`;
    res.socket.write(head + '\r\n');
  };
}
