/**
 * @module service
 * Wiring of the article service: options → store → authentication → app → gateway.
 * The CLI parses flags and calls `startService`; tests call it too.
 */
import type { Server } from 'node:http';
import type { Http2SecureServer } from 'node:http2';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { pino, type Logger } from 'pino';
import { createApp, type App } from './app.js';
import { Authenticator } from './auth/authenticator.js';
import { BasicScheme } from './auth/basic.js';
import { BearerScheme } from './auth/bearer.js';
import { HmacScheme } from './auth/hmac.js';
import { OAuth1Scheme } from './auth/oauth1/oauth1-scheme.js';
import { storeCredentials } from './auth/oauth1/store-credentials.js';
import { JwtAccessTokens } from './auth/jwt-keys.js';
import type { NonceStore } from './auth/nonce-store.js';
import { createOAuthRouter } from './auth/oauth-router.js';
import { ConsentPages, consentKey } from './auth/consent/index.js';
import { createOAuth1Router } from './auth/oauth1-flow/oauth1-router.js';
import { createRedisNonceStore } from './auth/redis-nonce-store.js';
import { RedisFailureThrottle } from './auth/redis-throttle.js';
import type { AuthScheme } from './auth/scheme.js';
import { loadServerKey, SecretBox } from './auth/secret-box.js';
import { StoreNonceStore } from './auth/store-nonce-store.js';
import { FailureThrottle, type AttemptThrottle } from './auth/throttle.js';
import { parseRedisClientKind } from './redis/open-redis.js';
import type { RedisClientKind } from './redis/redis-client.js';
import { sendProblem } from './errors/problem.js';
import { createGateway, type Gateway } from './gateway/index.js';
import { Purger, type LocalCache } from './resources/purger.js';
import type { NextFunction, Request } from './http/request.js';
import { trustProxyList } from './http/trust-proxy.js';
import { answerProbe } from './operations/health.js';
import { Readiness } from './operations/readiness.js';
import { drainable } from './operations/server-drain.js';
import { shutdownService, type ServiceShutdownReport } from './operations/service-shutdown.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from './operations/shutdown-timeout.js';
import type { Response } from './http/response.js';
import { accessLog, noteFailure } from './middleware/access-log.js';
import { collectGateway } from './metrics/gateway-collector.js';
import { metricsResponder } from './metrics/metrics-endpoint.js';
import { collectPurger } from './metrics/purger-collector.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import { HttpError, statusOf } from './errors/http-error.js';
import { compression, type CompressionOptions } from './middleware/compression.js';
import { cors, parseCorsOrigins } from './middleware/cors.js';
import { credentialsOverTls } from './middleware/credentials-over-tls.js';
import { methodOverride } from './middleware/method-override.js';
import { sameOriginForms } from './middleware/same-origin-forms.js';
import { urlencoded } from './middleware/urlencoded.js';
import { stylesheet } from './html/stylesheet.js';
import type { PageCaller } from './html/page.js';
import { prefersHtml, sendProblemPage } from './html/problem-page.js';
import { signIn, SIGN_IN_PATH } from './html/sign-in.js';
import { signInLink } from './resources/representations/html.js';
import { formEtag } from './middleware/form-etag.js';
import { multipartForm } from './middleware/multipart-form.js';
import { articleCollectionResource, articleItemResource } from './resources/article/article-resources.js';
import { ARTICLE_SCOPE_LIST } from './resources/article/article-scopes.js';
import { resourceHandler, type ResourceDeps, type ResourceSpec } from './resources/resource.js';
import { openapiHandler, OPENAPI_PATH } from './openapi/openapi-endpoint.js';
import { openStore } from './storage/open-store.js';
import { loadTlsCredentials, type ReloadableServer, type TlsCredentials, type TlsFiles } from './tls/credentials.js';
import type { Store } from './storage/store.js';

