/**
 * @module roa/express peer: the Express 4 server (servers/express.mjs) line for line, with
 * `express` imported from roa's build (../../dist/express, or $ROA_DIST's sibling) instead of express@4.
 */
import { pathToFileURL } from 'node:url';
import { HOST, announce, port, routes } from '../lib/routes.mjs';

const { default: express } = await import(
  process.env.ROA_DIST ? pathToFileURL(process.env.ROA_DIST.replace(/index\.js$/, 'express/index.js')).href : '../../dist/express/index.js'
);

const app = express();
app.get('/', (req, res) => res.send('Hello World'));
app.post('/echo', express.json(), (req, res) => res.json(req.body));
for (const { method, path } of routes) {
  app[method.toLowerCase()](path, (req, res) => res.json(req.params));
}

const server = app.listen(port(), HOST, () => announce(server));
