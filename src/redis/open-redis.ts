/**
 * @module redis/open-redis
 * Redis URL and client choice -> a {@link RedisClient}: node-redis by default, roa's RESP client
 * when asked for.
 */
import { NodeRedisClient } from './node-redis-client.js';
import { REDIS_CLIENT_KINDS, type RedisClient, type RedisClientKind, type RedisClientOptions } from './redis-client.js';
import { RespClient } from './resp-client.js';

export interface OpenRedisOptions extends RedisClientOptions {
  /** Which client: `node-redis` (default) or `resp`. */
  client?: RedisClientKind;
}

/**
 * Opens a connection lazily (on the first command); a bad URL or client name throws here, at
 * start-up. `url` is `redis://[user:password@]host:port[/db]`, `rediss://…` (TLS) or a Unix
 * socket, `unix:///run/redis.sock[?db=N&password=…]`.
 * @example
 *   const redis = openRedis('rediss://cache:6380', { client: 'node-redis', tls: { ca: readFileSync('ca.pem') } });
 *   await redis.setIfAbsent('roa:nonce:n1', '1', 60_000);
 */
export function openRedis(url: string | URL, options: OpenRedisOptions = {}): RedisClient {
  const { client = 'node-redis', ...rest } = options;
  const opts = { ...rest, connectTimeoutMs: rest.connectTimeoutMs ?? 1000, commandTimeoutMs: rest.commandTimeoutMs ?? 1000 };
  const parsed = typeof url === 'string' ? new URL(url) : url;
  if (client === 'resp') return new RespClient(parsed, opts);
  if (client === 'node-redis') return new NodeRedisClient(parsed, opts);
  throw new TypeError(`Redis client must be ${REDIS_CLIENT_KINDS.join(' or ')}, got '${String(client)}'`);
}

/**
 * Reads a client name from configuration; a one-line error for anything else.
 * @example parseRedisClientKind(process.env.ROA_REDIS_CLIENT, '--redis-client') // 'node-redis' when unset
 */
export function parseRedisClientKind(value: string | undefined, name: string): RedisClientKind {
  if (value === undefined || value === '') return 'node-redis';
  if ((REDIS_CLIENT_KINDS as readonly string[]).includes(value)) return value as RedisClientKind;
  throw new Error(`${name} must be ${REDIS_CLIENT_KINDS.join(' or ')}, got '${value}'`);
}
