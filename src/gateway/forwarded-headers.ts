/**
 * @module gateway/forwarded-headers
 * Who may tell the origin who the client was: the X-Forwarded-* and Forwarded fields (RFC 7239) a
 * request arrives with are believed only from a trusted peer (`trustProxy`, proxy-addr's terms).
 */
import { compileTrust, type TrustFn } from '../http/trust-proxy.js';

/** The fields that describe earlier hops: client address, protocol and host asked for. */
export const FORWARDING_FIELDS: ReadonlySet<string> = new Set(['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded']);

/**
 * Compiles `trustProxy` (addresses, CIDRs, `loopback`, `linklocal`, `uniquelocal`) once; a bad
 * entry throws a TypeError here, at configuration time. Undefined when no peer is trusted.
 * @example
 *   const trusted = peerTrust(['loopback', '10.0.0.0/8']);
 *   trusted('::ffff:127.0.0.1'); // true
 */
export function peerTrust(trustProxy: readonly string[] | undefined): (address: string | undefined) => boolean {
  const trust: TrustFn | undefined = trustProxy === undefined || trustProxy.length === 0 ? undefined : compileTrust([...trustProxy]);
  if (trust === undefined) return () => false;
  // proxy-addr's compiled function answers false for anything that is not an IP address.
  return (address) => address !== undefined && trust(address, 0);
}
