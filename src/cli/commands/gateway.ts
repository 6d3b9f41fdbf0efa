/**
 * @module cli/commands/gateway
 * `roa gateway --upstream URL`: the caching gateway alone, in front of any origin.
 */
import type { Command } from 'commander';
import { pino } from 'pino';
import { runGateway } from '../../gateway/index.js';
import { exitGracefullyOnSignals } from '../../operations/graceful-shutdown.js';
import { parseShutdownTimeout } from '../../operations/shutdown-timeout.js';
import { loadTlsCredentials, reloadOnSignal } from '../../tls/credentials.js';
import { GATEWAY_OPTIONS as O, parseCount, parseInteger, parseList, parsePort, parseTlsFiles, parseTrustProxy, resolveOption } from '../options.js';

export function registerGateway(program: Command): void {
  program
    .command('gateway')
    .description('run only the RFC 9111 caching gateway in front of an origin')
    .option(O.upstream.flag, O.upstream.description)
    .option(O.port.flag, `${O.port.description} (env ${O.port.env}, default ${O.port.defaultValue})`)
    .option(O.host.flag, `${O.host.description} (env ${O.host.env}, default ${O.host.defaultValue})`)
    .option(O.maxBytes.flag, `${O.maxBytes.description} (default 64 MiB)`)
    .option(O.purgeAllow.flag, O.purgeAllow.description)
    .option(O.maxVariants.flag, `${O.maxVariants.description} (env ${O.maxVariants.env}, default ${O.maxVariants.defaultValue})`)
    .option(O.tlsCert.flag, `${O.tlsCert.description} (env ${O.tlsCert.env})`)
    .option(O.tlsKey.flag, `${O.tlsKey.description} (env ${O.tlsKey.env})`)
    .option(O.trustProxy.flag, `${O.trustProxy.description} (env ${O.trustProxy.env})`)
    .option(O.metricsAllow.flag, `${O.metricsAllow.description} (env ${O.metricsAllow.env}, default loopback)`)
    .option(O.logLevel.flag, `${O.logLevel.description} (env ${O.logLevel.env}, default ${O.logLevel.defaultValue})`)
    .option(O.storeSetCookie.flag, `${O.storeSetCookie.description} (env ${O.storeSetCookie.env}, default ${O.storeSetCookie.defaultValue})`)
    .option(O.contentCoding.flag, `${O.contentCoding.description} (env ${O.contentCoding.env}, default ${O.contentCoding.defaultValue})`)
    .option(O.shutdownTimeout.flag, `${O.shutdownTimeout.description} (env ${O.shutdownTimeout.env}, default ${O.shutdownTimeout.defaultValue})`)
    .action(async (flags: Record<string, unknown>) => {
      const upstream = resolveOption(O.upstream, flags.upstream);
      if (!upstream) throw new Error('--upstream is required (e.g. --upstream http://127.0.0.1:3000)');
      let url: URL;
      try {
        url = new URL(upstream);
      } catch {
        throw new Error(`--upstream must be an http:// URL, got '${upstream}'`);
      }
      if (url.protocol !== 'http:') throw new Error(`--upstream must be an http:// URL, got '${upstream}'`);
      const purgeAllow = parseList(resolveOption(O.purgeAllow, flags.purgeAllow));
      const storeSetCookie = resolveOption(O.storeSetCookie, flags.storeSetCookie);
      if (storeSetCookie !== 'on' && storeSetCookie !== 'off') throw new Error(`--store-set-cookie must be on or off, got '${storeSetCookie}'`);
      const contentCoding = resolveOption(O.contentCoding, flags.contentCoding);
      if (contentCoding !== 'on' && contentCoding !== 'off') throw new Error(`--content-coding must be on or off, got '${contentCoding}'`);
      const tlsFiles = parseTlsFiles(resolveOption(O.tlsCert, flags.tlsCert), resolveOption(O.tlsKey, flags.tlsKey));
      // Read and checked before anything listens: a bad pair is a one-line error and exit code 1.
      const tls = tlsFiles ? loadTlsCredentials(tlsFiles) : undefined;
      const trustProxy = parseTrustProxy(resolveOption(O.trustProxy, flags.trustProxy));
      const shutdownTimeoutMs = parseShutdownTimeout(resolveOption(O.shutdownTimeout, flags.shutdownTimeout), '--shutdown-timeout (ROA_SHUTDOWN_TIMEOUT)');
      const logger = pino({ level: resolveOption(O.logLevel, flags.logLevel) ?? 'info' });
      const { gateway } = await runGateway({
        logger,
        metrics: { allow: parseList(resolveOption(O.metricsAllow, flags.metricsAllow)) },
        ...(tls ? { tls } : {}),
        ...(trustProxy && trustProxy.length > 0 ? { trustProxy } : {}),
        upstream,
        port: parsePort(resolveOption(O.port, flags.port), '--port'),
        host: resolveOption(O.host, flags.host),
        maxBytes: parseCount(resolveOption(O.maxBytes, flags.maxBytes), '--max-bytes'),
        maxVariants: parseInteger(resolveOption(O.maxVariants, flags.maxVariants), '--max-variants', 1, 10_000),
        storeSetCookie: storeSetCookie === 'on',
        contentCoding: contentCoding === 'on',
        ...(purgeAllow.length > 0 ? { purgeAllow } : {}),
      });
      if (tlsFiles && 'setSecureContext' in gateway.server) reloadOnSignal([gateway.server], tlsFiles, logger);
      exitGracefullyOnSignals((timeoutMs) => gateway.shutdown(timeoutMs), shutdownTimeoutMs, logger);
    });
}
