/** @module Express 4 peer (the baseline): GET /, POST /echo with express.json(), then the GitHub table. */
import express from 'express';
import { HOST, announce, port, routes } from '../lib/routes.mjs';

const app = express();
app.get('/', (req, res) => res.send('Hello World'));
app.post('/echo', express.json(), (req, res) => res.json(req.body));
for (const { method, path } of routes) {
  app[method.toLowerCase()](path, (req, res) => res.json(req.params));
}

const server = app.listen(port(), HOST, () => announce(server));
