/**
 * @module http/host
 * The Host header field check of RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request
 * without Host, and to any request with more than one Host line or an invalid Host value.
 */
import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';

/**
 * RFC 9110 §7.2: Host = uri-host [ ":" port ], with uri-host from RFC 3986 §3.2.2: an IP-literal
 * in brackets, or a reg-name (which covers IPv4address) of unreserved, sub-delims and
 * pct-encoded characters. An empty reg-name is refused: roa's targets always have an authority.
 */
const HOST = /^(?:\[([^\]]*)\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+)(?::[0-9]*)?$/;
/** RFC 3986 §3.2.2: IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ). */
const IP_FUTURE = /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;

/** The last Host found valid: a server mostly sees the same one, and then skips the pattern. */
let lastValid = '';

/** True when `value` is a valid, non-empty Host field value. */
export function isValidHost(value: string): boolean {
  if (value === lastValid && value !== '') return true;
  const m = HOST.exec(value);
  if (m === null) return false;
  const literal = m[1];
  const valid = literal === undefined || isIPv6(literal) || IP_FUTURE.test(literal);
  if (valid) lastValid = value;
  return valid;
}

/**
 * Why the request's Host is unacceptable, or undefined when it is fine. node keeps only the first
 * of repeated Host lines in `headers`, so duplicates are counted in `rawHeaders`.
 * @example
 *   if (hostProblem(req) !== undefined) refuse(400)
 */
export function hostProblem(req: Pick<IncomingMessage, 'rawHeaders' | 'headers' | 'httpVersionMajor' | 'httpVersionMinor'>): string | undefined {
  const raw = req.rawHeaders ?? [];
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') count++;
  }
  if (count > 1) return 'The request has more than one Host header field';
  const host = req.headers.host;
  if (req.httpVersionMajor === 2) return http2HostProblem(host, req.headers[':authority']);
  if (host === undefined) {
    // HTTP/1.0 may omit Host; so may a test's hand-made request.
    return req.httpVersionMajor === 1 && req.httpVersionMinor === 1 ? 'An HTTP/1.1 request needs a Host header field' : undefined;
  }
  return isValidHost(host) ? undefined : 'The Host header field is not a valid authority';
}

/**
 * RFC 9113 §8.3.1: an HTTP/2 request names its target's authority in `:authority` or Host (roa
 * copies the first into the second, http/http2-messages), and the two must agree when both are
 * sent. A request with neither has no authority to route on.
 */
function http2HostProblem(host: string | undefined, authority: string | string[] | undefined): string | undefined {
  if (host === undefined) return 'An HTTP/2 request needs an :authority or Host header field';
  if (typeof authority === 'string' && authority !== host) return 'The Host header field differs from :authority';
  return isValidHost(host) ? undefined : 'The Host header field is not a valid authority';
}
