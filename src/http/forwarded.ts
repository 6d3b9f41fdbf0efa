/**
 * @module http/forwarded
 * What a trusted proxy says about the client's protocol and host: `X-Forwarded-Proto`,
 * `X-Forwarded-Host` and RFC 7239 `Forwarded`, believed only as far as the app's `trust proxy`
 * (http/trust-proxy) reaches. A value that is not a URI scheme or not a valid Host is ignored, as if
 * absent, so garbage never grants anything.
 */
import type { IncomingMessage } from 'node:http';
import parseForwarded from 'forwarded-parse';
import { isValidHost } from './host.js';
import type { TrustFn } from './trust-proxy.js';

/** RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). */
const SCHEME = /^[a-z][a-z0-9+.-]*$/i;
/** Longer values are not a scheme anyone forwards; refused before the pattern runs. */
const MAX_SCHEME_LENGTH = 32;
/** A DNS name has at most 253 characters (RFC 1035 §2.3.4); with brackets and a port, a little more. */
const MAX_HOST_LENGTH = 270;

/** What trusted proxies said about the client: its protocol and Host, each undefined when unsaid. */
export interface ForwardedOrigin {
  proto: string | undefined;
  host: string | undefined;
}

const NOTHING: ForwardedOrigin = Object.freeze({ proto: undefined, host: undefined });

/**
 * The protocol a trusted proxy says the client used, lower-cased; undefined when the socket's peer is
 * not trusted, no proxy said, or what it said is not a scheme. Express 4's rule: the first value of
 * X-Forwarded-Proto when the immediate peer is trusted; without that header, `Forwarded`'s `proto=`
 * (see `forwardedOrigin`).
 * @example
 *   forwardedProto(req, trust) // 'https' behind a TLS-terminating proxy the app trusts
 */
export function forwardedProto(req: IncomingMessage, trust: TrustFn | undefined): string | undefined {
  if (!peerTrusted(req, trust)) return undefined;
  const header = headerValue(req, 'x-forwarded-proto');
  if (header !== undefined) return schemeOf(firstValue(header));
  return forwardedOrigin(req, trust!).proto;
}

/**
 * The Host (with port, if any) a trusted proxy says the client asked for; undefined when the peer is
 * not trusted, no proxy said, or what it said is not a valid Host. X-Forwarded-Host first (its first
 * value, as Express), then `Forwarded`'s `host=`.
 */
export function forwardedHost(req: IncomingMessage, trust: TrustFn | undefined): string | undefined {
  if (!peerTrusted(req, trust)) return undefined;
  const header = headerValue(req, 'x-forwarded-host');
  if (header !== undefined) return hostOf(firstValue(header));
  return forwardedOrigin(req, trust!).host;
}

/** Whether the socket's peer is a proxy to believe (hop 0, as proxy-addr counts). */
function peerTrusted(req: IncomingMessage, trust: TrustFn | undefined): boolean {
  const peer = req.socket?.remoteAddress;
  return trust !== undefined && peer !== undefined && trust(peer, 0);
}

/**
 * RFC 7239 `Forwarded`, read from the right as proxy-addr reads X-Forwarded-For: each proxy appends
 * one element describing the request it received. The last element was added by the socket's peer,
 * which the caller has found trusted; an element further left is believed only while the hop that
 * added it (the `for=` of the element to its right) is trusted too. Of the believed elements, the
 * leftmost one carrying a valid `proto=` (or `host=`) wins: it is what the proxy nearest the client
 * saw. A header that does not parse (RFC 7239 §4 grammar) is ignored whole.
 */
export function forwardedOrigin(req: IncomingMessage, trust: TrustFn): ForwardedOrigin {
  const header = headerValue(req, 'forwarded');
  if (header === undefined) return NOTHING;
  const elements = parsedForwarded(header);
  let proto: string | undefined;
  let host: string | undefined;
  for (let i = elements.length - 1, hop = 1; i >= 0; i--, hop++) {
    const element = elements[i]!;
    const p = element.proto === undefined ? undefined : schemeOf(element.proto);
    if (p !== undefined) proto = p;
    const h = element.host === undefined ? undefined : hostOf(element.host);
    if (h !== undefined) host = h;
    // The next element to the left was added by this element's `for=` node: believe it only if trusted.
    const by = element.for === undefined ? undefined : nodeAddress(element.for);
    if (by === undefined || !trust(by, hop)) break;
  }
  return proto === undefined && host === undefined ? NOTHING : { proto, host };
}

type Elements = ReadonlyArray<Readonly<Record<string, string>>>;

/** The last header parsed and its elements: a proxy sends much the same value on every request. */
let lastHeader = '';
let lastElements: Elements = [];

function parsedForwarded(header: string): Elements {
  if (header === lastHeader) return lastElements;
  let elements: Elements;
  try {
    elements = parseForwarded(header);
  } catch {
    elements = [];
  }
  lastHeader = header;
  lastElements = elements;
  return elements;
}

/**
 * The IP address of an RFC 7239 §6 node (`192.0.2.43:47011`, `[2001:db8::1]:4711`); undefined for
 * `unknown` and obfuscated names, which no trust list can vouch for.
 */
function nodeAddress(node: string): string | undefined {
  if (node[0] === '[') {
    const end = node.indexOf(']');
    return end === -1 ? undefined : node.slice(1, end);
  }
  const colon = node.indexOf(':');
  // More than one colon: an unbracketed IPv6 address (not RFC 7239, but what some proxies send).
  if (colon !== -1 && node.indexOf(':', colon + 1) === -1) return node.slice(0, colon);
  return node === 'unknown' || node[0] === '_' ? undefined : node;
}

function schemeOf(value: string): string | undefined {
  const v = value.trim();
  return v.length <= MAX_SCHEME_LENGTH && SCHEME.test(v) ? v.toLowerCase() : undefined;
}

function hostOf(value: string): string | undefined {
  const v = value.trim();
  return v.length <= MAX_HOST_LENGTH && isValidHost(v) ? v : undefined;
}

/** The first of a comma-separated list (a proxy chain's values, client side first). */
function firstValue(header: string): string {
  const comma = header.indexOf(',');
  return comma === -1 ? header : header.slice(0, comma);
}

/** A header's value as one string (repeated lines joined, as node does for most headers). */
function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}
