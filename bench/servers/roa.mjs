/**
 * @module roa peer (the subject): Express-4-shaped API from the built package in ../../dist (or $ROA_DIST).
 * With BENCH_TLS_CERT/BENCH_TLS_KEY (lib/tls-server.mjs) it serves `app.createSecureServer`: HTTP/2 by ALPN,
 * HTTP/1.1 otherwise, on one listener.
 */
import { pathToFileURL } from 'node:url';
import { HOST, announce, port, routes } from '../lib/routes.mjs';
import { countNegotiated, tlsFromEnv } from '../lib/tls-server.mjs';

// ROA_DIST=/path/to/other/dist/index.js benchmarks another build (e.g. main's) with the same server.
const { createApp, json } = await import(
  process.env.ROA_DIST ? pathToFileURL(process.env.ROA_DIST).href : '../../dist/index.js'
);

const app = createApp();
app.get('/', (req, res) => res.send('Hello World'));
app.post('/echo', json(), (req, res) => res.json(req.body));
for (const { method, path } of routes) {
  app[method.toLowerCase()](path, (req, res) => res.json(req.params));
}

const tls = tlsFromEnv();
if (tls) {
  const server = app.createSecureServer({ cert: tls.cert, key: tls.key });
  countNegotiated(server);
  server.listen(port(), HOST, () => announce(server));
} else {
  const server = app.listen(port(), HOST, () => announce(server));
}
