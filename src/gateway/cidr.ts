/**
 * @module gateway/cidr
 * IPv4/IPv6 CIDR matching for the PURGE allow-list (IPv4-mapped IPv6 addresses count as IPv4).
 */
import { isIPv4, isIPv6 } from 'node:net';

interface Range {
  v6: boolean;
  bits: bigint;
  mask: bigint;
}

/** Default PURGE allow-list: loopback only. */
export const LOOPBACK_CIDRS = ['127.0.0.0/8', '::1/128'];

/**
 * Compiles CIDRs once; a bad entry throws here, at configuration time, never per request.
 * @example
 *   const allowed = compileCidrs(['10.0.0.0/8', '::1']);
 *   allowed('::ffff:10.1.2.3'); // true
 */
export function compileCidrs(cidrs: readonly string[]): (address: string | undefined) => boolean {
  const ranges = cidrs.map(parseCidr);
  return (address) => {
    if (address === undefined) return false;
    const ip = parseIp(address);
    if (ip === undefined) return false;
    return ranges.some((r) => r.v6 === ip.v6 && (ip.bits & r.mask) === r.bits);
  };
}

function parseCidr(cidr: string): Range {
  const [addr, len] = cidr.split('/');
  const ip = parseIp(addr ?? '');
  if (ip === undefined) throw new TypeError(`purgeAllow: not an IP address in "${cidr}"`);
  const width = ip.v6 ? 128 : 32;
  const prefix = len === undefined ? width : Number(len);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > width || (len !== undefined && !/^\d+$/.test(len))) {
    throw new TypeError(`purgeAllow: bad prefix length in "${cidr}"`);
  }
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(width - prefix);
  return { v6: ip.v6, bits: ip.bits & mask, mask };
}

function parseIp(address: string): { v6: boolean; bits: bigint } | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return parseIp(mapped[1]!);
  if (isIPv4(address)) {
    let bits = 0n;
    for (const part of address.split('.')) bits = (bits << 8n) | BigInt(Number(part));
    return { v6: false, bits };
  }
  if (isIPv6(address)) {
    const zoneless = address.split('%')[0]!;
    let [head, tail] = zoneless.split('::') as [string, string | undefined];
    // An embedded dotted quad (::1.2.3.4) becomes two groups.
    const toGroups = (s: string): string[] => s === '' ? [] : s.split(':').flatMap((g) => {
      if (!g.includes('.')) return [g];
      const n = g.split('.').map(Number);
      return [((n[0]! << 8) | n[1]!).toString(16), ((n[2]! << 8) | n[3]!).toString(16)];
    });
    const h = toGroups(head);
    const t = tail === undefined ? [] : toGroups(tail);
    const groups = tail === undefined ? h : [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
    let bits = 0n;
    for (const g of groups) bits = (bits << 16n) | BigInt(parseInt(g, 16));
    return { v6: true, bits };
  }
  return undefined;
}
