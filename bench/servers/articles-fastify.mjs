/**
 * @module Fastify 5 peer of the roa article service: GET /article/:key, POST /articles, on the shared handler
 * and store. With BENCH_TLS_CERT/BENCH_TLS_KEY it serves HTTPS, or with BENCH_HTTP2=1 HTTP/2 (lib/tls-server.mjs).
 */
import Fastify from 'fastify';
import { HOST, announce, port } from '../lib/routes.mjs';
import { onStop, openSeededStore } from '../lib/fixture.mjs';
import { articleHandlers } from '../lib/article-peer.mjs';
import { countNegotiated, fastifyTlsOptions, tlsFromEnv } from '../lib/tls-server.mjs';

const seeded = await openSeededStore();
const articles = articleHandlers(seeded.store);
const tls = tlsFromEnv();
const app = Fastify({ logger: false, ...fastifyTlsOptions(tls) });
if (tls) countNegotiated(app.server);
// Raw bytes for the codec's own parser, as roa does (its limit: 100 KiB).
app.addContentTypeParser(['application/xml', 'text/xml', 'application/json'], { parseAs: 'buffer', bodyLimit: 100 * 1024 }, (req, body, done) => done(null, body));

function send(reply, r) {
  reply.code(r.status).headers(r.headers);
  return reply.send(r.body);
}
app.get('/article/:key', async (req, reply) => send(reply, await articles.get(req.params.key, req.headers)));
app.post('/articles', async (req, reply) => send(reply, await articles.post(req.body ?? Buffer.alloc(0), req.headers)));

onStop(async () => {
  await app.close();
  await seeded.dispose();
});
await app.listen({ port: port(), host: HOST });
announce(app.server);
