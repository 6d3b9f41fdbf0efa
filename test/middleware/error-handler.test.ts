import assert from 'node:assert/strict';
import { after, before, describe, it } from '../helpers/node-test.js';
import type { App } from '../../src/app.js';
import { HttpError } from '../../src/errors/http-error.js';
import type { NextFunction, Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { errorHandler, type ErrorHandlerOptions } from '../../src/middleware/error-handler.js';
import { send, serve, type Served } from './harness.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function routes(app: App, logged: string[], options: ErrorHandlerOptions): void {
  app.get('/boom', () => {
    throw new Error('secret <internals>');
  });
  app.get('/teapot', () => {
    throw new HttpError(418, 'short & stout');
  });
  app.get('/hidden', () => {
    throw new HttpError(400, 'internal reason', { expose: false });
  });
  app.get('/unavailable', () => {
    throw new HttpError(503, 'database host db-7 is down', { expose: true, headers: { 'Retry-After': '30' } });
  });
  app.get('/method', () => {
    throw new HttpError(405, 'Use GET or PUT', { headers: { Allow: 'GET, PUT' } });
  });
  app.get('/plain', (_req: Request, _res: Response, next: NextFunction) => next({ statusCode: 404, message: 'plain object', headers: { 'X-Why': 'gone' } }));
  app.get('/string', () => {
    throw 'a thrown string';
  });
  app.get('/cached', (_req: Request, res: Response) => {
    res.set({ 'Cache-Control': 'public, max-age=3600', ETag: '"v1"' });
    throw new HttpError(409, 'conflict');
  });
  app.get('/late', (_req: Request, res: Response, next: NextFunction) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('partial');
    next(new Error('too late'));
  });
  app.get('/chain', (_req: Request, _res: Response, next: NextFunction) => next(new Error('first')));
  app.use('/chain', (err: unknown, _req: Request, _res: Response, next: NextFunction) => next(new Error(`wrapped ${(err as Error).message}`)));
  app.use(errorHandler({ ...options, log: (_err, line) => logged.push(line) }));
  // Reached only through errorHandler's next(err) (headers already sent): end the connection.
  app.use((_err: unknown, req: Request, _res: Response, _next: NextFunction) => {
    logged.push('passed on');
    req.socket.destroy();
  });
}