export interface ServiceOptions {
  /** SQLite path, `:memory:` or `postgres://…` (default ./data/roa.db). */
  db?: string;
  /**
   * SQLite only: keep HMAC nonces in an append-only log indexed in memory instead of the table keyed
   * by nonce (the default); for very high signed-request rates on one SQLite file. Default false.
   */
  sqliteNonceLog?: boolean;
  /**
   * SQLite with `sqliteNonceLog` only: nonces kept in memory; past it they go to a slower on-disk table.
   * Default 1,000,000 (32 MiB; ~1,660 signed requests per second over a 10-minute window).
   */
  nonceMemoryLimit?: number;
  /** PostgreSQL only: the schema holding roa's tables, created if absent (default the connection's search_path). */
  pgSchema?: string;
  /** An already open store (tests); `db`, `pgSchema`, `sqliteNonceLog` and `nonceMemoryLimit` are ignored then. */
  store?: Store;
  /** Clock (ms epoch) of the Idempotency-Key expiry and running markers; tests move it. Default Date.now. */
  idempotencyClock?: () => number;
  /** Clock (ms epoch) of OAuth 1.0a timestamps and temporary-credential expiry; tests move it. Default Date.now. */
  oauth1Clock?: () => number;
  /** Clock (ms epoch) of OAuth 2.0 tokens, authorization codes and the sign-in pages' forms; tests move it. Default Date.now. */
  oauthClock?: () => number;
  env?: string;
  port?: number;
  host?: string;
  /** Embedded gateway port; 0 = off (default 8080); 'ephemeral' = any free port (tests). */
  gatewayPort?: number | 'ephemeral';
  /**
   * Proxies whose X-Forwarded-For / -Proto / -Host and `Forwarded` are believed (`req.ip`, which the
   * failed-login throttle counts per; `req.protocol`/`secure`, which production's TLS rule reads;
   * `req.hostname` and the public origin that absolute URLs name): addresses, CIDRs or
   * `loopback`/`linklocal`/`uniquelocal`, as Express's `trust proxy`. Default `['loopback']`, which
   * covers the embedded gateway and a TLS terminator on the same host. `[]` or `['none']` trusts
   * nobody (every request is judged by its socket). `startService` adds the embedded gateway's own
   * address when it is on.
   */
  trustProxy?: string[];
  /**
   * Serve the public entry over HTTPS, with HTTP/2 offered by ALPN (`startService` only): the
   * embedded gateway's port when it is on (the service port then stays plain HTTP for the gateway),
   * else the service port. Files are read and checked before anything listens.
   */
  tls?: TlsFiles | TlsCredentials;
  /** Cache node base URLs to PURGE after writes (the embedded gateway is added when on). */
  purge?: string[];
  purgeAllow?: string[];
  purgeTimeoutMs?: number;
  purgeDelayMs?: number;
  /** Redis for the shared HMAC nonce store (default: the database). */
  redisUrl?: string;
  /**
   * The client that speaks to `redisUrl`: `node-redis` (default) or `resp`, roa's own pipelined
   * RESP client (redis/open-redis). Default from `ROA_REDIS_CLIENT`, else `node-redis`.
   */
  redisClient?: RedisClientKind;
  /** Key file for HMAC secrets at rest (ROA_SECRET_KEY wins); default ./data/secret.key. */
  secretKeyFile?: string;
  /** The server key itself (tests). */
  serverKey?: Buffer;
  /** Accept the replayable minimal HMAC form for unsafe methods (default: only in development). */
  hmacMinimalUnsafe?: boolean;
  /** Allowed clock skew of signed requests, ms (default 10 min). */
  hmacClockSkewMs?: number;
  /**
   * OAuth issuer (an http(s) origin), named by the metadata and every JWT. Default: each request's
   * public origin (http/public-origin: its protocol and host as trusted proxies state them), and a
   * JWT is then accepted only at the origin it was issued at.
   */
  issuer?: string;
  /** Access tokens as opaque strings (default) or RFC 9068 JWTs. */
  tokenFormat?: 'opaque' | 'jwt';
  /** Key file of the JWT signing key (JWT mode); default ./data/jwt-signing-key.json. */
  jwtKeyFile?: string;
  /**
   * The password grant (first-party clients only; OAuth 2.1 drops it, RFC 9700 §2.4 forbids it).
   * Default on in development, off in production, where turning it on needs `passwordGrantClients`.
   */
  passwordGrant?: boolean;
  /** When set, only these (first-party) clients may use the password grant. Default: every client (development only). */
  passwordGrantClients?: string[];
  /** Life of OAuth access tokens, ms (default 15 min). */
  accessTokenTtlMs?: number;
  /** Life of OAuth refresh tokens, ms (default 30 days). */
  refreshTokenTtlMs?: number;
  logLevel?: string;
  /** CIDRs that may read `GET /metrics` (judged by `req.ip`, so through trusted proxies); default loopback. */
  metricsAllow?: string[];
  /** max-age / s-maxage of safe responses (default 60). */
  maxAge?: number;
  logger?: Logger;
  /** Response compression by Accept-Encoding (middleware/compression); `false` turns it off. Default on. */
  compression?: CompressionOptions | false;
  /** Origins allowed cross-origin access (middleware/cors: `scheme://host[:port]`, or `*` alone); default none (no CORS). */
  corsOrigin?: string[];
}

