/**
 * @module cli/options
 * Every flag's default and environment variable, in one table (flag beats env beats default).
 */
import { DEFAULT_NONCE_MEMORY_LIMIT } from '../storage/sqlite/sqlite-nonces.js';

export interface OptionSpec {
  flag: string;
  env?: string;
  defaultValue?: string;
  description: string;
}

/** Both commands: how long SIGTERM/SIGINT waits for requests in flight (operations/shutdown-timeout). */
const SHUTDOWN_TIMEOUT_OPTION: OptionSpec = { flag: '--shutdown-timeout <seconds>', env: 'ROA_SHUTDOWN_TIMEOUT', defaultValue: '10', description: 'on SIGTERM/SIGINT, how long requests in flight may take before their connections are cut: seconds, or 500ms / 10s forms, at most 3600s' };

/** Both commands: who may read GET /metrics (metrics/metrics-endpoint). */
const METRICS_ALLOW_OPTION: OptionSpec = { flag: '--metrics-allow <cidrs>', env: 'ROA_METRICS_ALLOW', defaultValue: '127.0.0.0/8,::1/128', description: 'comma-separated CIDRs that may read GET /metrics (Prometheus text), judged by the client address trusted proxies state; others get 403' };

/** Options of `roa serve`. */
export const SERVE_OPTIONS = {
  port: { flag: '--port <port>', env: 'PORT', defaultValue: '3000', description: 'service port' },
  host: { flag: '--host <host>', env: 'HOST', defaultValue: '127.0.0.1', description: 'address to bind' },
  db: { flag: '--db <url>', env: 'DATABASE_URL', defaultValue: './data/roa.db', description: 'SQLite path, :memory: or postgres://…' },
  schema: { flag: '--schema <name>', env: 'ROA_PG_SCHEMA', description: "PostgreSQL only: schema for roa's tables (created if absent; letters, digits and _, at most 63, not pg_…); default the connection's search_path" },
  env: { flag: '--env <env>', env: 'NODE_ENV', defaultValue: 'development', description: 'development or production' },
  gatewayPort: { flag: '--gateway-port <port>', env: 'GATEWAY_PORT', defaultValue: '8080', description: 'embedded caching gateway port (0 = off)' },
  purge: { flag: '--purge <urls>', env: 'PURGE_URLS', description: 'comma-separated cache node base URLs to PURGE after writes' },
  purgeAllow: { flag: '--purge-allow <cidrs>', env: 'PURGE_ALLOW', description: 'comma-separated CIDRs allowed to PURGE the embedded gateway (default loopback)' },
  trustProxy: { flag: '--trust-proxy <addresses>', env: 'ROA_TRUST_PROXY', defaultValue: 'loopback', description: "comma-separated proxies (addresses, CIDRs, loopback, linklocal, uniquelocal; none = no proxy) whose X-Forwarded-For/-Proto/-Host and Forwarded are believed for req.ip, req.protocol and req.hostname; the embedded gateway is always trusted" },
  tlsCert: { flag: '--tls-cert <file>', env: 'ROA_TLS_CERT', description: 'PEM certificate (chain): serve the public entry (the gateway port, or the service port when the gateway is off) over HTTPS and HTTP/2; SIGHUP reloads it' },
  tlsKey: { flag: '--tls-key <file>', env: 'ROA_TLS_KEY', description: 'PEM private key of --tls-cert' },
  purgeTimeout: { flag: '--purge-timeout <ms>', env: 'PURGE_TIMEOUT_MS', defaultValue: '2000', description: 'how long a write waits for purges' },
  purgeDelay: { flag: '--purge-delay <ms>', env: 'PURGE_DELAY_MS', defaultValue: '1000', description: 'second, delayed purge (0 = off)' },
  redis: { flag: '--redis <url>', env: 'REDIS_URL', description: 'Redis URL shared by instances: HMAC nonces and the OAuth failure throttle' },
  redisClient: { flag: '--redis-client <client>', env: 'ROA_REDIS_CLIENT', defaultValue: 'node-redis', description: "client for --redis: node-redis, or resp (roa's own pipelined RESP client)" },
  secretKeyFile: { flag: '--secret-key-file <path>', env: 'ROA_SECRET_KEY_FILE', defaultValue: './data/secret.key', description: 'server key file (when ROA_SECRET_KEY is unset)' },
  tokenFormat: { flag: '--token-format <format>', env: 'ROA_TOKEN_FORMAT', defaultValue: 'opaque', description: 'OAuth access tokens: opaque or jwt (RFC 9068, JWKS at /oauth/jwks.json)' },
  issuer: { flag: '--issuer <url>', env: 'ROA_ISSUER', description: 'OAuth issuer origin (default the service origin)' },
  passwordGrant: { flag: '--password-grant <on|off>', env: 'ROA_PASSWORD_GRANT', description: 'OAuth password grant (RFC 9700 says not to use it): default on in development, off in production, where on needs --password-grant-clients' },
  passwordGrantClients: { flag: '--password-grant-clients <ids>', env: 'ROA_PASSWORD_GRANT_CLIENTS', description: 'comma-separated client ids allowed the password grant (default: every client in development; required with --password-grant on in production)' },
  jwtKeyFile: { flag: '--jwt-key-file <path>', env: 'ROA_JWT_KEY_FILE', defaultValue: './data/jwt-signing-key.json', description: 'JWT signing key (ES256, created with mode 0600 on first start; instances share it)' },
  accessTokenTtl: { flag: '--access-token-ttl <seconds>', env: 'ROA_ACCESS_TOKEN_TTL', defaultValue: '900', description: 'life of OAuth access tokens' },
  refreshTokenTtl: { flag: '--refresh-token-ttl <seconds>', env: 'ROA_REFRESH_TOKEN_TTL', defaultValue: String(30 * 24 * 3600), description: 'life of OAuth refresh tokens' },
  hmacClockSkew: { flag: '--hmac-clock-skew <seconds>', env: 'ROA_HMAC_CLOCK_SKEW', defaultValue: '600', description: "largest accepted distance between a signed request's Date and the server clock" },
  sqliteNonceLog: { flag: '--sqlite-nonce-log', env: 'ROA_SQLITE_NONCE_LOG', description: 'keep HMAC nonces on SQLite in an append-only log indexed in memory instead of a table keyed by nonce: for very high signed-request rates on one SQLite file; the variable takes 1 or 0' },
  nonceMemory: { flag: '--nonce-memory <count>', env: 'ROA_NONCE_MEMORY', defaultValue: String(DEFAULT_NONCE_MEMORY_LIMIT), description: 'with --sqlite-nonce-log: nonces kept in memory (32 MiB at the default, enough for ~1,660 signed requests/s over a 10-minute window); past it, a slower on-disk table' },
  hmacMinimalUnsafe: { flag: '--hmac-minimal-unsafe <on|off>', env: 'ROA_HMAC_MINIMAL_UNSAFE', description: 'accept the replayable minimal HMAC form for unsafe methods (default on in development, off in production)' },
  logLevel: { flag: '--log-level <level>', env: 'LOG_LEVEL', defaultValue: 'info', description: 'pino level: trace … fatal, silent' },
  maxAge: { flag: '--max-age <seconds>', env: 'ROA_MAX_AGE', defaultValue: '60', description: 'Cache-Control max-age / s-maxage of safe responses' },
  metricsAllow: METRICS_ALLOW_OPTION,
  corsOrigin: { flag: '--cors-origin <origins>', env: 'ROA_CORS_ORIGIN', description: "comma-separated origins (scheme://host[:port]) allowed cross-origin requests with credentials, or * for any origin without credentials; default none (no CORS headers)" },
  shutdownTimeout: SHUTDOWN_TIMEOUT_OPTION,
} satisfies Record<string, OptionSpec>;

