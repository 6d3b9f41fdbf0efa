/**
 * @module redis/redis-url
 * Reads a Redis URL (`redis://`, `rediss://`, `unix://`, `redis+unix://`) into what a connection
 * needs, checked once so a bad URL fails at start-up, not per request.
 */

export interface RedisEndpoint {
  /** TLS (`rediss://`). */
  tls: boolean;
  host: string;
  port: number;
  /** The socket path of a `unix://` URL. */
  path?: string;
  username: string;
  password: string;
  /** Database number (0 by default). */
  database: number;
}

const PROTOCOLS = new Set(['redis:', 'rediss:', 'unix:', 'redis+unix:']);

/**
 * @example
 *   parseRedisUrl(new URL('redis://:secret@cache:6380/2')) // { host: 'cache', port: 6380, password: 'secret', database: 2, … }
 *   parseRedisUrl(new URL('unix:///run/redis.sock?db=3'))  // { path: '/run/redis.sock', database: 3, … }
 */
export function parseRedisUrl(url: URL): RedisEndpoint {
  if (!PROTOCOLS.has(url.protocol)) throw new TypeError(`not a redis://, rediss:// or unix:// URL: ${url.protocol}`);
  // A unix:// URL's path is the socket's, so its credentials and database go in the query
  // (unix:///run/redis.sock?db=2&password=…), as redis-py and node-redis read them.
  const unix = url.protocol === 'unix:' || url.protocol === 'redis+unix:';
  if (unix && url.pathname === '') throw new TypeError('a unix:// Redis URL needs the socket path: unix:///run/redis/redis.sock');
  const db = unix ? (url.searchParams.get('db') ?? '') : url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new TypeError(`Redis database must be a number, got ${JSON.stringify(db)}`);
  return {
    tls: url.protocol === 'rediss:',
    host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: Number(url.port || 6379),
    ...(unix ? { path: decodeURIComponent(url.pathname) } : {}),
    username: unix ? (url.searchParams.get('username') ?? '') : decodeURIComponent(url.username),
    password: unix ? (url.searchParams.get('password') ?? '') : decodeURIComponent(url.password),
    database: db === '' ? 0 : Number(db),
  };
}

/** AUTH and SELECT for the endpoint's credentials and database, the handshake of a raw RESP connection. */
export function handshakeCommands(endpoint: RedisEndpoint): string[][] {
  const commands: string[][] = [];
  const { username, password, database } = endpoint;
  if (password !== '') commands.push(username !== '' ? ['AUTH', username, password] : ['AUTH', password]);
  if (database !== 0) commands.push(['SELECT', String(database)]);
  return commands;
}