export interface Service {
  app: App;
  store: Store;
  authenticator: Authenticator;
  /** Resource dependencies; `purger` may be set after start-up (once cache nodes are known). */
  deps: ResourceDeps;
  logger: Logger;
  /** Closes the connections the service opened besides the store (Redis). */
  release(): Promise<void>;
  /** What `/readyz` answers: the database and the nonce store (Redis with `redisUrl`) answer, not shutting down. */
  readiness: Readiness;
  /** Prometheus metrics of this service, in a registry of its own (`GET /metrics`). */
  metrics: ServiceMetrics;
}

export interface RunningService extends Service {
  purger: Purger | undefined;
  /** The service's own server: HTTPS and HTTP/2 when `tls` is given and the gateway is off. */
  server: Server | Http2SecureServer;
  /** The server that terminates TLS (the gateway's or the service's), for reloading its certificate; undefined without `tls`. */
  tlsServer: ReloadableServer | undefined;
  address: AddressInfo;
  gateway: Gateway | undefined;
  gatewayAddress: AddressInfo | undefined;
  /** Closes at once: connections are cut, pending purges dropped. */
  close(): Promise<void>;
  /**
   * Closes gracefully (operations/service-shutdown): `/readyz` 503, no new connections, requests
   * in flight finish on both ports, pending purges finish or are given up, then Redis and the
   * database close. `timeoutMs` (default 10 s) bounds it; connections still open then are cut.
   */
  shutdown(opts?: { timeoutMs?: number }): Promise<ServiceShutdownReport>;
}

/** The store the options name (`db`, default ./data/roa.db), for when none was handed in. */
function openServiceStore(opts: ServiceOptions): Promise<Store> {
  return openStore(opts.db ?? './data/roa.db', {
    sqliteNonceLog: opts.sqliteNonceLog === true,
    nonceMemoryLimit: opts.nonceMemoryLimit,
    ...(opts.pgSchema !== undefined ? { schema: opts.pgSchema } : {}),
  });
}

