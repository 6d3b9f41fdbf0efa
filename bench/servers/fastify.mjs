/** @module Fastify 5 peer, logger off: GET /, POST /echo (built-in JSON parser), then the GitHub table. */
import Fastify from 'fastify';
import { HOST, announce, port, routes } from '../lib/routes.mjs';

const app = Fastify({ logger: false });
app.get('/', async () => 'Hello World');
app.post('/echo', async (req) => req.body);
for (const { method, path } of routes) {
  app.route({ method, url: path, handler: async (req) => req.params });
}

await app.listen({ port: port(), host: HOST });
announce(app.server);