/** Options of `roa gateway`. */
export const GATEWAY_OPTIONS = {
  upstream: { flag: '--upstream <url>', env: 'UPSTREAM_URL', description: 'origin base URL, e.g. http://127.0.0.1:3000' },
  port: { flag: '--port <port>', env: 'GATEWAY_PORT', defaultValue: '8080', description: 'gateway port' },
  host: { flag: '--host <host>', env: 'HOST', defaultValue: '127.0.0.1', description: 'address to bind' },
  maxBytes: { flag: '--max-bytes <n>', env: 'GATEWAY_MAX_BYTES', defaultValue: String(64 * 1024 * 1024), description: 'cache memory bound in bytes (LRU)' },
  purgeAllow: { flag: '--purge-allow <cidrs...>', env: 'PURGE_ALLOW', description: 'CIDRs allowed to PURGE (default loopback)' },
  maxVariants: { flag: '--max-variants <n>', env: 'GATEWAY_MAX_VARIANTS', defaultValue: '16', description: 'Vary variants kept per URL (LRU)' },
  tlsCert: { flag: '--tls-cert <file>', env: 'ROA_TLS_CERT', description: 'PEM certificate (chain): serve over HTTPS and HTTP/2; SIGHUP reloads it' },
  tlsKey: { flag: '--tls-key <file>', env: 'ROA_TLS_KEY', description: 'PEM private key of --tls-cert' },
  trustProxy: { flag: '--trust-proxy <addresses>', env: 'ROA_TRUST_PROXY', description: 'comma-separated proxies in front of the gateway (e.g. a TLS terminator) whose X-Forwarded-* and Forwarded are passed on; from anyone else they are replaced (default none)' },
  metricsAllow: METRICS_ALLOW_OPTION,
  logLevel: { flag: '--log-level <level>', env: 'LOG_LEVEL', defaultValue: 'info', description: 'pino level: trace … fatal, silent' },
  contentCoding: { flag: '--content-coding <on|off>', env: 'GATEWAY_CONTENT_CODING', defaultValue: 'on', description: 'keep one gzip copy per variant, asked of the origin whatever the client accepts, and decode it for clients that do not take gzip (off: the client\'s Accept-Encoding goes to the origin and each coding is stored apart)' },
  storeSetCookie: { flag: '--store-set-cookie <on|off>', env: 'GATEWAY_STORE_SET_COOKIE', defaultValue: 'off', description: 'store responses carrying Set-Cookie and replay the cookie to every client' },
  shutdownTimeout: SHUTDOWN_TIMEOUT_OPTION,
} satisfies Record<string, OptionSpec>;

