/**
 * @module TLS for the bench servers, from the environment the tls scenario sets: BENCH_TLS_CERT and
 * BENCH_TLS_KEY (PEM files; unset: plain HTTP), BENCH_HTTP2=1 (Fastify: `http2: true` with HTTP/1.1 allowed,
 * else its HTTPS server). The cipher suite is pinned outside, by node's `--tls-cipher-list`, alike for every
 * server. Each TLS server counts what its connections negotiated and prints it on exit, so the harness can
 * show that wrk, h2load and every server agreed on the same protocol and cipher.
 */
import { readFileSync } from 'node:fs';

/**
 * The certificate and key the harness made for this run, or undefined for plain HTTP.
 * @returns {{ certFile: string, keyFile: string, cert: Buffer, key: Buffer, http2: boolean } | undefined}
 */
export function tlsFromEnv(env = process.env) {
  if (!env.BENCH_TLS_CERT && !env.BENCH_TLS_KEY) return undefined;
  if (!env.BENCH_TLS_CERT || !env.BENCH_TLS_KEY) throw new Error('BENCH_TLS_CERT and BENCH_TLS_KEY go together');
  return {
    certFile: env.BENCH_TLS_CERT,
    keyFile: env.BENCH_TLS_KEY,
    cert: readFileSync(env.BENCH_TLS_CERT),
    key: readFileSync(env.BENCH_TLS_KEY),
    http2: env.BENCH_HTTP2 === '1',
  };
}

/** Fastify's server options for `tls` (from tlsFromEnv): HTTPS, or HTTP/2 by ALPN with HTTP/1.1 as fallback. */
export function fastifyTlsOptions(tls) {
  if (!tls) return {};
  const https = { cert: tls.cert, key: tls.key };
  return tls.http2 ? { http2: true, https: { ...https, allowHTTP1: true } } : { https };
}

/**
 * Counts each connection's TLS version, cipher and ALPN protocol on `server` and writes the counts to stderr
 * as one `tls-negotiated {json}` line when the process exits (stderr is a pipe: written synchronously).
 * @example countNegotiated(app.server) // on exit: tls-negotiated {"TLSv1.3 TLS_AES_128_GCM_SHA256 h2":17}
 */
export function countNegotiated(server) {
  const counts = {};
  server.on('secureConnection', (socket) => {
    const key = `${socket.getProtocol()} ${socket.getCipher()?.name} ${socket.alpnProtocol || 'none'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  });
  process.once('exit', () => process.stderr.write(`tls-negotiated ${JSON.stringify(counts)}\n`));
}
