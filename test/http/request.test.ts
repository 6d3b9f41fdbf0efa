/**
 * @module test/http/request
 * The Request object over real HTTP: params, query parsing (nesting, prototype safety), headers.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { createApp } from '../../src/app.js';
import { pathnameOf, type Request } from '../../src/http/request.js';
import type { Response } from '../../src/http/response.js';
import { json, request, withServer } from '../helpers/server.js';

/** Serves one handler on every GET path and returns what it answered for `path`. */
async function probe(path: string, fn: (req: Request) => unknown, headers?: Record<string, string>): Promise<unknown> {
  const app = createApp();
  app.get('*', (req: Request, res: Response) => res.json({ v: fn(req) ?? null }));
  return withServer(app, async (base) => (json(await request(base, 'GET', path, { headers })) as { v: unknown }).v);
}

describe('Request', () => {
  it('gives named params', async () => {
    const app = createApp();
    app.get('/users/:id/posts/:post', (req: Request, res: Response) => res.json(req.params));
    await withServer(app, async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/users/7/posts/abc')), { id: '7', post: 'abc' });
    });
  });

  it('gives positional params for * and unnamed groups', async () => {
    const app = createApp();
    app.get('/files/*', (req: Request, res: Response) => res.json(req.params));
    app.get(/^\/v(\d+)\/(.*)$/, (req: Request, res: Response) => res.json(req.params));
    await withServer(app, async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/files/a/b.txt')), { 0: 'a/b.txt' });
      assert.deepEqual(json(await request(base, 'GET', '/v2/x/y')), { 0: '2', 1: 'x/y' });
    });
  });

  it('parses nested query keys', async () => {
    assert.deepEqual(await probe('/?a[b][c]=1&a[b][d]=2&e=3', (req) => req.query), { a: { b: { c: '1', d: '2' } }, e: '3' });
  });

  it('parses repeated and bracketed keys as arrays', async () => {
    assert.deepEqual(await probe('/?x=1&x=2&y[]=a&y[]=b', (req) => req.query), { x: ['1', '2'], y: ['a', 'b'] });
  });

  it('decodes percent-escapes and plus signs in the query', async () => {
    assert.deepEqual(await probe('/?q=caf%C3%A9+au+lait', (req) => req.query), { q: 'café au lait' });
  });

  it('gives an empty object without a query string', async () => {
    assert.deepEqual(await probe('/plain', (req) => req.query), {});
  });

  it('does not let __proto__ in the query pollute Object.prototype', async () => {
    const q = await probe('/?__proto__[polluted]=1&constructor[prototype][polluted2]=1&a[__proto__][b]=1', (req) => req.query);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(({} as Record<string, unknown>).polluted2, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(q, '__proto__'), false);
  });

  it('does not expose a polluted prototype on the parsed query', async () => {
    const polluted = await probe('/?__proto__[isAdmin]=true', (req) => (req.query as { isAdmin?: unknown }).isAdmin);
    assert.equal(polluted, null);
  });

  it('caps query nesting depth', async () => {
    // Five levels are nested; the rest of a too-deep key stays one literal key.
    assert.deepEqual(await probe('/?a[b][c][d][e][f][g][h]=1', (req) => req.query), { a: { b: { c: { d: { e: { f: { '[g][h]': '1' } } } } } } });
  });

  it('reads headers case-insensitively with req.get', async () => {
    assert.equal(await probe('/', (req) => req.get('X-CUSTOM'), { 'x-custom': 'v' }), 'v');
  });

  it('treats Referrer and Referer as one header', async () => {
    assert.equal(await probe('/', (req) => req.get('Referrer'), { Referer: 'http://a/' }), 'http://a/');
  });

  it('answers undefined for a missing header', async () => {
    assert.equal(await probe('/', (req) => req.get('x-none')), null);
  });

  it('gives req.path without the query string', async () => {
    assert.equal(await probe('/a/b?c=d', (req) => req.path), '/a/b');
  });

  it('gives the hostname without the port', async () => {
    assert.equal(await probe('/', (req) => req.hostname, { Host: 'example.com:8080' }), 'example.com');
    assert.equal(await probe('/', (req) => req.hostname, { Host: '[::1]:8080' }), '[::1]');
  });

  it('reports http as the protocol of a plain socket', async () => {
    assert.equal(await probe('/', (req) => req.protocol), 'http');
  });

  it('matches the Content-Type with req.is', async () => {
    const app = createApp();
    app.post('/', (req: Request, res: Response) => res.json({ json: req.is('json'), any: req.is('application/*'), html: req.is('html') }));
    await withServer(app, async (base) => {
      const res = await request(base, 'POST', '/', { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '{}' });
      // As type-is (Express's req.is): a wildcard pattern answers with the request's own type.
      assert.deepEqual(json(res), { json: 'json', any: 'application/json', html: false });
    });
  });

  it('re-parses req.query after req.url is rewritten', async () => {
    const app = createApp();
    app.use((req: Request, _res: Response, next: (e?: unknown) => void) => {
      void req.query;
      req.url = '/x?b=2';
      next();
    });
    app.get('/x', (req: Request, res: Response) => res.json(req.query));
    await withServer(app, async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/y?a=1')), { b: '2' });
    });
  });
});

