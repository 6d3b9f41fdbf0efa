/** @module Express 4 peer of the roa article service: GET /article/:key, POST /articles, on the shared handler and store. */
import express from 'express';
import { HOST, announce, port } from '../lib/routes.mjs';
import { onStop, openSeededStore } from '../lib/fixture.mjs';
import { articleHandlers } from '../lib/article-peer.mjs';

const seeded = await openSeededStore();
const articles = articleHandlers(seeded.store);
const app = express();
// Raw bytes for the codec's own parser, as roa does (its limit: 100 KiB).
const raw = express.raw({ type: ['application/xml', 'text/xml', 'application/json'], limit: 100 * 1024 });

function send(res, r) {
  res.status(r.status).set(r.headers);
  res.send(r.body);
}
app.get('/article/:key', (req, res, next) => articles.get(req.params.key, req.headers).then((r) => send(res, r), next));
app.post('/articles', raw, (req, res, next) =>
  articles.post(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.headers).then((r) => send(res, r), next));

const server = app.listen(port(), HOST, () => announce(server));
onStop(async () => {
  await new Promise((r) => server.close(r));
  await seeded.dispose();
});
