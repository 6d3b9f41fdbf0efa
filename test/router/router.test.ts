/**
 * @module test/router/router
 * Router behaviour over real HTTP: order, next('route'|'router'), errors, HEAD, OPTIONS, mounts.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createApp, type App } from '../../src/app.js';
import { Router } from '../../src/router/router.js';
import type { Request, NextFunction } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { json, request, withServer } from '../helpers/server.js';

process.env.NODE_ENV = 'test';

type H = (req: Request, res: Response, next: NextFunction) => unknown;

const trail = (res: Response): string[] => ((res.locals.trail ??= []) as string[]);
const step = (tag: string, arg?: string): H => (_req, res, next) => {
  trail(res).push(tag);
  next(arg);
};
const finish = (tag: string): H => (_req: Request, res: Response) => {
  trail(res).push(tag);
  res.json({ trail: trail(res) });
};

async function get(app: App, path: string, method = 'GET'): Promise<{ status: number; body: unknown; headers: Record<string, unknown>; text: string }> {
  return withServer(app, async (base) => {
    const res = await request(base, method, path);
    const type = String(res.headers['content-type'] ?? '');
    return { status: res.status, headers: res.headers, text: res.text, body: type.includes('json') && res.text ? JSON.parse(res.text) : undefined };
  });
}

describe('Router', () => {
  it('runs matching layers in definition order', async () => {
    const app = createApp();
    app.use(step('mw'));
    app.get('/a', step('first'));
    app.get('/:x', step('second'));
    app.get('/a', finish('third'));
    assert.deepEqual((await get(app, '/a')).body, { trail: ['mw', 'first', 'second', 'third'] });
  });

  it('runs an all() route declared before a method route', async () => {
    const app = createApp();
    app.all('/x', step('all'));
    app.get('/x', finish('get'));
    assert.deepEqual((await get(app, '/x')).body, { trail: ['all', 'get'] });
  });

  it('skips the rest of a route on next("route")', async () => {
    const app = createApp();
    app.get('/x', step('one', 'route'), step('skipped'));
    app.get('/x', finish('two'));
    assert.deepEqual((await get(app, '/x')).body, { trail: ['one', 'two'] });
  });

  it('leaves a mounted router on next("router")', async () => {
    const app = createApp();
    const r = Router();
    r.get('/x', step('in', 'router'), step('skipped'));
    r.get('/x', step('skipped-too'));
    app.use('/r', r);
    app.get('/r/x', finish('parent'));
    assert.deepEqual((await get(app, '/r/x')).body, { trail: ['in', 'parent'] });
  });

  it('sends a sync throw to the error chain', async () => {
    const app = createApp();
    app.get('/x', () => {
      throw new Error('sync');
    });
    app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => res.status(500).json({ caught: err.message }));
    assert.deepEqual((await get(app, '/x')).body, { caught: 'sync' });
  });

  it('sends an async rejection to the error chain', async () => {
    const app = createApp();
    app.get('/x', async () => {
      await new Promise((r) => setImmediate(r));
      throw new Error('async');
    });
    app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => res.status(500).json({ caught: err.message }));
    assert.deepEqual((await get(app, '/x')).body, { caught: 'async' });
  });

  it('turns a rejection with no reason into an error', async () => {
    const app = createApp();
    app.get('/x', () => Promise.reject(undefined));
    app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => res.json({ isError: err instanceof Error }));
    assert.deepEqual((await get(app, '/x')).body, { isError: true });
  });

  it('runs error handlers in registration order: one passes on, the next renders', async () => {
    const app = createApp();
    app.get('/x', (_req: Request, _res: Response, next: NextFunction) => next(new Error('e')));
    app.use((err: Error, _req: Request, res: Response, next: NextFunction) => {
      trail(res).push('log');
      next(err);
    });
    app.use(step('normal-skipped'));
    app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => {
      trail(res).push('render');
      res.status(503).json({ trail: trail(res), message: err.message });
    });
    const res = await get(app, '/x');
    assert.equal(res.status, 503);
    assert.deepEqual(res.body, { trail: ['log', 'render'], message: 'e' });
  });

  it('skips routes while an error is pending', async () => {
    const app = createApp();
    app.use((_req: Request, _res: Response, next: NextFunction) => next(new Error('early')));
    app.get('/x', finish('route'));
    app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => res.status(500).json({ message: err.message }));
    assert.deepEqual((await get(app, '/x')).body, { message: 'early' });
  });

  it('answers an unclaimed error with 500', async () => {
    const app = createApp();
    app.get('/x', () => {
      throw new Error('boom');
    });
    assert.equal((await get(app, '/x')).status, 500);
  });

  it('answers an unclaimed error with its 4xx status', async () => {
    const app = createApp();
    app.get('/x', () => {
      throw Object.assign(new Error('gone'), { status: 410 });
    });
    assert.equal((await get(app, '/x')).status, 410);
  });

  it('answers an unclaimed error with its statusCode', async () => {
    const app = createApp();
    app.get('/x', (_req: Request, _res: Response, next: NextFunction) => next(Object.assign(new Error('busy'), { statusCode: 503 })));
    assert.equal((await get(app, '/x')).status, 503);
  });

  it('answers 500 for an error status outside 4xx/5xx', async () => {
    const app = createApp();
    app.get('/x', (_req: Request, _res: Response, next: NextFunction) => next(Object.assign(new Error('odd'), { status: 302 })));
    assert.equal((await get(app, '/x')).status, 500);
  });

  it('answers 404 with a problem document for an unmatched path', async () => {
    const res = await get(createApp(), '/nothing');
    assert.equal(res.status, 404);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.equal((res.body as { status: number }).status, 404);
  });

  it('returns 404 after DELETE on a GET-only route', async () => {
    const app = createApp();
    app.get('/x', finish('get'));
    assert.equal((await get(app, '/x', 'DELETE')).status, 404);
  });

  it('answers HEAD from the GET route with the same headers and no body', async () => {
    const app = createApp();
    app.get('/x', (_req: Request, res: Response) => res.set('X-Probe', '1').json({ a: 1 }));
    const head = await get(app, '/x', 'HEAD');
    const full = await get(app, '/x');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers['content-length'], full.headers['content-length']);
    assert.equal(head.headers['content-type'], full.headers['content-type']);
    assert.equal(head.headers['x-probe'], '1');
  });

  it('prefers an explicit HEAD route over GET', async () => {
    const app = createApp();
    app.head('/x', (_req: Request, res: Response) => res.set('X-Which', 'head').end());
    app.get('/x', (_req: Request, res: Response) => res.set('X-Which', 'get').end());
    assert.equal((await get(app, '/x', 'HEAD')).headers['x-which'], 'head');
  });

  it('answers OPTIONS with Allow listing the routed methods', async () => {
    const app = createApp();
    app.get('/x', finish('g'));
    app.put('/x', finish('p'));
    app.delete('/:any', finish('d'));
    const res = await get(app, '/x', 'OPTIONS');
    assert.equal(res.status, 200);
    assert.equal(res.headers.allow, 'GET,HEAD,PUT,DELETE');
    assert.equal(res.text, 'GET,HEAD,PUT,DELETE');
  });

  it('answers OPTIONS on an unrouted path with 404', async () => {
    const app = createApp();
    app.get('/x', finish('g'));
    assert.equal((await get(app, '/y', 'OPTIONS')).status, 404);
  });

  it('chains methods on app.route(path)', async () => {
    const app = createApp();
    app.route('/r').get(finish('get')).put(finish('put'));
    assert.deepEqual((await get(app, '/r')).body, { trail: ['get'] });
    assert.deepEqual((await get(app, '/r', 'PUT')).body, { trail: ['put'] });
    assert.equal((await get(app, '/r', 'POST')).status, 404);
  });

  it('strips a use() prefix into baseUrl while the middleware runs', async () => {
    const app = createApp();
    app.use('/api/:v', (req: Request, res: Response) => res.json({ baseUrl: req.baseUrl, path: req.path, originalUrl: req.originalUrl, url: req.url }));
    assert.deepEqual((await get(app, '/api/v1/users/7?x=1')).body, { baseUrl: '/api/v1', path: '/users/7', originalUrl: '/api/v1/users/7?x=1', url: '/users/7?x=1' });
  });

  it('does not match a use() prefix that stops mid-segment', async () => {
    const app = createApp();
    app.use('/api', finish('api'));
    assert.equal((await get(app, '/apix')).status, 404);
  });

  it('gives positional params for RegExp captures', async () => {
    const app = createApp();
    app.get(/^\/commits\/(\w+)\.\.(\w+)$/, (req: Request, res: Response) => res.json(req.params));
    assert.deepEqual((await get(app, '/commits/abc..def')).body, { 0: 'abc', 1: 'def' });
  });

  it('merges parent params into a mergeParams router', async () => {
    const app = createApp();
    const r = Router({ mergeParams: true });
    r.get('/:repo', (req: Request, res: Response) => res.json(req.params));
    app.use('/users/:user', r);
    assert.deepEqual((await get(app, '/users/ann/proj')).body, { user: 'ann', repo: 'proj' });
  });

  it('decodes params and answers 400 for a malformed escape', async () => {
    const app = createApp();
    app.get('/p/:v', (req: Request, res: Response) => res.json(req.params));
    assert.deepEqual((await get(app, '/p/caf%C3%A9%2F')).body, { v: 'café/' });
    assert.equal((await get(app, '/p/%E0%A4%A')).status, 400);
  });

  it('treats /x and /x/ alike unless strict', async () => {
    const loose = createApp();
    loose.get('/x', finish('x'));
    const strict = createApp({ strict: true });
    strict.get('/x', finish('x'));
    assert.equal((await get(loose, '/x/')).status, 200);
    assert.equal((await get(strict, '/x/')).status, 404);
  });

  it('matches case-insensitively unless caseSensitive', async () => {
    const loose = createApp();
    loose.get('/Users/:id', (req: Request, res: Response) => res.json(req.params));
    const exact = createApp({ caseSensitive: true });
    exact.get('/Users/:id', (req: Request, res: Response) => res.json(req.params));
    assert.deepEqual((await get(loose, '/USERS/AbC')).body, { id: 'AbC' });
    assert.equal((await get(exact, '/users/AbC')).status, 404);
  });

  it('survives a thousand synchronous next() calls', async () => {
    const app = createApp();
    for (let i = 0; i < 1000; i++) app.use((_req: Request, _res: Response, next: NextFunction) => next());
    app.get('/x', finish('end'));
    assert.deepEqual((await get(app, '/x')).body, { trail: ['end'] });
  });

  it('refuses a non-function handler at registration', () => {
    const app = createApp();
    assert.throws(() => app.get('/x', 'nope' as unknown as H), TypeError);
    assert.throws(() => Router().use('/x'), TypeError);
  });

  it('re-indexes routes added after the first request', async () => {
    const app = createApp();
    app.get('/a', finish('a'));
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/b')).status, 404);
      app.get('/b', finish('b'));
      assert.deepEqual(json(await request(base, 'GET', '/b')), { trail: ['b'] });
    });
  });
});
