/**
 * @module auth/source-address
 * The source a failed-login throttle counts per: the client's address (`req.ip`), IPv4-mapped IPv6
 * written as IPv4, and IPv6 cut to its /64 (RFC 4291 §2.5.4: one host or subscriber usually holds a
 * whole /64, so per-address counting would give it 2^64 budgets).
 */
import { isIPv6 } from 'node:net';
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
  const bare = address.split('%')[0]!.toLowerCase();
  const [head, tail] = bare.includes('::') ? bare.split('::') as [string, string] : [bare, undefined];
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail (`::a.b.c.d`) is two groups; only the first four groups matter here.
  const tailLength = tailGroups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailLength).fill('0'), ...tailGroups];
  return groups.slice(0, 4).map((g) => g.padStart(4, '0')).join(':') + '::/64';
}

/**
 * The source of a request as the throttle counts it: `req.ip`, the client's address, which behind
 * a proxy the app trusts (the embedded gateway, `--trust-proxy`) is taken from that proxy's
 * X-Forwarded-For and otherwise is the socket's, never a header a client can choose (http/trust-proxy).
 */
export function sourceOf(req: Pick<Request, 'ip'>): string {
  return sourceKey(req.ip);
}
