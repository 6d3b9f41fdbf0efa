/**
 * @module test/express/body-parsers
 * express.json / urlencoded / raw / text: body-parser's options and errors, and express.json()'s
 * roa-read path giving the same answers as body-parser (values, `err.type`, status, limits).
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { gzipSync } from 'node:zlib';
import express from '../../src/express/index.js';
import type { ExpressRequest } from '../../src/express/request.js';
import type { ExpressResponse } from '../../src/express/response.js';
import { json, request, withServer } from '../helpers/server.js';

process.env.NODE_ENV = 'test';

type Middleware = (req: ExpressRequest, res: ExpressResponse, next: (err?: unknown) => void) => void;
type Failure = { status?: number; type?: string; message: string };

/** An app that parses with `parser` and echoes `req.body`, or the error as `[type] status`. */
function echo(parser: unknown): ReturnType<typeof express> {
  const app = express();
  app.use(parser as never);
  app.use(((req: ExpressRequest, res: ExpressResponse) => res.json({ body: req.body })) as never);
  app.use(((err: Failure, _req: ExpressRequest, res: ExpressResponse, _next: unknown) => res.status(err.status ?? 500).send(`[${err.type}] ${err.status}`)) as never);
  return app;
}

const JSON_TYPE = { 'Content-Type': 'application/json' };

describe('roa/express body parsers', () => {
  it('express.json() parses plain JSON, {} for an empty body, and skips other types', async () => {
    await withServer(echo(express.json()), async (base) => {
      assert.deepEqual(json(await request(base, 'POST', '/', { headers: JSON_TYPE, body: '{"user":"tobi"}' })), { body: { user: 'tobi' } });
      assert.deepEqual(json(await request(base, 'POST', '/', { headers: { 'Content-Type': 'application/json; charset=UTF-8' }, body: '\uFEFF[1]' })), { body: [1] });
      assert.deepEqual(json(await request(base, 'POST', '/', { headers: { ...JSON_TYPE, 'Content-Length': '0' } })), { body: {} });
      assert.deepEqual(json(await request(base, 'POST', '/', { headers: { 'Content-Type': 'text/plain' }, body: '{"a":1}' })), { body: {} });
      assert.deepEqual(json(await request(base, 'GET', '/')), { body: {} });
    });
  });

  it('express.json() reports what it cannot parse as body-parser does', async () => {
    await withServer(echo(express.json()), async (base) => {
      assert.equal((await request(base, 'POST', '/', { headers: JSON_TYPE, body: '{"a":' })).text, '[entity.parse.failed] 400');
      assert.equal((await request(base, 'POST', '/', { headers: JSON_TYPE, body: ' "just a string"' })).text, '[entity.parse.failed] 400');
      const big = JSON.stringify({ s: 'x'.repeat(110 * 1024) });
      assert.equal((await request(base, 'POST', '/', { headers: JSON_TYPE, body: big })).text, '[entity.too.large] 413');
      assert.equal((await request(base, 'POST', '/', { headers: { 'Content-Type': 'application/json; charset=koi8-r' }, body: '{}' })).text, '[charset.unsupported] 415');
    });
  });

  it('express.json() keeps strict: false, limit, and goes through body-parser for type, reviver, verify and gzip', async () => {
    await withServer(echo(express.json({ strict: false, limit: 10 })), async (base) => {
      assert.deepEqual(json(await request(base, 'POST', '/', { headers: JSON_TYPE, body: '"str"' })), { body: 'str' });
      assert.equal((await request(base, 'POST', '/', { headers: JSON_TYPE, body: '["0123456789"]' })).text, '[entity.too.large] 413');
    });
    const reviver = (key: string, value: unknown) => (key === 'n' ? Number(value) * 2 : value);
    const verify = (_req: unknown, _res: unknown, buf: Buffer) => {
      if (buf.includes('forbidden')) throw new Error('refused');
    };
    await withServer(echo(express.json({ type: 'application/vnd+json', reviver, verify })), async (base) => {
      assert.deepEqual(json(await request(base, 'POST', '/', { headers: { 'Content-Type': 'application/vnd+json' }, body: '{"n":2}' })), { body: { n: 4 } });
      assert.equal((await request(base, 'POST', '/', { headers: { 'Content-Type': 'application/vnd+json' }, body: '{"forbidden":1}' })).text, '[entity.verify.failed] 403');
    });
    await withServer(echo(express.json()), async (base) => {
      const body = gzipSync('{"zipped":true}');
      assert.deepEqual(json(await request(base, 'POST', '/', { headers: { ...JSON_TYPE, 'Content-Encoding': 'gzip' }, body })), { body: { zipped: true } });
    });
  });

  it('express.json() continues in the caller\'s AsyncLocalStorage context', async () => {
    const storage = new AsyncLocalStorage<string>();
    const app = express();
    app.use(((_req: ExpressRequest, _res: ExpressResponse, next: () => void) => storage.run('mine', next)) as never);
    app.use(express.json() as never);
    app.use(((_req: ExpressRequest, res: ExpressResponse) => res.json({ store: storage.getStore() })) as never);
    await withServer(app, async (base) => {
      assert.deepEqual(json(await request(base, 'POST', '/', { headers: JSON_TYPE, body: '{}' })), { store: 'mine' });
    });
  });

  it('express.urlencoded parses nested forms (extended) or flat ones, bounded by parameterLimit', async () => {
    await withServer(echo(express.urlencoded({ extended: true })), async (base) => {
      const res = await request(base, 'POST', '/', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'user[name]=tobi&tags=a&tags=b' });
      assert.deepEqual(json(res), { body: { user: { name: 'tobi' }, tags: ['a', 'b'] } });
    });
    await withServer(echo(express.urlencoded({ extended: false, parameterLimit: 2 })), async (base) => {
      const flat = await request(base, 'POST', '/', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'user[name]=tobi' });
      assert.deepEqual(json(flat), { body: { 'user[name]': 'tobi' } });
      const many = await request(base, 'POST', '/', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=2&c=3' });
      assert.equal(many.text, '[parameters.too.many] 413');
    });
  });

  it('express.raw gives a Buffer and express.text a string in the declared charset', async () => {
    const app = express();
    app.post('/raw', express.raw() as never, ((req: ExpressRequest, res: ExpressResponse) => res.json({ isBuffer: Buffer.isBuffer(req.body), hex: (req.body as Buffer).toString('hex') })) as never);
    app.post('/text', express.text({ type: 'text/*' }) as never, ((req: ExpressRequest, res: ExpressResponse) => res.json({ text: req.body })) as never);
    await withServer(app, async (base) => {
      const raw = await request(base, 'POST', '/raw', { headers: { 'Content-Type': 'application/octet-stream' }, body: Buffer.from([0, 255]) });
      assert.deepEqual(json(raw), { isBuffer: true, hex: '00ff' });
      const text = await request(base, 'POST', '/text', { headers: { 'Content-Type': 'text/plain; charset=latin1' }, body: Buffer.from([0x63, 0x61, 0x66, 0xe9]) });
      assert.deepEqual(json(text), { text: 'café' });
    });
  });

  it('express.query applies its own qs options', async () => {
    const app = express();
    app.use(express.query({ depth: 0 }) as unknown as Middleware as never);
    app.use(((req: ExpressRequest, res: ExpressResponse) => res.json(req.query)) as never);
    await withServer(app, async (base) => {
      assert.deepEqual(json(await request(base, 'GET', '/?a[b]=1')), { 'a[b]': '1' });
    });
  });
});