/** Builds the app and its dependencies without listening. */
export async function createService(opts: ServiceOptions = {}): Promise<Service> {
  const env = opts.env ?? process.env.NODE_ENV ?? 'development';
  const logger = opts.logger ?? pino({ level: opts.logLevel ?? 'info', redact: ['req.headers.authorization', 'req.headers.authentication'] });
  const store = opts.store ?? (await openServiceStore(opts));
  // A long-running service checkpoints SQLite's WAL off the event loop.
  store.startBackgroundCheckpoints?.();
  const production = env === 'production';
  const serverKey = opts.serverKey ?? loadServerKey({ keyFile: opts.secretKeyFile }).key;
  const box = new SecretBox(serverKey);
  // Nonces: Redis when instances share them, else the database (SQLite writes them by group
  // commit, one transaction per event-loop turn). Either survives a restart, so a nonce seen
  // before it stays refused, and neither is bounded by this process's memory.
  const redisClient = opts.redisClient ?? parseRedisClientKind(process.env.ROA_REDIS_CLIENT, 'ROA_REDIS_CLIENT');
  const nonces: NonceStore = opts.redisUrl ? createRedisNonceStore(opts.redisUrl, { prefix: 'roa:nonce:', client: redisClient, logger }) : new StoreNonceStore(store);
  // Failed client secrets and passwords (Basic and the password grant, per user name), counted
  // across instances in Redis when there is one.
  const throttle: AttemptThrottle = opts.redisUrl ? new RedisFailureThrottle(opts.redisUrl, { prefix: 'roa:throttle:', client: redisClient, logger }) : new FailureThrottle();
  // Without --issuer, each request's public origin is the issuer (http/public-origin): metadata and
  // JWTs name the origin the client reached, through the gateway or directly.
  const issuer = opts.issuer;
  const passwordGrant = passwordGrantSetting(opts, production);
  const jwt = opts.tokenFormat === 'jwt' ? await JwtAccessTokens.load({ issuer, keyFile: opts.jwtKeyFile }) : undefined;
  const schemes: AuthScheme[] = [
    new BasicScheme({ store, throttle }),
    new HmacScheme({
      store,
      box,
      nonces,
      production,
      ...(opts.hmacMinimalUnsafe !== undefined ? { allowMinimalForUnsafe: opts.hmacMinimalUnsafe } : {}),
      ...(opts.hmacClockSkewMs !== undefined ? { clockSkewMs: opts.hmacClockSkewMs } : {}),
    }),
    new BearerScheme({ store, ...(jwt ? { jwt } : {}) }),
    // OAuth 1.0a signed requests (RFC 5849), always on like the OAuth 2 endpoints: a client must first be registered.
    new OAuth1Scheme({
      credentials: storeCredentials(store.oauth1, box),
      store,
      nonces,
      production,
      ...(opts.hmacClockSkewMs !== undefined ? { clockSkewMs: opts.hmacClockSkewMs } : {}),
      // The endpoints' clock too, so a test that moves time signs resource requests in the same time.
      ...(opts.oauth1Clock !== undefined ? { now: opts.oauth1Clock } : {}),
    }),
  ];
  const authenticator = new Authenticator(schemes);
  const metrics = new ServiceMetrics();
  authenticator.onFailure = (scheme) => metrics.authFailed(scheme);
  // A bad CIDR stops start-up.
  const answerMetrics = metricsResponder(metrics.registry, opts.metricsAllow);
  const purger = makePurger(opts.purge ?? [], opts, logger);
  // A malformed origin stops start-up.
  const corsOrigins = opts.corsOrigin !== undefined && opts.corsOrigin.length > 0 ? parseCorsOrigins(opts.corsOrigin) : undefined;

  const app = createApp({ env });
  // Throws a TypeError for a malformed entry, so bad configuration stops start-up.
  const trustProxy = trustProxyList(opts.trustProxy);
  if (trustProxy.length > 0) app.set('trust proxy', trustProxy);
  const readiness = new Readiness({ database: () => store.ping(), ...(nonces instanceof StoreNonceStore ? {} : { nonces: () => nonces.ping?.() ?? Promise.resolve() }) });
  // The probes and /metrics are answered first, in the access log's layer: before it logs, and before
  // authentication and parsing (operations/health). /metrics is judged by req.ip: through the embedded
  // gateway the socket peer is always loopback.
  const probeOptions = { production };
  app.use(accessLog(logger, {
    metrics,
    answerMetrics,
    answerProbe: (kind, req, res) => answerProbe(kind, req, res, readiness, probeOptions),
  }));
  // Preflights are answered (and logged) before anything authenticates; the OAuth endpoints follow the same rules.
  if (corsOrigins !== undefined) app.use(cors(corsOrigins));
  if (opts.compression !== false) app.use(compression(opts.compression));
  // The pages' look (html/stylesheet): public, long-cached, before anything authenticates.
  app.use(stylesheet());
  // Production: credentials over plain HTTP are refused before anything reads, authenticates or
  // stores (after the access log only, so the refusal is logged there too); HSTS on secure answers.
  app.use(credentialsOverTls({ logger }));
  // The sign-in and approval page of /oauth/authorize and /oauth1/authorize (auth/consent): its
  // password attempts count with Basic's; the form's state is sealed with a key derived from the
  // server key every instance shares.
  const consentPages = new ConsentPages({
    key: consentKey(serverKey), store, throttle,
    ...(issuer !== undefined ? { origins: [issuer] } : {}),
    ...(opts.oauthClock !== undefined ? { now: opts.oauthClock } : {}),
  });
  // The OAuth endpoints read their own form (RFC 6749 rules, errors as RFC 6749 §5.2 JSON), so
  // they come before the service's form parser, whose refusals are problem documents.
  app.use(createOAuthRouter({
    store,
    issuer,
    ...(jwt ? { jwt } : {}),
    consent: consentPages,
    ...(opts.oauthClock !== undefined ? { now: opts.oauthClock } : {}),
    passwordGrant,
    passwordGrantClients: opts.passwordGrantClients,
    scopesSupported: ARTICLE_SCOPE_LIST,
    throttle,
    // Undefined takes the token service's defaults (15 minutes, 30 days).
    accessTokenTtlMs: opts.accessTokenTtlMs,
    refreshTokenTtlMs: opts.refreshTokenTtlMs,
  }));
  // OAuth 1.0a (RFC 5849): its endpoints read their own signed forms, and its approval page is the
  // shared sign-in page.
  app.use(createOAuth1Router({
    store, box, pages: consentPages, nonces, production,
    ...(opts.hmacClockSkewMs !== undefined ? { clockSkewMs: opts.hmacClockSkewMs } : {}),
    ...(opts.oauth1Clock !== undefined ? { now: opts.oauth1Clock } : {}),
  }));
  // A form another site makes a logged-in browser post is refused before it is parsed or
  // overridden (CSRF); the configured issuer is the public origin behind a TLS front end.
  app.use(sameOriginForms({ origins: opts.issuer !== undefined ? [opts.issuer] : [] }));
  // HTML forms send `_method=PUT|DELETE` in a urlencoded POST body: parse forms first (the raw
  // bytes stay cached for the resource's own parser), then override before routing.
  // Multipart forms too (text fields), and a form's `_etag` becomes If-Match once `_method` made it a PUT or DELETE.
  app.use(urlencoded({ extended: true }), multipartForm(), methodOverride(), formEtag());
  const deps: ResourceDeps = { authenticator, purger, env };
  const resources = [articleCollectionResource({ store, maxAge: opts.maxAge, idempotencyClock: opts.idempotencyClock }), articleItemResource({ store, maxAge: opts.maxAge })];
  // The browsable API's sign-in link: a Basic challenge only where a browser asks for one.
  app.get(SIGN_IN_PATH, signIn({ authenticator, production }));
  app.get(OPENAPI_PATH, openapiHandler({ resources, issuer, jwt: jwt !== undefined, passwordGrant }));
  for (const resource of resources) mountResource(app, resource as ResourceSpec<unknown, unknown>, deps);
  // An unmatched path ends in the error handler below, so a browser gets its 404 as a page too.
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const pathname = (req.originalUrl || req.url || '/').split('?')[0];
    next(new HttpError(404, `Cannot ${req.method} ${pathname}`, { code: 'ROA_ERR_NOT_FOUND' }));
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    recordFailure(err, req, res, logger, metrics);
    // A browser gets the problem as a page (html/problem-page); API clients JSON or XML as before.
    if (prefersHtml(req.headers.accept)) sendProblemPage(req, res, err, { env, caller: req.locals.caller as PageCaller | undefined, signIn: signInLink(req.originalUrl || '/articles') });
    else sendProblem(req, res, err, { env });
  });
  const release = async (): Promise<void> => {
    await nonces.close?.();
    await throttle.close?.();
  };
  return { app, store, authenticator, deps, logger, release, readiness, metrics };
}

