/**
 * @module http/trust-proxy
 * The app's `trust proxy` setting compiled once into proxy-addr's trust function, as Express 4 does:
 * `req.ip` is the address of the nearest hop that is not a trusted proxy, read from the right of
 * X-Forwarded-For, so a client can prepend whatever it likes and still not choose its address.
 */
import proxyaddr from 'proxy-addr';
import type { IncomingMessage } from 'node:http';
import { BoundedMap } from '../util/bounded-map.js';

/** proxy-addr's trust function: is `addr`, `i` hops from the server, a proxy to believe? */
export type TrustFn = (addr: string, i: number) => boolean;

/** Where `createApp` keeps the compiled setting (Express's name for it). */
export const TRUST_FN_SETTING = 'trust proxy fn';

/**
 * Compiles a `trust proxy` value as Express 4 does: `true` trusts every hop, a number that many hops,
 * a function is used as it is, a string is a comma-separated list, and addresses, CIDRs and the
 * names `loopback`, `linklocal`, `uniquelocal` go to `proxyaddr.compile`, which throws a TypeError for
 * anything malformed (so bad configuration fails when it is set). `undefined` when nothing is trusted.
 * @example
 *   compileTrust('loopback, 10.0.0.0/8')   // trusts those proxies' X-Forwarded-For
 */
export function compileTrust(value: unknown): TrustFn | undefined {
  if (typeof value === 'function') return value as TrustFn;
  if (value === true) return () => true;
  if (typeof value === 'number') return (_addr, i) => i < value;
  if (value === undefined || value === null || value === false || value === '') return undefined;
  const list = typeof value === 'string' ? value.split(',').map((s) => s.trim()) : value;
  if (!Array.isArray(list) || !list.every((a): a is string => typeof a === 'string')) {
    throw new TypeError('trust proxy: expected true, a hop count, a function, or addresses, CIDRs and names (loopback, linklocal, uniquelocal)');
  }
  if (list.length === 0) return undefined;
  try {
    return rememberedTrust(proxyaddr.compile(list));
  } catch (err) {
    throw new TypeError(`trust proxy: ${(err as Error).message} (expected addresses, CIDRs, loopback, linklocal or uniquelocal)`, { cause: err });
  }
}

/** Addresses a compiled trust list remembers its answer for (socket peers and forwarded hops). */
const TRUST_MEMO_LIMIT = 1024;

/**
 * proxy-addr's compiled list answers by the address alone (the hop count is for numeric settings),
 * and parses the address with ipaddr.js on every call: about a microsecond, paid several times a
 * request (req.protocol, req.host, req.ip each ask about the socket's peer). The answer is a pure
 * function of the address, so it is remembered, in a bounded table since forwarded hops are
 * whatever clients write.
 */
function rememberedTrust(compiled: TrustFn): TrustFn {
  const answers = new BoundedMap<string, boolean>(TRUST_MEMO_LIMIT);
  return (addr, i) => {
    let trusted = answers.get(addr);
    if (trusted === undefined) answers.set(addr, (trusted = compiled(addr, i)));
    return trusted;
  };
}

/** The client's address under `trust` (the socket's when nothing is trusted). */
export function clientAddress(req: IncomingMessage, trust: TrustFn | undefined): string | undefined {
  return trust === undefined ? req.socket.remoteAddress : proxyaddr(req, trust);
}

/** The trusted chain, client first (Express's `req.ips`); empty when nothing is trusted. */
export function forwardedAddresses(req: IncomingMessage, trust: TrustFn | undefined): string[] {
  if (trust === undefined) return [];
  // proxy-addr lists the socket address first and the client last; Express reverses and drops the socket.
  const addrs = proxyaddr.all(req, trust).reverse();
  addrs.pop();
  return addrs;
}

/** The service's default `trust proxy`: proxies on this host, which covers the embedded gateway. */
export const DEFAULT_TRUST_PROXY: readonly string[] = Object.freeze(['loopback']);

/**
 * The service's trust list from its option: the default (`loopback`) when unset; `none` entries
 * dropped, so `['none']` (or `[]`) trusts nobody's forwarded headers and `['none', gateway]` only the
 * gateway's. `none` is not an Express word: it is the service's spelling of an empty list, which
 * a command line or an environment variable cannot otherwise say.
 * @example
 *   trustProxyList(undefined)  // ['loopback']
 *   trustProxyList(['none'])   // []
 */
export function trustProxyList(option: readonly string[] | undefined): string[] {
  return (option ?? DEFAULT_TRUST_PROXY).filter((entry) => entry.trim().toLowerCase() !== 'none');
}
