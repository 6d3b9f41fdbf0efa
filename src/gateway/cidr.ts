/**
 * @module gateway/cidr
 * The PURGE allow-list as a node `net.BlockList`, which matches IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) against IPv4 ranges and IPv4 addresses against `::ffff:0:0/96`.
 */
import { BlockList, isIP } from 'node:net';

/** Default PURGE allow-list: loopback only. */
export const LOOPBACK_CIDRS = ['127.0.0.0/8', '::1/128'];

/**
 * Compiles CIDRs once; a bad entry throws here, at configuration time, never per request.
 * @example
 *   const allowed = compileCidrs(['10.0.0.0/8', '::1']);
 *   allowed('::ffff:10.1.2.3'); // true
 */
export function compileCidrs(cidrs: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const cidr of cidrs) addCidr(list, cidr);
  return (address) => {
    if (address === undefined) return false;
    // A link-local peer may carry a zone (`fe80::1%eth0`); the range is about the address.
    const zone = address.indexOf('%');
    const bare = zone === -1 ? address : address.slice(0, zone);
    const family = isIP(bare);
    return family !== 0 && list.check(bare, family === 4 ? 'ipv4' : 'ipv6');
  };
}

function addCidr(list: BlockList, cidr: string): void {
  const slash = cidr.indexOf('/');
  const address = slash === -1 ? cidr : cidr.slice(0, slash);
  const family = isIP(address);
  if (family === 0) throw new TypeError(`purgeAllow: not an IP address in "${cidr}"`);
  const width = family === 4 ? 32 : 128;
  const len = slash === -1 ? String(width) : cidr.slice(slash + 1);
  const prefix = Number(len);
  if (!/^\d{1,3}$/.test(len) || prefix > width) throw new TypeError(`purgeAllow: bad prefix length in "${cidr}"`);
  list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
}
