/**
 * @module Raw node:http serving one fixed article body with the headers of an embedded-gateway hit: the ceiling
 * a cache hit in a Node process can approach (no lookup, no routing, no per-request header building).
 */
import http from 'node:http';
import { HOST, announce, port } from '../lib/routes.mjs';
import { ARTICLE } from '../lib/fixture.mjs';

const BODY = Buffer.from(
  `<article><title>${ARTICLE.title}</title><price currency="${ARTICLE.price.currency}">${ARTICLE.price.amount}</price></article>`,
);
const LAST_MODIFIED = new Date().toUTCString();
// The fields (and order) of roa's gateway on a hit, flat as writeHead takes them; Age stays 0 here.
const HEADERS = [
  'Content-Type', 'application/xml; charset=utf-8',
  'ETag', '"pmzWCtcG12p0QMXuApV3Q6-x"',
  'Last-Modified', LAST_MODIFIED,
  'Vary', 'Accept',
  'Cache-Control', 'public, max-age=60, s-maxage=60',
  'xkey', 'article-1',
  'Surrogate-Key', 'article-1',
  'Content-Length', String(BODY.length),
  'Via', '1.1 roa',
  'X-Cache', 'HIT',
  'Cache-Status', 'roa; hit',
  'Age', '0',
];

const server = http.createServer((req, res) => {
  res.writeHead(200, HEADERS);
  res.end(BODY);
});
server.keepAliveTimeout = 5000;
server.listen(port(), HOST, () => announce(server));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
