/** @module roa peer (the subject): Express-4-shaped API from the built package in ../../dist (or $ROA_DIST). */
import { pathToFileURL } from 'node:url';
import { HOST, announce, port, routes } from '../lib/routes.mjs';

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

const server = app.listen(port(), HOST, () => announce(server));
