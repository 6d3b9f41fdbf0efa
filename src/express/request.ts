/**
 * @module express/request
 * `express.request`: roa's Request with the rest of Express 4's request API, read the way Express 4
 * reads it (`req.host` without the port, `X-Forwarded-*` taken from the first value when the socket's
 * peer is trusted, `req.query` by the app's `query parser`). Only roa/express apps use this class,
 * so createApp's requests carry none of it.
 */
import { isIP } from 'node:net';
import accepts from 'accepts';
import depd from 'depd';
import fresh from 'fresh';
import parseRange from 'range-parser';
import typeis from 'type-is';
import { activeFastPaths } from '../http/fast-paths.js';
import { FastRequest } from '../http/fast-request.js';
import { Request } from '../http/request.js';
import { clientAddress, forwardedAddresses, TRUST_FN_SETTING, type TrustFn } from '../http/trust-proxy.js';
import { compileQueryParser, parseExtendedQuery, QUERY_PARSER_FN_SETTING, type QueryParser } from './query.js';

const deprecate = depd('express');

const QUERY = Symbol('roa.express.query');

type Settings = { get(setting: string): unknown };
type Bag = Record<string, unknown>;

/**
 * roa's `incomingMessage` fast path (a body handed from node's parser straight to the body reader)
 * applies to roa/express requests too, under the same switch (ROA_FAST_PATHS, node's support),
 * read once when this module loads.
 */
const RequestBase: typeof Request = activeFastPaths().incomingMessage ? FastRequest : Request;

export class ExpressRequest extends RequestBase {
  declare [QUERY]: Record<string, unknown> | undefined;
  /** Set by cookie-parser. */
  declare cookies: Record<string, string> | undefined;
  declare signedCookies: Record<string, string> | undefined;
  declare secret: string | undefined;

  /**
   * A request header by case-insensitive name, as node holds it; `Referer` and `Referrer` are one
   * (a `Referrer` field, when sent, wins), as in Express 4. Typed as a string: node keeps only
   * `Set-Cookie` as a list, which a request does not carry.
   */
  override get(name: string): string | undefined {
    if (!name) throw new TypeError('name argument is required to req.get');
    if (typeof name !== 'string') throw new TypeError('name must be a string to req.get');
    const lower = name.toLowerCase();
    if (lower === 'referer' || lower === 'referrer') return (this.headers.referrer as string | undefined) || this.headers.referer;
    return this.headers[lower] as string | undefined;
  }

  override header(name: string): string | undefined {
    return this.get(name);
  }

  /** The best of `types` by the Accept header (the `accepts` package), false when none fits. */
  accepts(...types: Array<string | string[]>): string | string[] | false {
    const negotiator = accepts(this);
    return negotiator.types(...(types.flat() as [string]));
  }

  acceptsEncodings(...encodings: Array<string | string[]>): string | string[] | false {
    return accepts(this).encodings(...(encodings.flat() as [string]));
  }

  acceptsCharsets(...charsets: Array<string | string[]>): string | string[] | false {
    return accepts(this).charsets(...(charsets.flat() as [string]));
  }

  acceptsLanguages(...languages: Array<string | string[]>): string | string[] | false {
    return accepts(this).languages(...(languages.flat() as [string]));
  }

  /** Deprecated in Express 4: `acceptsEncodings`. */
  acceptsEncoding(...encodings: Array<string | string[]>): string | string[] | false {
    deprecate('req.acceptsEncoding: Use acceptsEncodings instead');
    return this.acceptsEncodings(...encodings);
  }

  /** Deprecated in Express 4: `acceptsCharsets`. */
  acceptsCharset(...charsets: Array<string | string[]>): string | string[] | false {
    deprecate('req.acceptsCharset: Use acceptsCharsets instead');
    return this.acceptsCharsets(...charsets);
  }

  /** Deprecated in Express 4: `acceptsLanguages`. */
  acceptsLanguage(...languages: Array<string | string[]>): string | string[] | false {
    deprecate('req.acceptsLanguage: Use acceptsLanguages instead');
    return this.acceptsLanguages(...languages);
  }

  /**
   * The Range header parsed against a representation of `size` bytes (range-parser): undefined
   * without one, -1 when unsatisfiable, -2 when malformed.
   */
  range(size: number, options?: parseRange.Options): parseRange.Ranges | parseRange.Result | undefined {
    const header = this.get('Range');
    if (!header) return undefined;
    return parseRange(size, header, options);
  }

  /** Deprecated in Express 4: a route parameter, else a body field, else a query field. */
  param(name: string, defaultValue?: unknown): unknown {
    const params = (this.params ?? {}) as Bag;
    const body = (this.body ?? {}) as Bag;
    const query = (this.query ?? {}) as Bag;
    if (arguments.length === 2) deprecate('req.param(name, default): Use req.params, req.body, or req.query instead');
    if (params[name] != null && Object.hasOwn(params, name)) return params[name];
    if (body[name] != null) return body[name];
    if (query[name] != null) return query[name];
    return defaultValue;
  }

  /**
   * The first of `types` the body's Content-Type matches (type-is): null without a body, false
   * when it matches none.
   */
  override is(...types: Array<string | string[]>): string | false {
    return typeis(this, types.flat()) as string | false;
  }

