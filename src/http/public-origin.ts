/**
 * @module http/public-origin
 * The origin clients reach the service at, for absolute URLs (OAuth metadata, JWT `iss`): the
 * request's protocol and host as the app's `trust proxy` lets proxies state them (http/forwarded).
 */
import { isValidHost } from './host.js';
import type { Request } from './request.js';

/**
 * `protocol://host[:port]` of the request as its client sent it, serialised as a URL origin is
 * (WHATWG URL): host lower-cased, the scheme's default port dropped, so `https://Example.org:443`
 * and `https://example.org` name one origin. Without a usable Host (an HTTP/1.0 request), the
 * address the connection arrived at.
 * @example
 *   publicOrigin(req) // 'https://articles.example' behind a trusted TLS proxy
 */
export function publicOrigin(req: Request): string {
  const protocol = req.protocol;
  const host = req.host;
  if (host === undefined || !isValidHost(host)) return `${protocol}://${localAuthority(req)}`;
  return `${protocol}://${withoutDefaultPort(host.toLowerCase(), protocol)}`;
}

function withoutDefaultPort(host: string, protocol: string): string {
  const port = protocol === 'https' ? ':443' : protocol === 'http' ? ':80' : undefined;
  if (port !== undefined && host.endsWith(port)) return host.slice(0, -port.length);
  // `host:` (an empty port) means the default port too (RFC 3986 §3.2.3).
  return host.endsWith(':') ? host.slice(0, -1) : host;
}

function localAuthority(req: Request): string {
  const address = req.socket?.localAddress ?? 'localhost';
  const host = address.includes(':') ? `[${address}]` : address;
  const port = req.socket?.localPort;
  return port === undefined ? host : `${host}:${port}`;
}
