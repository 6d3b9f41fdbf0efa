/**
 * @module test/express/response-send
 * roa/express's senders (express/response) as Express 4 defines them: send's types, ETag and 304,
 * json settings, jsonp callbacks, headers with charsets, format, redirect, links, cookies.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import etag from 'etag';
import express from '../../src/express/index.js';
import type { ExpressRequest } from '../../src/express/request.js';
import type { ExpressResponse } from '../../src/express/response.js';
import { json, request, withServer } from '../helpers/server.js';

process.env.NODE_ENV = 'test';

type Handler = (req: ExpressRequest, res: ExpressResponse) => void;

function appWith(handler: Handler, setup?: (app: ReturnType<typeof express>) => void): ReturnType<typeof express> {
  const app = express();
  setup?.(app);
  app.use(handler as never);
  return app;
}

describe('roa/express response', () => {
  it('sends strings as HTML, Buffers as octets, objects as JSON, with Content-Length and a weak ETag', async () => {
    const bodies: Record<string, unknown> = { '/s': 'hey', '/b': Buffer.from('hey'), '/o': { a: 1 }, '/n': null, '/u': 'caf\u00e9 \u2603' };
    const app = appWith((req, res) => res.send(bodies[req.path]));
    await withServer(app, async (base) => {
      const s = await request(base, 'GET', '/s');
      assert.equal(s.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(s.headers['content-length'], '3');
      assert.match(String(s.headers.etag), /^W\/"3-/);
      assert.equal((await request(base, 'GET', '/b')).headers['content-type'], 'application/octet-stream');
      const o = await request(base, 'GET', '/o');
      assert.equal(o.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(o.text, '{"a":1}');
      assert.equal((await request(base, 'GET', '/n')).text, '');
      const unicode = await request(base, 'GET', '/u');
      assert.equal(unicode.headers.etag, etag(Buffer.from('caf\u00e9 \u2603', 'utf8'), { weak: true }));
      assert.equal(unicode.headers['content-length'], String(Buffer.byteLength('caf\u00e9 \u2603')));
      const head = await request(base, 'HEAD', '/s');
      assert.equal(head.text, '');
      assert.equal(head.headers['content-length'], '3');
    });
  });

  it('answers 304 to a matching If-None-Match and leaves out the body headers', async () => {
    const app = appWith((_req, res) => res.send('hello'));
    await withServer(app, async (base) => {
      const first = await request(base, 'GET', '/');
      const again = await request(base, 'GET', '/', { headers: { 'If-None-Match': String(first.headers.etag) } });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      assert.equal(again.headers['content-type'], undefined);
    });
  });

  it('follows the etag setting: strong, off, or a function', async () => {
    for (const [setting, check] of [
      ['strong', (tag: unknown) => assert.match(String(tag), /^"5-/)],
      [false, (tag: unknown) => assert.equal(tag, undefined)],
      [() => '"custom"', (tag: unknown) => assert.equal(tag, '"custom"')],
    ] as Array<[unknown, (tag: unknown) => void]>) {
      const app = appWith((_req, res) => res.send('hello'), (a) => a.set('etag', setting));
      await withServer(app, async (base) => check((await request(base, 'GET', '/')).headers.etag));
    }
  });

  it('keeps the deprecated status forms and sendStatus', async () => {
    const app = express();
    app.get('/a', ((_req: ExpressRequest, res: ExpressResponse) => res.send(201, 'made')) as never);
    app.get('/b', ((_req: ExpressRequest, res: ExpressResponse) => res.json({ x: 1 }, 202)) as never);
    app.get('/c', ((_req: ExpressRequest, res: ExpressResponse) => res.sendStatus(418)) as never);
    await withServer(app, async (base) => {
      const a = await request(base, 'GET', '/a');
      assert.deepEqual([a.status, a.text], [201, 'made']);
      assert.equal((await request(base, 'GET', '/b')).status, 202);
      const c = await request(base, 'GET', '/c');
      assert.deepEqual([c.status, c.text, c.headers['content-type']], [418, "I'm a Teapot", 'text/plain; charset=utf-8']);
    });
  });

  it('stringifies JSON with json replacer, json spaces and json escape', async () => {
    const app = appWith((_req, res) => res.json({ a: '<b>&', secret: 'x' }), (a) => {
      a.set('json replacer', (key: string, value: unknown) => (key === 'secret' ? undefined : value));
      a.set('json spaces', 1);
      a.enable('json escape');
    });
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/')).text, '{\n "a": "\\u003cb\\u003e\\u0026"\n}');
    });
  });

  it('wraps jsonp in the sanitised callback named by jsonp callback name', async () => {
    const app = appWith((_req, res) => res.jsonp({ count: 1 }), (a) => a.set('jsonp callback name', 'cb'));
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/?cb=alert(1);foo.bar');
      assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.text, "/**/ typeof alert1foo.bar === 'function' && alert1foo.bar({\"count\":1});");
      const plain = await request(base, 'GET', '/');
      assert.equal(plain.headers['content-type'], 'application/json; charset=utf-8');
    });
  });

  it('sets headers with charsets, arrays, appends, types and links', async () => {
    const app = appWith((_req, res) => {
      res.set('Content-Type', 'text/x-foo');
      res.set({ 'X-Num': 1, 'X-List': [1, 2] });
      res.append('X-List', '3');
      res.links({ next: '/p/2', last: '/p/9' });
      assert.throws(() => res.set('Content-Type', ['a/b'] as unknown as string), /Content-Type cannot be set to an Array/);
      res.vary('Accept').vary('Accept');
      res.end();
    });
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/');
      assert.equal(res.headers['content-type'], 'text/x-foo; charset=utf-8');
      assert.equal(res.headers['x-num'], '1');
      assert.equal(res.headers['x-list'], '1, 2, 3');
      assert.equal(res.headers.link, '</p/2>; rel="next", </p/9>; rel="last"');
      assert.equal(res.headers.vary, 'Accept');
    });
    const typed = appWith((_req, res) => res.type('.html').attachment('report.pdf').send(Buffer.from('%PDF')));
    await withServer(typed, async (base) => {
      const res = await request(base, 'GET', '/');
      assert.equal(res.headers['content-type'], 'application/pdf');
      assert.equal(res.headers['content-disposition'], 'attachment; filename="report.pdf"');
    });
  });

  it('formats by Accept and sends 406 with the offered types otherwise', async () => {
    const app = express();
    app.use(((_req: ExpressRequest, res: ExpressResponse) => res.format({
      text: () => res.send('text'),
      'application/json': () => res.json({ kind: 'json' }),
    })) as never);
    app.use(((err: { status: number; types: string[] }, _req: ExpressRequest, res: ExpressResponse, _next: unknown) => res.status(err.status).json(err.types)) as never);
    await withServer(app, async (base) => {
      const text = await request(base, 'GET', '/', { headers: { Accept: 'text/plain' } });
      assert.deepEqual([text.text, text.headers['content-type'], text.headers.vary], ['text', 'text/plain; charset=utf-8', 'Accept']);
      assert.deepEqual(json(await request(base, 'GET', '/', { headers: { Accept: 'application/json' } })), { kind: 'json' });
      const refused = await request(base, 'GET', '/', { headers: { Accept: 'image/png' } });
      assert.equal(refused.status, 406);
      assert.deepEqual(json(refused), ['text/plain', 'application/json']);
    });
  });

  it('redirects with an encoded Location and a body in the accepted form', async () => {
    const app = express();
    app.get('/a', ((_req: ExpressRequest, res: ExpressResponse) => res.redirect('/b?x=<y>&z=☃')) as never);
    app.get('/c', ((_req: ExpressRequest, res: ExpressResponse) => res.redirect(301, 'back')) as never);
    await withServer(app, async (base) => {
      const html = await request(base, 'GET', '/a', { headers: { Accept: 'text/html' } });
      assert.equal(html.status, 302);
      assert.equal(html.headers.location, '/b?x=%3Cy%3E&z=%E2%98%83');
      assert.equal(html.text, '<p>Found. Redirecting to /b?x=%3Cy%3E&amp;z=%E2%98%83</p>');
      const text = await request(base, 'GET', '/a', { headers: { Accept: 'text/plain' } });
      assert.equal(text.text, 'Found. Redirecting to /b?x=%3Cy%3E&z=%E2%98%83');
      assert.equal((await request(base, 'GET', '/a', { headers: { Accept: 'image/png' } })).text, '');
      const back = await request(base, 'GET', '/c', { headers: { Referer: '/from' } });
      assert.deepEqual([back.status, back.headers.location], [301, '/from']);
    });
  });

  it('writes cookies: JSON values, maxAge in ms, signed with req.secret, cleared', async () => {
    const app = express();
    app.use(((req: ExpressRequest, _res: ExpressResponse, next: () => void) => {
      req.secret = 'keyboard cat';
      next();
    }) as never);
    app.use(((_req: ExpressRequest, res: ExpressResponse) => {
      res.cookie('obj', { a: 1 }).cookie('max', 'v', { maxAge: 60_000, httpOnly: true });
      res.cookie('sig', 'tobi', { signed: true }).clearCookie('old');
      res.end();
    }) as never);
    await withServer(app, async (base) => {
      const cookies = (await request(base, 'GET', '/')).headers['set-cookie']!;
      assert.equal(cookies[0], 'obj=j%3A%7B%22a%22%3A1%7D; Path=/');
      assert.match(cookies[1]!, /^max=v; Max-Age=60; Path=\/; Expires=[^;]+ GMT; HttpOnly$/);
      const mac = createHmac('sha256', 'keyboard cat').update('tobi').digest('base64').replace(/=+$/, '');
      assert.equal(cookies[2], `sig=${encodeURIComponent(`s:tobi.${mac}`)}; Path=/`);
      assert.equal(cookies[3], 'old=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    });
    const unsigned = appWith((_req, res) => {
      assert.throws(() => res.cookie('s', 'v', { signed: true }), /cookieParser\("secret"\) required/);
      res.end();
    });
    await withServer(unsigned, async (base) => assert.equal((await request(base, 'GET', '/')).status, 200));
  });
});