  /**
   * The query string parsed by the app's `query parser` (qs `extended` by default), once: as in
   * Express 4, where it is parsed on entry, changes made to it stay for the rest of the chain, and
   * mounting (which rewrites `req.url`) does not parse it again.
   */
  override get query(): Record<string, unknown> {
    const known = this[QUERY];
    if (known !== undefined) return known;
    const url = this.url ?? '';
    const q = url.indexOf('?');
    const parsed = queryParserOf(this.app)(q === -1 ? '' : url.slice(q + 1));
    this[QUERY] = parsed;
    return parsed;
  }

  override set query(value: Record<string, unknown>) {
    this[QUERY] = value;
  }

  /**
   * `https` over TLS, else `http`; a trusted peer's X-Forwarded-Proto (its first value) replaces
   * either, as in Express 4.
   */
  override get protocol(): string {
    const own = (this.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
    if (!trusted(this)) return own;
    const header = this.get('X-Forwarded-Proto') || own;
    const comma = header.indexOf(',');
    return (comma === -1 ? header : header.slice(0, comma)).trim();
  }

  override get secure(): boolean {
    return this.protocol === 'https';
  }

  /** The client address: the socket's, or the nearest untrusted X-Forwarded-For hop (proxy-addr). */
  override get ip(): string | undefined {
    return clientAddress(this, trustOf(this));
  }

  override get ips(): string[] {
    return forwardedAddresses(this, trustOf(this));
  }

  /**
   * The host name, port removed: a trusted peer's X-Forwarded-Host (its first value), else Host.
   * An IPv6 literal keeps its brackets.
   */
  override get hostname(): string | undefined {
    let host = trusted(this) ? this.get('X-Forwarded-Host') : undefined;
    if (host) {
      const comma = host.indexOf(',');
      if (comma !== -1) host = host.slice(0, comma).trimEnd();
    } else {
      host = this.get('Host');
    }
    if (!host) return undefined;
    const from = host[0] === '[' ? host.indexOf(']') + 1 : 0;
    const colon = host.indexOf(':', from);
    return colon === -1 ? host : host.slice(0, colon);
  }

  /** Express 4's `req.host` is the host name (deprecated there in favour of `hostname`). */
  override get host(): string | undefined {
    return this.hostname;
  }

  /** The host name's labels left of the `subdomain offset` (default 2), right to left reversed. */
  get subdomains(): string[] {
    const hostname = this.hostname;
    if (!hostname) return [];
    const setting = this.app?.get('subdomain offset');
    const offset = typeof setting === 'number' ? setting : 2;
    const labels = isIP(hostname) === 0 ? hostname.split('.').reverse() : [hostname];
    return labels.slice(offset);
  }

  /**
   * Whether the client's copy is still valid (RFC 9110 §13.1, the `fresh` package): only for GET
   * and HEAD with a 2xx or 304 status, compared with the response's ETag and Last-Modified.
   */
  get fresh(): boolean {
    const method = this.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const res = this.res;
    if (res === undefined) return false;
    const status = res.statusCode;
    if ((status < 200 || status >= 300) && status !== 304) return false;
    // Most requests are not conditional: no response headers to read then.
    if (this.headers['if-none-match'] === undefined && this.headers['if-modified-since'] === undefined) return false;
    return fresh(this.headers, {
      etag: res.getHeader('ETag') as string | undefined,
      'last-modified': res.getHeader('Last-Modified') as string | undefined,
    });
  }

  get stale(): boolean {
    return !this.fresh;
  }

  /** `X-Requested-With: XMLHttpRequest`, case-insensitively. */
  get xhr(): boolean {
    const value = this.get('X-Requested-With') ?? '';
    return value.toLowerCase() === 'xmlhttprequest';
  }
}

function trustOf(req: ExpressRequest): TrustFn | undefined {
  return (req.app as Settings | undefined)?.get(TRUST_FN_SETTING) as TrustFn | undefined;
}

/** Whether the socket's peer is a trusted proxy (hop 0), the test Express 4 makes for X-Forwarded-*. */
function trusted(req: ExpressRequest): boolean {
  const trust = trustOf(req);
  const address = req.socket?.remoteAddress;
  return trust !== undefined && address !== undefined && trust(address, 0);
}

/**
 * The app's compiled `query parser fn`; an app whose settings lost it (or that never compiled it)
 * parses as `extended`, as Express 4 does.
 */
const COMPILED = new WeakMap<object, { value: unknown; parse: QueryParser }>();
function queryParserOf(app: Settings | undefined): QueryParser {
  if (app === undefined) return parseExtendedQuery;
  const fn = app.get(QUERY_PARSER_FN_SETTING);
  if (typeof fn === 'function') return fn as QueryParser;
  const value = app.get('query parser');
  if (value === undefined) return parseExtendedQuery;
  const known = COMPILED.get(app);
  if (known !== undefined && known.value === value) return known.parse;
  const parse = compileQueryParser(value) ?? parseExtendedQuery;
  COMPILED.set(app, { value, parse });
  return parse;
}

/** The prototype roa/express requests inherit (`express.request`). */
export const request: ExpressRequest = ExpressRequest.prototype;