describe('errorHandler()', () => {
  let dev: Served;
  let prod: Served;
  const devLog: string[] = [];
  const prodLog: string[] = [];
  before(async () => {
    dev = await serve((app) => routes(app, devLog, { env: 'development' }));
    prod = await serve((app) => routes(app, prodLog, { env: 'production' }));
  });
  after(async () => {
    await dev.close();
    await prod.close();
  });

  it('shows browsers an HTML page with the escaped stack in development', async () => {
    const res = await send(dev.base, 'GET', '/boom', { headers: { accept: BROWSER } });
    assert.equal(res.status, 500);
    assert.match(res.headers['content-type']!, /^text\/html; charset=utf-8/);
    assert.match(res.text, /<pre>Error: secret &lt;internals&gt;\n\s+at /);
    assert.doesNotMatch(res.text, /<internals>/);
    assert.equal(res.headers['content-security-policy'], "default-src 'none'");
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(res.headers.vary!, /Accept/);
  });

  it('answers HTML to */* and to a request without Accept', async () => {
    assert.match((await send(dev.base, 'GET', '/boom', { headers: { accept: '*/*' } })).headers['content-type']!, /^text\/html/);
    assert.match((await send(dev.base, 'GET', '/boom')).headers['content-type']!, /^text\/html/);
  });

  it('answers JSON {error:{message,stack}} when the client prefers JSON', async () => {
    const res = await send(dev.base, 'GET', '/boom', { headers: { accept: 'application/json, text/html;q=0.5' } });
    assert.match(res.headers['content-type']!, /^application\/json/);
    assert.equal(res.json.error.message, 'secret <internals>');
    assert.match(res.json.error.stack, /^Error: secret <internals>\n\s+at /);
  });

  it('answers plain text otherwise, also when nothing offered is acceptable', async () => {
    for (const accept of ['text/plain', 'image/png']) {
      const res = await send(dev.base, 'GET', '/boom', { headers: { accept } });
      assert.match(res.headers['content-type']!, /^text\/plain/);
      assert.match(res.text, /^500 secret <internals>\n\nError: secret <internals>\n\s+at /);
    }
  });

  it('uses the error status (status, statusCode, else 500) and the error headers', async () => {
    assert.equal((await send(dev.base, 'GET', '/teapot')).status, 418);
    const method = await send(dev.base, 'GET', '/method', { headers: { accept: 'application/json' } });
    assert.equal(method.status, 405);
    assert.equal(method.headers.allow, 'GET, PUT');
    const plain = await send(dev.base, 'GET', '/plain', { headers: { accept: 'application/json' } });
    assert.equal(plain.status, 404);
    assert.equal(plain.headers['x-why'], 'gone');
    assert.equal(plain.json.error.message, 'plain object');
    const str = await send(dev.base, 'GET', '/string', { headers: { accept: 'application/json' } });
    assert.deepEqual([str.status, str.json.error.message], [500, 'a thrown string']);
  });

  it('replaces the handler\'s caching headers with Cache-Control: no-store', async () => {
    const res = await send(dev.base, 'GET', '/cached');
    assert.equal(res.status, 409);
    assert.equal(res.headers['cache-control'], undefined);
    assert.equal(res.headers.etag, undefined);
  });

  it('sends no body for HEAD', async () => {
    const res = await send(dev.base, 'HEAD', '/teapot');
    assert.equal(res.status, 418);
    assert.equal(res.text, '');
  });

  it('runs error handlers in registration order (one passes on, the next renders)', async () => {
    const res = await send(dev.base, 'GET', '/chain', { headers: { accept: 'application/json' } });
    assert.equal(res.json.error.message, 'wrapped first');
  });

  it('logs method, path and status, never the query string or headers', async () => {
    devLog.length = 0;
    await send(dev.base, 'GET', '/boom?access_token=s3cr3t', { headers: { authorization: 'Basic dXNlcjpwdw==' } });
    assert.deepEqual(devLog, ['GET /boom -> 500']);
  });

  it('passes the error on when headers are already sent', async () => {
    devLog.length = 0;
    await assert.rejects(send(dev.base, 'GET', '/late'));
    assert.deepEqual(devLog, ['GET /late -> 500', 'passed on']);
  });

  it('never sends a stack in production; 5xx get the reason phrase only', async () => {
    for (const accept of ['text/html', 'application/json', 'text/plain', '*/*']) {
      for (const path of ['/boom', '/unavailable']) {
        const res = await send(prod.base, 'GET', path, { headers: { accept } });
        assert.doesNotMatch(res.text, /secret|db-7|\bat \w|\.ts:/, `${path} ${accept}`);
      }
    }
    const json = await send(prod.base, 'GET', '/boom', { headers: { accept: 'application/json' } });
    assert.deepEqual(json.json, { error: { message: 'Internal Server Error' } });
    const unavailable = await send(prod.base, 'GET', '/unavailable', { headers: { accept: 'application/json' } });
    assert.deepEqual([unavailable.status, unavailable.json.error.message, unavailable.headers['retry-after']], [503, 'Service Unavailable', '30']);
  });

  it('shows exposed 4xx messages in production, escaped in HTML, and hides unexposed ones', async () => {
    const teapot = await send(prod.base, 'GET', '/teapot', { headers: { accept: 'application/json' } });
    assert.deepEqual(teapot.json, { error: { message: 'short & stout' } });
    assert.match((await send(prod.base, 'GET', '/teapot')).text, /<p>short &amp; stout<\/p>/);
    const hidden = await send(prod.base, 'GET', '/hidden', { headers: { accept: 'application/json' } });
    assert.deepEqual(hidden.json, { error: { message: 'Bad Request' } });
  });

  it('reads NODE_ENV when no env is given', async () => {
    const srv = await serve((app) => {
      app.get('/boom', () => {
        throw new Error('secret');
      });
      app.use(errorHandler({ log: false }));
    });
    const saved = process.env.NODE_ENV;
    try {
      process.env.NODE_ENV = 'production';
      const res = await send(srv.base, 'GET', '/boom', { headers: { accept: 'application/json' } });
      assert.deepEqual(res.json, { error: { message: 'Internal Server Error' } });
      process.env.NODE_ENV = 'development';
      assert.equal((await send(srv.base, 'GET', '/boom', { headers: { accept: 'application/json' } })).json.error.message, 'secret');
    } finally {
      if (saved === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = saved;
      await srv.close();
    }
  });
});
