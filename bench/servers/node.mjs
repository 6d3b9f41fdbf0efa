/** @module Baseline: raw node:http with a hand-written switch for the benchmarked endpoints only. */
import { createServer } from 'node:http';
import { HOST, announce, port } from '../lib/routes.mjs';

function send(res, status, type, body) {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendJson(res, status, value) {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

function echo(req, res) {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return sendJson(res, 400, { error: 'bad json' });
    }
    sendJson(res, 200, body);
  });
}

const server = createServer((req, res) => {
  const q = req.url.indexOf('?');
  const path = q === -1 ? req.url : req.url.slice(0, q);
  switch (path) {
    case '/':
      if (req.method === 'GET') return send(res, 200, 'text/plain; charset=utf-8', 'Hello World');
      break;
    case '/echo':
      if (req.method === 'POST') return echo(req, res);
      break;
    case '/emojis':
      if (req.method === 'GET') return sendJson(res, 200, {});
      break;
    default: {
      // GET /repos/:owner/:repo/issues/:number -> ['', 'repos', owner, repo, 'issues', number]
      const p = path.split('/');
      if (req.method === 'GET' && p.length === 6 && p[1] === 'repos' && p[4] === 'issues' && p[2] && p[3] && p[5]) {
        return sendJson(res, 200, { owner: p[2], repo: p[3], number: p[5] });
      }
    }
  }
  sendJson(res, 404, { error: 'not found' });
});

server.listen(port(), HOST, () => announce(server));
