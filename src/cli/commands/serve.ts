/**
 * @module cli/commands/serve
 * `roa serve`: the article service, with the embedded caching gateway in front of it.
 */
import type { Command } from 'commander';
import { MAX_TOKEN_LIFETIME_MS } from '../../auth/oauth-token.js';
import { parseCorsOrigins } from '../../middleware/cors.js';
import { startService } from '../../service.js';
import { exitGracefullyOnSignals } from '../../operations/graceful-shutdown.js';
import { parseShutdownTimeout } from '../../operations/shutdown-timeout.js';
import { parseRedisClientKind } from '../../redis/open-redis.js';
import { reloadOnSignal } from '../../tls/credentials.js';
import { MAX_DELTA_SECONDS, MAX_TIMER_MS, SERVE_OPTIONS as O, parseCount, parseInteger, parseList, parseOptionalList, parsePort, parseSwitch, parseTlsFiles, parseTrustProxy, resolveOption, type OptionSpec } from '../options.js';

const MAX_TOKEN_LIFETIME_S = MAX_TOKEN_LIFETIME_MS / 1000;
/** A day: nonces are held for the whole window, and clocks a day apart are a fault, not skew. */
const MAX_CLOCK_SKEW_S = 24 * 3600;
/** Ten million nonces (up to 512 MiB of fingerprints): past that, a deployment wants Redis, not a bigger number. */
const MAX_NONCE_MEMORY = 10_000_000;

/** An address as it stands in a URL (IPv6 in brackets). */
function urlHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

function describe(spec: OptionSpec): string {
  const extra = [spec.env ? `env ${spec.env}` : '', spec.defaultValue !== undefined ? `default ${spec.defaultValue}` : ''].filter(Boolean).join(', ');
  return extra ? `${spec.description} (${extra})` : spec.description;
}

export function registerServe(program: Command): void {
  const cmd = program.command('serve').description('run the article service (and the caching gateway on :8080)');
  for (const spec of Object.values(O)) cmd.option(spec.flag, describe(spec));
  cmd.action(async (flags: Record<string, unknown>) => {
    const opt = (key: keyof typeof O): string | undefined => resolveOption(O[key], flags[key]);
    const env = opt('env')!;
    if (env !== 'development' && env !== 'production' && env !== 'test') {
      throw new Error(`--env must be development or production, got '${env}'`);
    }
    const redisUrl = opt('redis');
    const tls = parseTlsFiles(opt('tlsCert'), opt('tlsKey'));
    for (const [key, allowed] of [['tokenFormat', ['opaque', 'jwt']], ['passwordGrant', ['on', 'off']], ['hmacMinimalUnsafe', ['on', 'off']]] as const) {
      const v = opt(key);
      if (v !== undefined && !(allowed as readonly string[]).includes(v)) throw new Error(`${O[key].flag.split(' ')[0]} must be ${allowed.join(' or ')}, got '${v}'`);
    }
    // Checked here too, so a bad origin is a one-line error before anything opens.
    const corsOrigin = parseOptionalList(opt('corsOrigin'));
    if (corsOrigin !== undefined) parseCorsOrigins(corsOrigin);
    const shutdownTimeoutMs = parseShutdownTimeout(opt('shutdownTimeout'), '--shutdown-timeout (ROA_SHUTDOWN_TIMEOUT)');
    const running = await startService({
      port: parsePort(opt('port'), '--port'),
      host: opt('host'),
      db: opt('db'),
      ...(opt('schema') !== undefined ? { pgSchema: opt('schema') } : {}),
      env,
      gatewayPort: parsePort(opt('gatewayPort'), '--gateway-port'),
      purge: parseList(opt('purge')),
      purgeAllow: parseOptionalList(opt('purgeAllow')),
      trustProxy: parseTrustProxy(opt('trustProxy')),
      ...(tls ? { tls } : {}),
      purgeTimeoutMs: parseCount(opt('purgeTimeout'), '--purge-timeout', MAX_TIMER_MS),
      purgeDelayMs: parseCount(opt('purgeDelay'), '--purge-delay', MAX_TIMER_MS),
      ...(redisUrl ? { redisUrl } : {}),
      redisClient: parseRedisClientKind(opt('redisClient'), '--redis-client (ROA_REDIS_CLIENT)'),
      secretKeyFile: opt('secretKeyFile'),
      tokenFormat: opt('tokenFormat') === 'jwt' ? 'jwt' : 'opaque',
      // Unset: on in development, off in production (service.ts); on in production needs the client list.
      ...(opt('passwordGrant') !== undefined ? { passwordGrant: opt('passwordGrant') === 'on' } : {}),
      passwordGrantClients: parseOptionalList(opt('passwordGrantClients')),
      jwtKeyFile: opt('jwtKeyFile'),
      accessTokenTtlMs: parseInteger(opt('accessTokenTtl'), '--access-token-ttl', 1, MAX_TOKEN_LIFETIME_S) * 1000,
      refreshTokenTtlMs: parseInteger(opt('refreshTokenTtl'), '--refresh-token-ttl', 1, MAX_TOKEN_LIFETIME_S) * 1000,
      ...(opt('issuer') ? { issuer: opt('issuer') } : {}),
      ...(opt('hmacMinimalUnsafe') ? { hmacMinimalUnsafe: opt('hmacMinimalUnsafe') === 'on' } : {}),
      hmacClockSkewMs: parseInteger(opt('hmacClockSkew'), '--hmac-clock-skew', 1, MAX_CLOCK_SKEW_S) * 1000,
      sqliteNonceLog: parseSwitch(opt('sqliteNonceLog'), '--sqlite-nonce-log (ROA_SQLITE_NONCE_LOG)'),
      nonceMemoryLimit: parseInteger(opt('nonceMemory'), '--nonce-memory', 1, MAX_NONCE_MEMORY),
      logLevel: opt('logLevel'),
      metricsAllow: parseList(opt('metricsAllow')),
      maxAge: parseCount(opt('maxAge'), '--max-age', MAX_DELTA_SECONDS),
      ...(corsOrigin !== undefined ? { corsOrigin } : {}),
    });
    const { address, gatewayAddress } = running;
    const scheme = (secure: boolean): string => (secure ? 'https' : 'http');
    console.log(`roa: service on ${scheme(tls !== undefined && !gatewayAddress)}://${urlHost(address.address)}:${address.port}`);
    if (gatewayAddress) console.log(`roa: caching gateway on ${scheme(tls !== undefined)}://${urlHost(gatewayAddress.address)}:${gatewayAddress.port}`);
    // A renewed certificate is taken on SIGHUP; connections already open keep the one they began with.
    if (tls && running.tlsServer) reloadOnSignal([running.tlsServer], tls, running.logger);
    exitGracefullyOnSignals((timeoutMs) => running.shutdown({ timeoutMs }), shutdownTimeoutMs, running.logger);
  });
}
