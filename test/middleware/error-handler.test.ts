import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createApp, errorHandler, HttpError } from '../../src/index.js';
import { send } from '../helpers/service.js';

async function serve(env: string): Promise<{ server: Server; base: string; logged: unknown[] }> {
  const logged: unknown[] = [];
  const app = createApp({ env });
  app.get('/boom', () => {
    throw new Error('secret <internals>');
  });
  app.get('/teapot', () => {
    throw new HttpError(418, 'short and stout');
  });
  app.get('/chain', (_req, _res, next) => next(new Error('first')));
  app.use('/chain', (err: unknown, _req: unknown, _res: unknown, next: (e?: unknown) => void) => next(new Error(`wrapped ${(err as Error).message}`)));
  app.use(errorHandler({ env, log: (err) => logged.push(err) }));
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logged }));
  });
}

describe('errorHandler()', () => {
  let dev: Awaited<ReturnType<typeof serve>>;
  let prod: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    dev = await serve('development');
    prod = await serve('production');
  });
  after(() => {
    dev.server.close();
    prod.server.close();
  });

  it('shows an HTML page with the escaped stack to browsers in development', async () => {
    const res = await send(dev.base, 'GET', '/boom', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    assert.equal(res.status, 500);
    assert.match(res.headers['content-type']!, /^text\/html/);
    assert.match(res.text, /<pre>Error: secret &lt;internals&gt;/);
    assert.doesNotMatch(res.text, /<internals>/);
  });

  it('answers JSON {error:{message,stack}} when the client prefers JSON', async () => {
    const res = await send(dev.base, 'GET', '/boom', { headers: { accept: 'application/json' } });
    const body = JSON.parse(res.text);
    assert.equal(body.error.message, 'secret <internals>');
    assert.match(body.error.stack, /at /);
  });

  it('answers plain text otherwise', async () => {
    const res = await send(dev.base, 'GET', '/boom', { headers: { accept: 'text/plain' } });
    assert.match(res.headers['content-type']!, /^text\/plain/);
  });

  it('uses the error status', async () => {
    assert.equal((await send(dev.base, 'GET', '/teapot')).status, 418);
  });

  it('runs error handlers in registration order (one passes on, the next renders)', async () => {
    const res = await send(dev.base, 'GET', '/chain', { headers: { accept: 'application/json' } });
    assert.equal(JSON.parse(res.text).error.message, 'wrapped first');
  });

  it('logs the error with its stack', async () => {
    await send(dev.base, 'GET', '/boom');
    assert.ok(dev.logged.some((e) => e instanceof Error && e.message === 'secret <internals>'));
  });

  it('never sends a stack in production', async () => {
    for (const accept of ['text/html', 'application/json', 'text/plain']) {
      const res = await send(prod.base, 'GET', '/boom', { headers: { accept } });
      assert.equal(res.status, 500);
      assert.doesNotMatch(res.text, /secret|at \w|\.ts:/);
    }
    const teapot = await send(prod.base, 'GET', '/teapot', { headers: { accept: 'application/json' } });
    assert.equal(JSON.parse(teapot.text).error.message, 'short and stout');
  });

  it('keeps stacks out of the default handler in production', async () => {
    const app = createApp({ env: 'production' });
    app.get('/x', () => {
      throw new Error('hidden detail');
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const res = await send(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'GET', '/x');
    server.close();
    assert.equal(res.status, 500);
    assert.doesNotMatch(res.text, /hidden detail|at /);
  });
});