/** Resolves with the request once its response has finished (and the server's own finish work ran). */
function afterFinish(app: ReturnType<typeof createApp>, path = '/'): { served: Promise<Request>; route: () => void } {
  let resolveServed!: (req: Request) => void;
  const served = new Promise<Request>((resolve) => (resolveServed = resolve));
  const route = (): void => {
    app.all(path, (req: Request, res: Response) => {
      res.on('finish', () => setImmediate(() => resolveServed(req)));
      res.send('ok');
    });
  };
  return { served, route };
}

describe('Request ending after the response', () => {
  it('still emits end and close to listeners added while handling', async () => {
    const app = createApp();
    const events: string[] = [];
    const ended = new Promise<void>((resolve) => {
      app.get('/', (req: Request, res: Response) => {
        req.on('end', () => events.push('end'));
        req.once('close', () => {
          events.push('close');
          resolve();
        });
        res.send('ok');
      });
    });
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/')).status, 200);
      await ended;
    });
    assert.deepEqual(events, ['end', 'close']);
  });

  // The deferred ending is the incomingMessage fast path itself: on even under ROA_FAST_PATHS=0.
  it('defers an ending nobody listens for, and runs it for a listener added later', async () => {
    const app = createApp({ fastPaths: { incomingMessage: true } });
    const { served, route } = afterFinish(app);
    route();
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/')).status, 200);
      const req = await served;
      // Deferred: node would have ended and destroyed it by now.
      assert.equal(req.readableEnded, false);
      const events: string[] = [];
      req.on('end', () => events.push('end'));
      await once(req, 'close');
      events.push('close');
      assert.deepEqual(events, ['end', 'close']);
      assert.equal(req.destroyed, true);
    });
  });

  it('settles stream.finished() and prependListener("close") asked for after the response', async () => {
    for (const late of ['finished', 'prepend'] as const) {
      const app = createApp({ fastPaths: { incomingMessage: true } });
      const { served, route } = afterFinish(app);
      route();
      await withServer(app, async (base) => {
        await request(base, 'GET', '/');
        const req = await served;
        if (late === 'finished') await finished(req);
        else await new Promise<void>((resolve) => req.prependListener('close', () => resolve()));
        assert.equal(req.readableEnded, true, late);
      });
    }
  });

  it('drains an unread body as node does, and keeps the connection usable', async () => {
    const app = createApp();
    const { served, route } = afterFinish(app, '/unread');
    route();
    app.get('/next', (_req: Request, res: Response) => res.send('next'));
    await withServer(app, async (base) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const ask = (method: string, path: string, body?: string): Promise<{ status: number; text: string; port: number }> =>
          new Promise((resolve, reject) => {
            const r = http.request(`${base}${path}`, { method, agent }, (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (c: string) => (text += c));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, text, port: r.socket!.localPort! }));
            });
            r.on('error', reject);
            r.end(body);
          });
        const first = await ask('POST', '/unread', 'x'.repeat(64 * 1024));
        assert.equal(first.status, 200);
        const req = await served;
        await finished(req);
        assert.equal(req.readableEnded, true);
        // Several requests on the same kept-alive connection, with and without deferred endings.
        for (let i = 0; i < 3; i++) {
          const next = await ask('GET', '/next');
          assert.deepEqual([next.status, next.text, next.port], [200, 'next', first.port]);
        }
      } finally {
        agent.destroy();
      }
    });
  });
});

describe('pathnameOf', () => {
  it('drops the query and the fragment', () => {
    assert.equal(pathnameOf('/a/b?c#d'), '/a/b');
    assert.equal(pathnameOf('/a#x?y'), '/a');
  });

  it('drops scheme and authority of an absolute-form target', () => {
    assert.equal(pathnameOf('http://example.com/a?b'), '/a');
    assert.equal(pathnameOf('http://example.com'), '/');
  });

  it('leaves an asterisk-form target alone', () => {
    assert.equal(pathnameOf('*'), '*');
  });
});
