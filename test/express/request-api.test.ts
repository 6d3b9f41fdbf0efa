/**
 * @module test/express/request-api
 * roa/express's request surface (express/request) as Express 4 defines it: headers, negotiation,
 * freshness, ranges, the trust-proxy reads, subdomains, query parsers and the deprecated helpers.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import express from '../../src/express/index.js';
import type { ExpressRequest } from '../../src/express/request.js';
import type { ExpressResponse } from '../../src/express/response.js';
import { json, request, withServer } from '../helpers/server.js';

process.env.NODE_ENV = 'test';

type Handler = (req: ExpressRequest, res: ExpressResponse) => void;

/** An app answering every request with `handler`'s JSON. */
function appWith(handler: Handler, setup?: (app: ReturnType<typeof express>) => void): ReturnType<typeof express> {
  const app = express();
  setup?.(app);
  app.use(handler as never);
  return app;
}

describe('roa/express request', () => {
  it('reads headers case-insensitively, Referrer before Referer, and refuses a missing name', async () => {
    const app = appWith((req, res) => {
      assert.throws(() => req.get(undefined as unknown as string), /name argument is required/);
      assert.throws(() => req.get(42 as unknown as string), /name must be a string/);
      res.json({ type: req.get('content-TYPE'), ref: req.get('Referer'), header: req.header('X-A') });
    });
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/', { headers: { 'Content-Type': 'text/plain', Referer: 'http://a/', Referrer: 'http://b/', 'X-A': '1' } });
      assert.deepEqual(json(res), { type: 'text/plain', ref: 'http://b/', header: '1' });
    });
  });

  it('negotiates types, encodings, charsets and languages with accepts', async () => {
    const app = appWith((req, res) => res.json({
      type: req.accepts(['json', 'html']),
      none: req.accepts('image/png'),
      encoding: req.acceptsEncodings('gzip', 'deflate'),
      charset: req.acceptsCharsets('utf-8'),
      language: req.acceptsLanguages(['en', 'fr']),
      all: req.accepts(),
    }));
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/', {
        headers: { Accept: 'text/html;q=0.5, application/json', 'Accept-Encoding': 'deflate', 'Accept-Charset': 'utf-8', 'Accept-Language': 'fr' },
      });
      assert.deepEqual(json(res), { type: 'json', none: false, encoding: 'deflate', charset: 'utf-8', language: 'fr', all: ['application/json', 'text/html'] });
    });
  });

  it('tells a fresh conditional GET by ETag and a stale one', async () => {
    const app = appWith((req, res) => {
      res.set('ETag', '"v1"');
      res.json({ fresh: req.fresh, stale: req.stale });
    });
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/', { headers: { 'If-None-Match': '"v1"' } })).status, 304);
      assert.deepEqual(json(await request(base, 'GET', '/', { headers: { 'If-None-Match': '"v0"' } })), { fresh: false, stale: true });
    });
  });

  it('parses Range against a size, with combine', async () => {
    const app = appWith((req, res) => {
      const ranges = req.range(1000, { combine: true });
      res.json({ ranges, type: typeof ranges === 'object' ? ranges.type : ranges, unsatisfiable: req.range(0) });
    });
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/', { headers: { Range: 'bytes=0-49,50-99' } });
      assert.deepEqual(json(res), { ranges: [{ start: 0, end: 99 }], type: 'bytes', unsatisfiable: -1 });
    });
  });

  it('checks the body type with type-is (null without a body)', async () => {
    const app = appWith((req, res) => res.json({ json: req.is('json'), html: req.is('html'), plus: req.is(['+json']) }));
    await withServer(app, async (base) => {
      const res = await request(base, 'POST', '/', { headers: { 'Content-Type': 'application/vnd.api+json' }, body: '{}' });
      assert.deepEqual(json(res), { json: false, html: false, plus: 'application/vnd.api+json' });
      assert.deepEqual(json(await request(base, 'GET', '/')), { json: null, html: null, plus: null });
    });
  });

  it('believes X-Forwarded-* only from a trusted proxy, first value, port stripped', async () => {
    const handler: Handler = (req, res) => res.json({ protocol: req.protocol, secure: req.secure, ip: req.ip, ips: req.ips, hostname: req.hostname, host: req.host, subdomains: req.subdomains });
    const headers = { 'X-Forwarded-Proto': 'https, http', 'X-Forwarded-For': '10.0.0.1, 10.0.0.2', 'X-Forwarded-Host': 'tobi.ferrets.example.com:8080, proxy', Host: 'localhost:3000' };
    await withServer(appWith(handler, (app) => app.set('trust proxy', true)), async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/', { headers })), {
        protocol: 'https', secure: true, ip: '10.0.0.1', ips: ['10.0.0.1', '10.0.0.2'], hostname: 'tobi.ferrets.example.com', host: 'tobi.ferrets.example.com', subdomains: ['ferrets', 'tobi'],
      });
    });
    await withServer(appWith(handler), async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/', { headers })), {
        protocol: 'http', secure: false, ip: '127.0.0.1', ips: [], hostname: 'localhost', host: 'localhost', subdomains: [],
      });
    });
  });

  it('counts subdomains from the subdomain offset and keeps IP addresses whole', async () => {
    const app = appWith((req, res) => res.json(req.subdomains), (a) => a.set('subdomain offset', 1));
    await withServer(app, async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/', { headers: { Host: 'a.b.example' } })), ['b', 'a']);
      assert.deepEqual(json(await request(base, 'GET', '/', { headers: { Host: '127.0.0.1' } })), []);
    });
  });

  it('parses the query by the query parser setting: extended, simple, off, a function', async () => {
    const cases: Array<[unknown, unknown]> = [
      ['extended', { user: { name: 'tj' } }],
      ['simple', { 'user[name]': 'tj' }],
      [false, {}],
      [(text: string) => ({ raw: text }), { raw: 'user[name]=tj' }],
    ];
    for (const [setting, expected] of cases) {
      const app = appWith((req, res) => res.json(req.query), (a) => a.set('query parser', setting));
      await withServer(app, async (base) => assert.deepEqual(json(await request(base, 'GET', '/?user[name]=tj')), expected));
    }
  });

  it('parses the query once: a change made to it is still there inside a mounted app', async () => {
    const app = express();
    const sub = express();
    sub.get('/', ((req: ExpressRequest, res: ExpressResponse) => res.json(req.query)) as never);
    app.use(((req: ExpressRequest, _res: ExpressResponse, next: () => void) => {
      req.query.added = 'yes';
      next();
    }) as never);
    app.use('/sub', sub as never);
    await withServer(app, async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/sub?a=1')), { a: '1', added: 'yes' });
    });
  });

  it('tells XHR by X-Requested-With, and req.param looks in params, body, then query', async () => {
    const app = express();
    app.use(express.json());
    app.post('/user/:id', ((req: ExpressRequest, res: ExpressResponse) => res.json({
      xhr: req.xhr, id: req.param('id'), name: req.param('name'), q: req.param('q'), none: req.param('none', 'dflt'),
    })) as never);
    await withServer(app, async (base) => {
      const res = await request(base, 'POST', '/user/7?q=query&name=fromquery', {
        headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' }, body: '{"name":"frombody"}',
      });
      assert.deepEqual(json(res), { xhr: true, id: '7', name: 'frombody', q: 'query', none: 'dflt' });
    });
  });
});
