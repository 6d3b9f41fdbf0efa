/**
 * @module test/app/app
 * createApp: settings, listen(), plain node servers, mounting, and what the default handler shows.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { HttpError } from '../../src/errors/http-error.js';
import type { Request, NextFunction } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { json, request, withServer } from '../helpers/server.js';

// The 500s below are deliberate: keep the final handler from logging them.
process.env.NODE_ENV = 'test';

const secretError = (): never => {
  throw new Error('db password is hunter2');
};

describe('createApp', () => {
  it('reads the env setting with app.get("env")', () => {
    assert.equal(createApp({ env: 'production' }).get('env'), 'production');
    assert.equal(createApp({ env: 'development' }).get('env'), 'development');
  });

  it('defaults env to NODE_ENV', () => {
    assert.equal(createApp().get('env'), process.env.NODE_ENV);
  });

  it('stores and reads settings with set/get/enable/disable', () => {
    const app = createApp();
    app.set('title', 'roa');
    app.enable('trust thing');
    assert.equal(app.get('title'), 'roa');
    assert.equal(app.enabled('trust thing'), true);
    app.disable('trust thing');
    assert.equal(app.disabled('trust thing'), true);
  });

  it('routes with app.get(path, handler) while app.get(name) reads a setting', async () => {
    const app = createApp();
    app.get('/env', (_req: Request, res: Response) => res.json({ ok: true }));
    await withServer(app, async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/env')), { ok: true });
    });
  });

  it('honours strict routing enabled before the routes', async () => {
    const app = createApp();
    app.enable('strict routing');
    app.get('/x', (_req: Request, res: Response) => res.json({}));
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/x')).status, 200);
      assert.equal((await request(base, 'GET', '/x/')).status, 404);
    });
  });

  it('honours case sensitive routing enabled before the routes', async () => {
    const app = createApp();
    app.set('case sensitive routing', true);
    app.get('/X', (_req: Request, res: Response) => res.json({}));
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/X')).status, 200);
      assert.equal((await request(base, 'GET', '/x')).status, 404);
    });
  });

  it('never sends an error message or stack in the default 500 in production', async () => {
    const app = createApp({ env: 'production' });
    app.get('/x', secretError);
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/x');
      assert.equal(res.status, 500);
      assert.doesNotMatch(res.text, /hunter2|at .*\.ts:\d+|secretError/);
    });
  });

  it('never sends a 5xx HttpError message in production', async () => {
    const app = createApp({ env: 'production' });
    app.get('/x', () => {
      throw new HttpError(503, 'replica db-7 at 10.0.0.7 is down');
    });
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/x');
      assert.equal(res.status, 503);
      assert.doesNotMatch(res.text, /10\.0\.0\.7|db-7/);
    });
  });

  it('never sends a stack in development either', async () => {
    const app = createApp({ env: 'development' });
    app.get('/x', secretError);
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/x');
      assert.equal(res.status, 500);
      assert.doesNotMatch(res.text, /at .*\.ts:\d+|secretError/);
    });
  });

  it('shows a 4xx error message to the client', async () => {
    const app = createApp({ env: 'production' });
    app.get('/x', () => {
      throw Object.assign(new Error('title is required'), { status: 422 });
    });
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/x');
      assert.equal(res.status, 422);
      assert.equal((json(res) as { detail: string }).detail, 'title is required');
    });
  });

  it('sends the headers an HttpError carries', async () => {
    const app = createApp();
    app.put('/x', (_req: Request, res: Response) => res.end());
    app.get('/x', () => {
      throw new HttpError(405, 'use PUT', { headers: { Allow: 'PUT' } });
    });
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/x');
      assert.equal(res.status, 405);
      assert.equal(res.headers.allow, 'PUT');
    });
  });

  it('works as the listener of a plain http.createServer(app)', async () => {
    const app = createApp();
    app.get('/hello/:name', (req: Request, res: Response) => res.status(201).json({ name: req.params.name, q: req.query, path: req.path }));
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/hello/ann?x[y]=1');
      assert.equal(res.status, 201);
      assert.deepEqual(json(res), { name: 'ann', q: { x: { y: '1' } }, path: '/hello/ann' });
    }, { plainNode: true });
  });

  it('answers 404 as a plain listener too', async () => {
    await withServer(createApp(), async (base) => {
      assert.equal((await request(base, 'GET', '/none')).status, 404);
    }, { plainNode: true });
  });

  it('returns the listening server from app.listen(0, host, cb)', async () => {
    const app = createApp();
    app.get('/', (_req: Request, res: Response) => res.send('up'));
    let server: Server | undefined;
    await new Promise<void>((resolve) => {
      server = app.listen(0, '127.0.0.1', resolve);
    });
    try {
      assert.ok(server instanceof http.Server);
      const { port } = server!.address() as AddressInfo;
      assert.equal((await request(`http://127.0.0.1:${port}`, 'GET', '/')).text, 'up');
    } finally {
      await new Promise((r) => server!.close(r));
    }
  });

  it('calls the listen callback when given as the second argument', async () => {
    const app = createApp();
    let server: Server | undefined;
    await new Promise<void>((resolve) => {
      server = app.listen(0, resolve);
    });
    assert.equal(server!.listening, true);
    await new Promise((r) => server!.close(r));
  });

  it('hands what a mounted app does not handle back to the parent', async () => {
    const parent = createApp();
    const child = createApp();
    child.get('/x', (req: Request, res: Response) => res.json({ baseUrl: req.baseUrl, originalUrl: req.originalUrl }));
    parent.use('/child', child);
    parent.get('/child/y', (_req: Request, res: Response) => res.json({ parent: true }));
    await withServer(parent, async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/child/x')), { baseUrl: '/child', originalUrl: '/child/x' });
      assert.deepEqual(json(await request(base, 'GET', '/child/y')), { parent: true });
    });
  });

  it('passes errors from a mounted app to the parent error handler', async () => {
    const parent = createApp();
    const child = createApp();
    child.get('/x', secretError);
    parent.use('/child', child);
    parent.use((err: Error, _req: Request, res: Response, _next: NextFunction) => res.status(500).json({ parentSaw: err.message }));
    await withServer(parent, async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/child/x')), { parentSaw: 'db password is hunter2' });
    });
  });

  it('ends the connection when a handler fails after sending headers', async () => {
    const app = createApp();
    app.get('/x', (_req: Request, res: Response) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
      throw new Error('late');
    });
    await withServer(app, async (base) => {
      await assert.rejects(request(base, 'GET', '/x'));
      // The server is still up.
      assert.equal((await request(base, 'GET', '/none')).status, 404);
    });
  });
});
