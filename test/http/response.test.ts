/**
 * @module test/http/response
 * The Response senders over real HTTP: status, headers, send/json/sendStatus, location, format.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createApp } from '../../src/app.js';
import type { NextFunction, Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { request, withServer, type SimpleResponse } from '../helpers/server.js';

/** Serves `fn` on every path and fires one request at it. */
async function answer(fn: (req: Request, res: Response, next: NextFunction) => void, method = 'GET', headers?: Record<string, string>): Promise<SimpleResponse> {
  const app = createApp({ env: 'test' });
  app.all('*', fn);
  app.use((err: { status?: number; message: string }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ chain: err.message, status: err.status });
  });
  return withServer(app, (base) => request(base, method, '/', { headers }));
}

describe('Response', () => {
  it('sets the status with res.status', async () => {
    assert.equal((await answer((_req, res) => res.status(418).end())).status, 418);
  });

  it('sets one header with res.set and reads it back with res.get', async () => {
    const res = await answer((_req, r) => r.set('X-A', 'one').set('X-Read', String(r.get('x-a'))).end());
    assert.equal(res.headers['x-a'], 'one');
    assert.equal(res.headers['x-read'], 'one');
  });

  it('sets several headers from an object', async () => {
    const res = await answer((_req, r) => r.set({ 'X-A': '1', 'X-B': 2 }).end());
    assert.equal(res.headers['x-a'], '1');
    assert.equal(res.headers['x-b'], '2');
  });

  it('resolves a short Content-Type name given to res.set', async () => {
    const res = await answer((_req, r) => r.set('Content-Type', 'json').end());
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  });

  it('sets the Content-Type from a short name with res.type', async () => {
    assert.equal((await answer((_req, r) => r.type('html').end())).headers['content-type'], 'text/html; charset=utf-8');
    assert.equal((await answer((_req, r) => r.type('.png').end())).headers['content-type'], 'image/png');
    assert.equal((await answer((_req, r) => r.type('text/csv').end())).headers['content-type'], 'text/csv; charset=utf-8');
  });

  it('appends header values with res.append', async () => {
    const res = await answer((_req, r) => r.append('Link', '<a>').append('Link', '<b>').end());
    assert.equal(res.headers.link, '<a>, <b>');
  });

  it('sends a string as text/html with its byte length', async () => {
    const res = await answer((_req, r) => r.send('héllo'));
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['content-length'], '6');
    assert.equal(res.text, 'héllo');
  });

  it('keeps a Content-Type set before res.send(string)', async () => {
    const res = await answer((_req, r) => r.type('text').send('plain'));
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  });

  it('sends a Buffer as application/octet-stream', async () => {
    const res = await answer((_req, r) => r.send(Buffer.from([1, 2, 3])));
    assert.equal(res.headers['content-type'], 'application/octet-stream');
    assert.equal(res.headers['content-length'], '3');
  });

  it('sends an object as JSON', async () => {
    const res = await answer((_req, r) => r.send({ a: [1, 'x'] }));
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(JSON.parse(res.text), { a: [1, 'x'] });
  });

  it('sends an empty body for res.send() with no argument', async () => {
    const res = await answer((_req, r) => r.send());
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
  });

  it('sends JSON with res.json, including null', async () => {
    const res = await answer((_req, r) => r.json(null));
    assert.equal(res.text, 'null');
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  });

  it('sends the reason phrase with res.sendStatus', async () => {
    const res = await answer((_req, r) => r.sendStatus(404));
    assert.equal(res.status, 404);
    assert.equal(res.text, 'Not Found');
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
  });

  it('drops the body and Content-Type for 204', async () => {
    const res = await answer((_req, r) => r.status(204).send('ignored'));
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assert.equal(res.headers['content-type'], undefined);
  });

  it('sends headers but no body for HEAD', async () => {
    const res = await answer((_req, r) => r.json({ a: 1 }), 'HEAD');
    assert.equal(res.text, '');
    assert.equal(res.headers['content-length'], '7');
  });

  it('encodes a Location without double-encoding escapes', async () => {
    const res = await answer((_req, r) => r.location('/a b/caf%C3%A9?x=ü').status(302).end());
    assert.equal(res.headers.location, '/a%20b/caf%C3%A9?x=%C3%BC');
  });

  it('runs the res.format handler for the preferred type and sets Vary: Accept', async () => {
    const res = await answer((_req, r) => {
      r.format({ html: () => r.send('<p>'), json: () => r.json({ ok: 1 }) });
    }, 'GET', { Accept: 'application/json' });
    assert.equal(res.text, '{"ok":1}');
    assert.equal(res.headers.vary, 'Accept');
    assert.match(String(res.headers['content-type']), /^application\/json/);
  });

  it('takes the first res.format handler when there is no Accept', async () => {
    const res = await answer((_req, r) => {
      r.format({ 'text/plain': () => r.send('plain'), json: () => r.json({}) });
    });
    assert.equal(res.text, 'plain');
    assert.match(String(res.headers['content-type']), /^text\/plain/);
  });

  it('runs the default res.format handler when nothing else is acceptable', async () => {
    const res = await answer((_req, r) => {
      r.format({ json: () => r.json({}), default: () => r.status(200).send('fallback') });
    }, 'GET', { Accept: 'image/png' });
    assert.equal(res.text, 'fallback');
  });

  it('sends a 406 from res.format to the error chain', async () => {
    const res = await answer((_req, r) => {
      r.format({ json: () => r.json({}) });
    }, 'GET', { Accept: 'image/png' });
    assert.equal(res.status, 406);
    assert.deepEqual(JSON.parse(res.text), { chain: 'Not Acceptable', status: 406 });
    assert.equal(res.headers.vary, 'Accept');
  });

  it('adds to an existing Vary once', async () => {
    const res = await answer((_req, r) => {
      r.vary('Origin').vary('accept');
      r.format({ json: () => r.json({}) });
    });
    assert.equal(res.headers.vary, 'Origin, accept');
  });

  it('keeps res.locals per response', async () => {
    const app = createApp();
    let n = 0;
    app.use((_req: Request, res: Response, next: NextFunction) => {
      res.locals.n = ++n;
      next();
    });
    app.get('/', (_req: Request, res: Response) => res.json(res.locals));
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/')).text, '{"n":1}');
      assert.equal((await request(base, 'GET', '/')).text, '{"n":2}');
    });
  });
});
