/**
 * @module auth/source-address
 * The source a failed-login throttle counts per: the client's address (`req.ip`), IPv4-mapped IPv6
 * written as IPv4, and IPv6 cut to its /64 (RFC 4291 §2.5.4: one host or subscriber usually holds a
 * whole /64, so per-address counting would give it 2^64 budgets).
 */
import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Request } from '../http/request.js';

const MAPPED_V4_RE = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The throttle's source key of an address (`unknown` when the socket has none, e.g. already closed). */
export function sourceKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  if (!address.includes(':')) return address;
  const mapped = MAPPED_V4_RE.exec(address);
  if (mapped !== null) return mapped[1]!;
  if (!isIPv6(address)) return address;
  return ipv6Slash64(address);
}

/** The first four groups of an IPv6 address, zero-padded, with `/64` (a zone index is dropped). */
function ipv6Slash64(address: string): string {
  const parts = ipaddr.IPv6.parse(address.split('%')[0]!).parts;
  return parts.slice(0, 4).map((g) => g.toString(16).padStart(4, '0')).join(':') + '::/64';
}

/**
 * The source of a request as the throttle counts it: `req.ip`, the client's address, which behind
 * a proxy the app trusts (the embedded gateway, `--trust-proxy`) is taken from that proxy's
 * X-Forwarded-For and otherwise is the socket's, never a header a client can choose (http/trust-proxy).
 */
export function sourceOf(req: Pick<Request, 'ip'>): string {
  return sourceKey(req.ip);
}