/**
 * The password grant (RFC 6749 §4.3), which RFC 9700 §2.4 says must not be used: in production off
 * unless asked for, and then only for the clients named (a start-up error otherwise); development
 * keeps it on for every client unless told otherwise.
 */
function passwordGrantSetting(opts: ServiceOptions, production: boolean): boolean {
  const on = opts.passwordGrant ?? !production;
  if (on && production && (opts.passwordGrantClients === undefined || opts.passwordGrantClients.length === 0)) {
    throw new Error('--password-grant on in production needs --password-grant-clients naming the first-party clients allowed it');
  }
  return on;
}

/**
 * A 5xx is logged at warn with its reason when it is produced (the database or the nonce store
 * failing), counted, and noted for the request's access log line. Messages of roa's errors name
 * hosts, never credentials.
 */
function recordFailure(err: unknown, req: Request, res: Response, logger: Logger, metrics: ServiceMetrics): void {
  const status = statusOf(err);
  if (status < 500) return;
  const code = err instanceof HttpError ? err.code : 'ROA_ERR_INTERNAL';
  metrics.countError(code);
  const cause = err instanceof Error ? err.cause : undefined;
  const message = err instanceof Error ? err.message : String(err);
  const reason = cause instanceof Error && cause.message !== '' && !message.includes(cause.message) ? `${message}: ${cause.message}` : message;
  noteFailure(res, { code, reason });
  logger.warn({ reqId: req.id, code, reason }, 'request failed');
}

function makePurger(nodes: string[], opts: ServiceOptions, logger: Logger, localCaches: LocalCache[] = []): Purger | undefined {
  if (nodes.length === 0 && localCaches.length === 0) return undefined;
  return new Purger({ nodes, localCaches, timeoutMs: opts.purgeTimeoutMs, delayedPurgeMs: opts.purgeDelayMs, logger });
}

/** Registers a resource on every path it declares. */
export function mountResource<D, I>(app: App, spec: ResourceSpec<D, I>, deps: Parameters<typeof resourceHandler>[1]): void {
  const handler = resourceHandler(spec, deps);
  // One route per path, so the metrics' `route` label (req.route.path) names the pattern the request matched.
  for (const path of spec.paths) app.all(path, handler);
}

