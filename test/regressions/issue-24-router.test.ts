/**
 * @module test/regressions/issue-24-router
 * Issue 24 item 5, defects in the Express-compatible core: routing after a layer changed
 * `req.method` or `req.url`, errorHandler() following the app's env, repeated query and form
 * values beyond 20, and positional params under mergeParams.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createApp } from '../../src/app.js';
import type { Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { errorHandler } from '../../src/middleware/error-handler.js';
import { methodOverride } from '../../src/middleware/method-override.js';
import { urlencoded } from '../../src/middleware/urlencoded.js';
import { Router } from '../../src/router/router.js';
import type { NextFunction } from '../../src/router/handler.js';
import { request, withServer } from '../helpers/server.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const said = (tag: string) => (req: Request, res: Response) => res.json({ tag, method: req.method, params: req.params });

describe('issue 24: routing honours a method changed by an earlier layer', () => {
  it('runs a PUT route defined before the POST route for a form POST with _method=PUT', async () => {
    const app = createApp({ env: 'test' });
    app.use(urlencoded(), methodOverride());
    app.put('/user/:id', said('put'));
    app.post('/user/:id', said('post'));
    await withServer(app, async (base) => {
      const res = await request(base, 'POST', '/user/9', { headers: FORM, body: '_method=PUT' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(JSON.parse(res.text), { tag: 'put', method: 'PUT', params: { id: '9' } });
    });
  });

  it('runs the PUT route in a mounted router, whichever order the routes were defined in', async () => {
    for (const putFirst of [true, false]) {
      const app = createApp({ env: 'test' });
      const users = Router();
      if (putFirst) users.put('/:id', said('put'));
      users.post('/:id', said('post'));
      if (!putFirst) users.put('/:id', said('put'));
      app.use(urlencoded(), methodOverride());
      app.use('/user', users);
      await withServer(app, async (base) => {
        const res = await request(base, 'POST', '/user/9', { headers: FORM, body: '_method=PUT' });
        assert.deepEqual(JSON.parse(res.text), { tag: 'put', method: 'PUT', params: { id: '9' } }, `putFirst=${putFirst}`);
      });
    }
  });

  it('re-routes when a middleware inside a mounted router changes the method', async () => {
    const app = createApp({ env: 'test' });
    const inner = Router();
    inner.delete('/:id', said('delete'));
    inner.use((req: Request, _res: Response, next: NextFunction) => {
      req.method = 'DELETE';
      next();
    });
    inner.get('/:id', said('get'));
    inner.delete('/:id', said('delete-after'));
    app.use('/things', inner);
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/things/3');
      assert.deepEqual(JSON.parse(res.text), { tag: 'delete-after', method: 'DELETE', params: { id: '3' } });
    });
  });

  it('re-routes when a route handler changes the method and passes on (indexed-only table)', async () => {
    const app = createApp({ env: 'test' });
    app.get('/a/:x', (req: Request, _res: Response, next: NextFunction) => {
      req.method = 'PATCH';
      next();
    });
    app.get('/a/:x', said('get-again'));
    app.patch('/a/:x', said('patch'));
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/a/1');
      assert.deepEqual(JSON.parse(res.text), { tag: 'patch', method: 'PATCH', params: { x: '1' } });
    });
  });
});

describe('issue 24: errorHandler() follows the app env', () => {
  const boom = (): never => {
    throw new Error('secret internals at /srv/app.js:12');
  };

  it('sends no stack or internal message when the app is created with env production', async () => {
    const saved = process.env.NODE_ENV;
    process.env.NODE_ENV = 'development';
    try {
      const app = createApp({ env: 'production' });
      app.get('/boom', boom);
      app.use(errorHandler({ log: false }));
      await withServer(app, async (base) => {
        for (const accept of ['application/json', 'text/html', 'text/plain']) {
          const res = await request(base, 'GET', '/boom', { headers: { accept } });
          assert.equal(res.status, 500);
          assert.doesNotMatch(res.text, /secret internals|at .*\.ts:\d+|\/srv\/app/, accept);
        }
      });
    } finally {
      process.env.NODE_ENV = saved;
    }
  });

  it('follows app.set("env", ...) made after the handler was mounted', async () => {
    const saved = process.env.NODE_ENV;
    process.env.NODE_ENV = 'development';
    try {
      const app = createApp({ env: 'development' });
      app.get('/boom', boom);
      app.use(errorHandler({ log: false }));
      app.set('env', 'production');
      await withServer(app, async (base) => {
        const res = await request(base, 'GET', '/boom', { headers: { accept: 'application/json' } });
        assert.deepEqual(JSON.parse(res.text), { error: { message: 'Internal Server Error' } });
      });
    } finally {
      process.env.NODE_ENV = saved;
    }
  });

  it('follows the env of the app it runs in when apps are mounted in one another', async () => {
    const saved = process.env.NODE_ENV;
    process.env.NODE_ENV = 'development';
    try {
      const outer = createApp({ env: 'development' });
      const inner = createApp({ env: 'production' });
      inner.get('/boom', boom);
      inner.use(errorHandler({ log: false }));
      inner.get('/pass', (_req: Request, _res: Response, next: NextFunction) => next());
      outer.use('/inner', inner);
      outer.get('/inner/pass', boom);
      outer.use(errorHandler({ log: false }));
      await withServer(outer, async (base) => {
        const hidden = await request(base, 'GET', '/inner/boom', { headers: { accept: 'application/json' } });
        assert.deepEqual(JSON.parse(hidden.text), { error: { message: 'Internal Server Error' } });
        // Back in the outer (development) app once the inner one passed the request on.
        const shown = await request(base, 'GET', '/inner/pass', { headers: { accept: 'application/json' } });
        assert.match(JSON.parse(shown.text).error.stack as string, /secret internals/);
      });
    } finally {
      process.env.NODE_ENV = saved;
    }
  });

  it('still shows the stack in a development app, and NODE_ENV=production still hides it', async () => {
    const saved = process.env.NODE_ENV;
    try {
      process.env.NODE_ENV = 'development';
      const dev = createApp({ env: 'development' });
      dev.get('/boom', boom);
      dev.use(errorHandler({ log: false }));
      await withServer(dev, async (base) => {
        const res = await request(base, 'GET', '/boom', { headers: { accept: 'application/json' } });
        assert.match(JSON.parse(res.text).error.stack as string, /secret internals/);
      });
      process.env.NODE_ENV = 'production';
      const prod = createApp({ env: 'development' });
      prod.get('/boom', boom);
      prod.use(errorHandler({ log: false }));
      await withServer(prod, async (base) => {
        const res = await request(base, 'GET', '/boom', { headers: { accept: 'application/json' } });
        assert.deepEqual(JSON.parse(res.text), { error: { message: 'Internal Server Error' } });
      });
    } finally {
      process.env.NODE_ENV = saved;
    }
  });
});

describe('issue 24: repeated values and positional params as in Express 4', () => {
  const ids = Array.from({ length: 25 }, (_, i) => `ids=${i}`).join('&');
  const want = Array.from({ length: 25 }, (_, i) => String(i));

  it('keeps 25 repeated query values as an array', async () => {
    const app = createApp({ env: 'test' });
    app.get('/q', (req: Request, res: Response) => res.json(req.query));
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', `/q?${ids}`);
      assert.deepEqual(JSON.parse(res.text), { ids: want });
    });
  });

  it('keeps 25 repeated form values as an array', async () => {
    const app = createApp({ env: 'test' });
    app.use(urlencoded());
    app.post('/f', (req: Request, res: Response) => res.json(req.body));
    await withServer(app, async (base) => {
      const res = await request(base, 'POST', '/f', { headers: FORM, body: ids });
      assert.deepEqual(JSON.parse(res.text), { ids: want });
    });
  });

  it('numbers a mergeParams child router\'s positional params after the parent\'s', async () => {
    const app = createApp({ env: 'test' });
    const child = Router({ mergeParams: true });
    child.get(/^\/(\w+)$/, (req: Request, res: Response) => res.json(req.params));
    app.use(/^\/rx\/(\d+)/, child);
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/rx/12/abc');
      assert.deepEqual(JSON.parse(res.text), { 0: '12', 1: 'abc' });
    });
  });
});
