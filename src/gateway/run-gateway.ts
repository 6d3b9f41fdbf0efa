/**
 * @module gateway/run-gateway
 * Entry for `roa gateway --upstream URL`: create, listen, log.
 */
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createGateway, type Gateway, type GatewayOptions } from './proxy.js';

export interface RunGatewayOptions extends GatewayOptions {
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Level of the pino logger made when no `logger` is given (default info: access logs on). */
  logLevel?: string;
}

/**
 * Starts a standalone gateway. Standalone it fronts an arbitrary origin, so Accept is left
 * untouched unless `normaliseAccept` is given, and the cache key includes the Host clients
 * name (RFC 9111 §2) unless `keyByHost: false` is given. Without `fastPaths` it follows
 * `ROA_FAST_PATHS`, so `ROA_FAST_PATHS=0 roa gateway …` runs it without turn flushing. With `tls`
 * it serves HTTPS (HTTP/2 and HTTP/1.1) and logs an `https://` address.
 * @example
 *   const { gateway } = await runGateway({ upstream: 'http://127.0.0.1:8000', port: 8080 });
 */
export async function runGateway(opts: RunGatewayOptions): Promise<{ gateway: Gateway; address: AddressInfo }> {
  const logger = opts.logger ?? pino({ level: opts.logLevel ?? 'info' });
  const gateway = createGateway({ normaliseAccept: false, keyByHost: true, ...opts, logger });
  const address = await gateway.listen(opts.port, opts.host ?? '127.0.0.1');
  logger.info(`roa gateway on ${gateway.protocol}://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port} -> ${opts.upstream}`);
  return { gateway, address };
}