/** The value of an option: the flag if given, else its environment variable, else its default. */
export function resolveOption(spec: OptionSpec, given: unknown): string | undefined {
  if (typeof given === 'string') return given;
  // A flag that takes no value (a switch) was given.
  if (given === true) return 'on';
  if (Array.isArray(given)) return given.join(',');
  if (spec.env && process.env[spec.env] !== undefined && process.env[spec.env] !== '') return process.env[spec.env];
  return spec.defaultValue;
}

/** Parses a port; a clear error for anything else. */
export function parsePort(value: string | undefined, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number (0-65535), got '${value}'`);
  return n;
}

/**
 * Parses an integer option from `min` to `max`; a clear error for anything else.
 * @example parseInteger('600', '--hmac-clock-skew', 1, 86_400) // 600
 */
export function parseInteger(value: string | undefined, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER && min === 0 ? 'a non-negative integer' : `an integer from ${min} to ${max}`;
    throw new Error(`${name} must be ${range}, got '${value}'`);
  }
  return n;
}

/** Parses a non-negative integer option, at most `max`. */
export function parseCount(value: string | undefined, name: string, max?: number): number {
  return parseInteger(value, name, 0, max);
}

/** Longest delay setTimeout honours (ms); node turns a longer one into 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** Largest delta-seconds a cache is required to handle (RFC 9111 §1.2.2). */
export const MAX_DELTA_SECONDS = 2 ** 31;

/**
 * Parses a switch: `on`/`1`/`true` or `off`/`0`/`false` (unset is off); a clear error for anything else.
 * @example parseSwitch(process.env.ROA_SQLITE_NONCE_LOG, 'ROA_SQLITE_NONCE_LOG') // true for '1'
 */
export function parseSwitch(value: string | undefined, name: string): boolean {
  const v = (value ?? 'off').trim().toLowerCase();
  if (v === 'on' || v === '1' || v === 'true') return true;
  if (v === 'off' || v === '0' || v === 'false') return false;
  throw new Error(`${name} must be on or off (1 or 0), got '${value}'`);
}

/**
 * The TLS files from `--tls-cert`/`--tls-key` (or their variables): both or neither; one alone is a
 * clear error rather than a plain-HTTP start the operator did not ask for.
 */
export function parseTlsFiles(cert: string | undefined, key: string | undefined): { certFile: string; keyFile: string } | undefined {
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined) throw new Error('--tls-key (ROA_TLS_KEY) needs --tls-cert (ROA_TLS_CERT) too');
  if (key === undefined) throw new Error('--tls-cert (ROA_TLS_CERT) needs --tls-key (ROA_TLS_KEY) too');
  return { certFile: cert, keyFile: key };
}

/**
 * A `--trust-proxy` list: `none` trusts no proxy (an empty list), anything else is handed to
 * proxy-addr, which refuses what it cannot parse.
 */
export function parseTrustProxy(value: string | undefined): string[] | undefined {
  const list = parseOptionalList(value);
  if (list === undefined) return undefined;
  if (list.length === 1 && list[0]!.toLowerCase() === 'none') return [];
  return list;
}

/** Splits a comma-separated list, dropping blanks. */
export function parseList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** parseList, or undefined for an empty list (the option's default applies then). */
export function parseOptionalList(value: string | undefined): string[] | undefined {
  const list = parseList(value);
  return list.length > 0 ? list : undefined;
}
