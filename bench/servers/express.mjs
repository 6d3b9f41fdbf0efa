/**
 * @module Express 4 peer (the baseline): GET /, POST /echo with express.json(), then the GitHub table.
 * With BENCH_EXPRESS=roa the same code runs on roa/express (roa's build: ../../dist/express, or
 * $ROA_DIST's sibling) instead of express@4: the routing scenario's `roa-express` server (issue 30).
 */
import { pathToFileURL } from 'node:url';
import { HOST, announce, port, routes } from '../lib/routes.mjs';

const { default: express } = process.env.BENCH_EXPRESS === 'roa'
  ? await import(process.env.ROA_DIST ? pathToFileURL(process.env.ROA_DIST.replace(/index\.js$/, 'express/index.js')).href : '../../dist/express/index.js')
  : await import('express');

const app = express();
app.get('/', (req, res) => res.send('Hello World'));
app.post('/echo', express.json(), (req, res) => res.json(req.body));
for (const { method, path } of routes) {
  app[method.toLowerCase()](path, (req, res) => res.json(req.params));
}

const server = app.listen(port(), HOST, () => announce(server));
