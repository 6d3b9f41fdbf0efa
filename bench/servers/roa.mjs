/** @module roa peer (the subject): Express-4-shaped API from the built package in ../../dist. */
import { createApp, json } from '../../dist/index.js';
import { HOST, announce, port, routes } from '../lib/routes.mjs';

const app = createApp();
app.get('/', (req, res) => res.send('Hello World'));
app.post('/echo', json(), (req, res) => res.json(req.body));
for (const { method, path } of routes) {
  app[method.toLowerCase()](path, (req, res) => res.json(req.params));
}

const server = app.listen(port(), HOST, () => announce(server));