function listen(server: NetServer, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      reject(err.code === 'EADDRINUSE' ? new Error(`port ${port} on ${host} is already in use`) : err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** Starts the service and (unless gatewayPort is 0) the embedded caching gateway in front of it. */
export async function startService(opts: ServiceOptions = {}): Promise<RunningService> {
  const host = opts.host ?? '127.0.0.1';
  const gatewayPort = opts.gatewayPort ?? 8080;
  // A bad certificate or key stops start-up before anything opens or listens.
  const tls = opts.tls === undefined ? undefined : 'certFile' in opts.tls ? loadTlsCredentials(opts.tls) : opts.tls;
  const serviceTls = gatewayPort === 0 ? tls : undefined;
  // Purge targets are known only once the embedded gateway listens (its port may be 0 in tests),
  // so the purger is made after start-up and handed to the resources through `deps`.
  // Listen first, so the OAuth issuer can name the real port even when it was 0.
  const server = serviceTls ? createApp().createSecureServer({ cert: serviceTls.cert, key: serviceTls.key }) : createApp().createServer();
  server.removeAllListeners('request');
  // An HTTP/2 server has no closeAllConnections: its connections are tracked for `close` and `shutdown`.
  const drainer = drainable(server);
  const store = opts.store ?? (await openServiceStore(opts));
  let address: AddressInfo;
  try {
    address = await listen(server, opts.port ?? 3000, host);
  } catch (err) {
    await store.close();
    throw err;
  }
  // The embedded gateway connects from the address the service listens on (loopback for a
  // wildcard), pinned, so the service believes X-Forwarded-For from exactly that address: the
  // gateway's, not every client's on the host.
  const gatewayFrom = gatewayPort !== 0 ? connectAddress(address.address) : undefined;
  // `none` (trust nobody) still lets the embedded gateway's own address in.
  const wantedTrust = (opts.trustProxy ?? ['loopback']).filter((a) => a.toLowerCase() !== 'none');
  const trustProxy = gatewayFrom === undefined ? wantedTrust : [...wantedTrust, gatewayFrom];
  let service: Service;
  try {
    service = await createService({ ...opts, store, port: address.port, purge: [], trustProxy });
  } catch (err) {
    server.close();
    await store.close();
    throw err;
  }
  server.on('request', service.app);
  let gateway: Gateway | undefined;
  let gatewayAddress: AddressInfo | undefined;
  if (gatewayFrom !== undefined) {
    gateway = createGateway({ upstream: `http://${hostForUrl(gatewayFrom)}:${address.port}`, upstreamLocalAddress: gatewayFrom, purgeAllow: opts.purgeAllow, logger: service.logger, ...(tls ? { tls } : {}) });
    try {
      gatewayAddress = await gateway.listen(gatewayPort === 'ephemeral' ? 0 : gatewayPort, host);
    } catch (err) {
      server.close();
      await service.store.close();
      throw err instanceof Error && /EADDRINUSE/.test(err.message) ? new Error(`gateway port ${gatewayPort} on ${host} is already in use`) : err;
    }
  }
  const nodes = [...(opts.purge ?? [])];
  // The embedded gateway is invalidated by a call, never by a PURGE over loopback: it costs no
  // request on either side, and over TLS its certificate names the public host, not loopback.
  const localCaches = gateway !== undefined ? [gateway] : [];
  const purger = makePurger(nodes, opts, service.logger, localCaches);
  service.deps.purger = purger;
  collectGateway(service.metrics.registry, () => gateway);
  collectPurger(service.metrics.registry, () => purger);
  return {
    ...service,
    purger,
    server,
    address,
    gateway,
    gatewayAddress,
    tlsServer: tls === undefined ? undefined : gateway !== undefined ? gateway.server as ReloadableServer : server as Http2SecureServer,
    async close() {
      await purger?.close();
      await gateway?.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      drainer.closeAll();
      await closed;
      await service.release();
      await service.store.close();
    },
    shutdown(o = {}) {
      const release = async (): Promise<void> => {
        await service.release();
        await service.store.close();
      };
      return shutdownService({ readiness: service.readiness, server: drainer, gateway, purger, release }, o.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
    },
  };
}

/** The address to reach a server bound to `bound` at from this host: a wildcard's loopback. */
function connectAddress(bound: string): string {
  if (bound === '0.0.0.0') return '127.0.0.1';
  if (bound === '::') return '::1';
  return bound;
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
