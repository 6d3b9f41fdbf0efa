/**
 * @module gateway/cache-key
 * The primary cache key: the target URI (RFC 9111 §2), or only its path and query for a single origin.
 */

/** Builds the key of a request target `target` (path and query, as received) sent to `host`. */
export type CacheKeyer = (host: string | undefined, target: string) => string;

/**
 * A gateway in front of one origin it was configured for (the embedded one) may key on the target
 * alone. A gateway fronting whatever `Host` clients name must key on the authority too, or one
 * host's response is served to every other (RFC 9111 §2, RFC 9110 §7.1). Hosts compare
 * case-insensitively (RFC 3986 §6.2.2.1).
 * @example
 *   cacheKeyer(true)('Example.org', '/a?b') // '//example.org/a?b'
 */
export function cacheKeyer(byHost: boolean): CacheKeyer {
  if (!byHost) return (_host, target) => target;
  return (host, target) => `//${host === undefined ? '' : host.toLowerCase()}${target}`;
}
