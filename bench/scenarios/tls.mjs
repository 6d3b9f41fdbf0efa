/**
 * @module Scenario "tls" (issue 26): roa over TLS against Fastify 5 over TLS, the same certificate (a throwaway
 * CA made for the run, EC P-256) and the same pinned cipher suite, for the routing servers' `GET /` and the
 * article service's `GET /article/1`; over HTTPS (HTTP/1.1 keep-alive, wrk) and over HTTP/2 (h2load).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARTICLE_XML } from '../lib/article-servers.mjs';
import { makeBenchCertificates } from '../lib/tls-cert.mjs';
import { scriptDirectory } from '../lib/wrk.mjs';

// roa compresses by Accept-Encoding since issue 27 (the peers send the same Vary); a build from before
// sends `Accept` alone, accepted so that `--variant` can run one.
const VARY = ['Accept, Accept-Encoding', 'Accept'];

/**
 * The one suite every server offers (node's `--tls-cipher-list`, so roa's service and Fastify are pinned alike
 * whatever their options): TLS 1.3 with AES-128-GCM, h2load's first choice. wrk's OpenSSL would pick
 * AES-256-GCM first and h2load AES-128-GCM; pinned, both clients get the same. No TLS 1.2 suite is left, so
 * every connection is TLS 1.3; each server counts what its connections negotiated (lib/tls-server.mjs).
 */
export const CIPHER = 'TLS_AES_128_GCM_SHA256';

const certs = makeBenchCertificates(path.join(scriptDirectory(), 'tls'));
const script = (name) => fileURLToPath(new URL(`../servers/${name}.mjs`, import.meta.url));
const nodeArgs = (name) => [`--tls-cipher-list=${CIPHER}`, script(name)];
const tlsEnv = { BENCH_TLS_CERT: certs.certFile, BENCH_TLS_KEY: certs.keyFile };

/** @type {import('../run.mjs').Scenario} */
export default {
  name: 'tls',
  description:
    `TLS 1.3, ${CIPHER} pinned on every server (node --tls-cipher-list), one throwaway EC P-256 certificate. ` +
    "`GET /` of the routing servers and `GET /article/1` (XML) of the article servers, each over HTTPS (HTTP/1.1 " +
    'keep-alive, wrk; no ALPN offered) and over HTTP/2 (h2load, ALPN h2). roa: one listener, `app.createSecureServer` ' +
    "(HTTP/2 by ALPN, HTTP/1.1 otherwise) for `GET /`, and `startService` with `tls` (gateway off) for the article; " +
    'Fastify 5: `https` for HTTP/1.1, `http2: true` with `allowHTTP1` for HTTP/2, the article on the shared handler ' +
    '(as in the articles scenario).',
  subject: 'roa',
  peers: ['fastify'],
  ca: certs.ca,
  servers: [
    {
      name: 'roa',
      cmd: process.execPath,
      args: nodeArgs('roa'),
      env: tlsEnv,
      // One listener serves both protocols: only the script differs per request.
      forRequest: (req) => ({ args: nodeArgs(req.app === 'article' ? 'articles-roa' : 'roa') }),
    },
    {
      name: 'fastify',
      cmd: process.execPath,
      args: nodeArgs('fastify'),
      env: tlsEnv,
      forRequest: (req) => ({
        args: nodeArgs(req.app === 'article' ? 'articles-fastify' : 'fastify'),
        env: { BENCH_HTTP2: req.protocol === 'h2' ? '1' : '0' },
      }),
    },
  ],
  requests: [
    { name: 'hello https', app: 'hello', protocol: 'https', method: 'GET', path: '/', expect: { status: 200, body: 'Hello World' } },
    {
      name: 'GET article https',
      app: 'article',
      protocol: 'https',
      method: 'GET',
      path: '/article/1',
      expect: { status: 200, body: ARTICLE_XML, headers: { 'content-type': 'application/xml; charset=utf-8', vary: VARY } },
    },
    { name: 'hello h2', app: 'hello', protocol: 'h2', method: 'GET', path: '/', expect: { status: 200, body: 'Hello World' } },
    {
      name: 'GET article h2',
      app: 'article',
      protocol: 'h2',
      method: 'GET',
      path: '/article/1',
      expect: { status: 200, body: ARTICLE_XML, headers: { 'content-type': 'application/xml; charset=utf-8', vary: VARY } },
    },
  ],
};
