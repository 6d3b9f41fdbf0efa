/**
 * @module test/express/response-headers
 * The headers res.send and res.json set on every response and their ETags
 * (express/settings) are Express 4's exactly, whichever way they are stored: run with the fast
 * paths on and with ROA_FAST_PATHS=0.
 */
import { describe, it } from '../helpers/node-test.js';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import etag from 'etag';
import express from '../../src/express/index.js';
import type { ExpressRequest } from '../../src/express/request.js';
import type { ExpressResponse } from '../../src/express/response.js';
import { request, withServer } from '../helpers/server.js';

process.env.NODE_ENV = 'test';

type Handler = (req: ExpressRequest, res: ExpressResponse, next: (err?: unknown) => void) => void;

function appWith(...handlers: Handler[]): ReturnType<typeof express> {
  const app = express();
  for (const handler of handlers) app.use(handler as never);
  return app;
}

/** The raw header lines of one GET, in the order the server wrote them. */
async function rawHeadersOf(app: ReturnType<typeof express>, path: string): Promise<string[]> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.rawHeaders));
      }).on('error', reject);
    });
  } finally {
    server.close();
  }
}

describe('roa/express response headers', () => {
  it('writes X-Powered-By, Content-Type, Content-Length and ETag in Express order, for send and json', async () => {
    const app = appWith((req, res) => (req.path === '/json' ? res.json({ a: 1 }) : res.send('Hello World')));
    const text = await rawHeadersOf(app, '/');
    assert.deepEqual(text.slice(0, 8), ['X-Powered-By', 'Express', 'Content-Type', 'text/html; charset=utf-8', 'Content-Length', '11', 'ETag', etag('Hello World', { weak: true })]);
    const json = await rawHeadersOf(app, '/json');
    assert.deepEqual(json.slice(0, 8), ['X-Powered-By', 'Express', 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', '7', 'ETag', etag('{"a":1}', { weak: true })]);
  });

  it('leaves every header readable through node\'s API after the response is sent', async () => {
    let after: Record<string, unknown> = {};
    const app = appWith((_req, res) => {
      res.on('finish', () => {
        after = { ...res.getHeaders(), names: res.getHeaderNames(), has: res.hasHeader('ETag'), length: res.getHeader('Content-Length') };
      });
      res.send('hey');
    });
    await withServer(app, async (base) => {
      await request(base, 'GET', '/');
    });
    assert.deepEqual(after, {
      'x-powered-by': 'Express',
      'content-type': 'text/html; charset=utf-8',
      'content-length': '3',
      etag: etag('hey', { weak: true }),
      names: ['x-powered-by', 'content-type', 'content-length', 'etag'],
      has: true,
      length: '3',
    });
  });

  it('shows each header to a middleware that replaced res.setHeader, and honours what it removed', async () => {
    const seen: string[] = [];
    const app = appWith(
      (_req, res, next) => {
        const own = res.setHeader.bind(res);
        res.setHeader = ((name: string, value: string) => {
          seen.push(name);
          return own(name, value);
        }) as typeof res.setHeader;
        res.removeHeader('X-Powered-By');
        next();
      },
      (_req, res) => res.send('hey'),
    );
    await withServer(app, async (base) => {
      const res = await request(base, 'GET', '/');
      assert.equal(res.headers['x-powered-by'], undefined);
      assert.equal(res.headers.etag, etag('hey', { weak: true }));
    });
    assert.deepEqual(seen, ['Content-Type', 'Content-Length', 'ETag']);
  });

  it('keeps a Content-Type set before send, with the charset send adds', async () => {
    const app = appWith((_req, res) => res.type('text').send('hey'));
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/')).headers['content-type'], 'text/plain; charset=utf-8');
    });
  });

  it('refuses a second send as Express does (headers already sent)', async () => {
    let second: unknown;
    const app = appWith((_req, res) => {
      res.send('one');
      try {
        res.send('two');
      } catch (err) {
        second = err;
      }
    });
    await withServer(app, async (base) => {
      assert.equal((await request(base, 'GET', '/')).text, 'one');
    });
    assert.equal((second as { code?: string }).code, 'ERR_HTTP_HEADERS_SENT');
  });

  it('tags every body as the etag package does, repeated or not, alike in length or not', async () => {
    // Same-length bodies share a remembered slot: each must still get its own tag.
    const bodies = ['aaaa', 'bbbb', 'aaaa', 'caf\u00e9', 'x'.repeat(64 + 4), 'aaaa', 'y'.repeat(1500), 'y'.repeat(1500), ''];
    const weak = appWith((req, res) => res.send(bodies[Number(req.query.i)]));
    const strong = appWith((req, res) => res.send(bodies[Number(req.query.i)]));
    strong.set('etag', 'strong');
    await withServer(weak, async (base) => {
      for (let i = 0; i < bodies.length; i++) {
        assert.equal((await request(base, 'GET', `/?i=${i}`)).headers.etag, etag(Buffer.from(bodies[i]!, 'utf8'), { weak: true }), `body ${i}`);
      }
    });
    await withServer(strong, async (base) => {
      for (let i = 0; i < bodies.length; i++) {
        assert.equal((await request(base, 'GET', `/?i=${i}`)).headers.etag, etag(Buffer.from(bodies[i]!, 'utf8')), `body ${i}`);
      }
    });
  });

  it('answers 304 to the remembered tag of a repeated body', async () => {
    const app = appWith((_req, res) => res.send('Hello World'));
    await withServer(app, async (base) => {
      const first = await request(base, 'GET', '/');
      const again = await request(base, 'GET', '/', { headers: { 'If-None-Match': String(first.headers.etag) } });
      assert.equal(again.status, 304);
      assert.equal(again.headers['content-length'], undefined);
    });
  });
});
