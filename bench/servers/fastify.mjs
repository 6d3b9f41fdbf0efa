/**
 * @module Fastify 5 peer, logger off: GET /, POST /echo (built-in JSON parser), then the GitHub table. With
 * BENCH_TLS_CERT/BENCH_TLS_KEY it serves HTTPS, or with BENCH_HTTP2=1 HTTP/2 (lib/tls-server.mjs).
 */
import Fastify from 'fastify';
import { HOST, announce, port, routes } from '../lib/routes.mjs';
import { countNegotiated, fastifyTlsOptions, tlsFromEnv } from '../lib/tls-server.mjs';

const tls = tlsFromEnv();
const app = Fastify({ logger: false, ...fastifyTlsOptions(tls) });
if (tls) countNegotiated(app.server);
app.get('/', async () => 'Hello World');
app.post('/echo', async (req) => req.body);
for (const { method, path } of routes) {
  app.route({ method, url: path, handler: async (req) => req.params });
}

await app.listen({ port: port(), host: HOST });
announce(app.server);
